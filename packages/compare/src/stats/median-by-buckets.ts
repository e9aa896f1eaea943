import { medianInPlace } from "./median.js";
import { selectKth } from "./select-kth.js";

/**
 * Median of a list of float64s without NaN, for long lists: one pass counts the values per bucket
 * of the top 16 bits of their IEEE 754 bit pattern (sign, exponent and 4 bits of mantissa, mapped
 * so that bucket order is numeric order), a second pass copies out the bucket that holds the middle
 * and selection finishes inside it. Two branch-free passes over the data instead of partitioning it
 * all, which mispredicts about every other comparison.
 *
 * Definition: as median(): the middle value, or the mean of the two middle values for an even count.
 * The value equals median()'s; only a zero may come back as −0 where median() gives +0 or the other
 * way round (they compare equal, and which one a selection returns depends on the order it visits).
 * Reference: radix selection, as in T. Alabi et al., "Fast k-selection algorithms for graphics
 * processing units", ACM JEA 17 (2012), with the order-preserving key of IEEE 754 bit patterns
 * (P. Terdiman, "Radix sort revisited", 2000).
 *
 * Degenerate input: NaN for an empty list; NaN values are not allowed (their bucket is past +∞, so
 * the result would not be median()'s). On a big-endian platform: median() of a copy. The input is
 * not modified.
 *
 * @example
 * medianByBuckets(Float64Array.from([3, -1, 2])); // 2
 * medianByBuckets(Float64Array.from([4, 1, 3, 2])); // 2.5
 */
export function medianByBuckets(values: Float64Array): number {
  if (values.length === 0) return Number.NaN;
  if (!LITTLE_ENDIAN) return medianInPlace(values.slice());
  const words = highWords(values);
  countBuckets(words, values.length);
  return middleOfCounted(values, words);
}

/**
 * Median absolute deviation from the median (unscaled), by medianByBuckets twice; the deviations
 * |x − median| are written over `values`. With a non-finite value among them (NaN, ±∞) it selects in
 * place instead (median(), the deviations, their median), as NaN has no place in the bucket order.
 *
 * Definition: median(|xᵢ − median(x)|). The same value as the selection in place on the same list
 * (a zero median may differ in sign only, and |x − 0| = |x − (−0)|).
 * Reference: P. J. Rousseeuw and C. Croux, "Alternatives to the median absolute deviation", JASA 88
 * (1993).
 *
 * Degenerate input: NaN for an empty list.
 *
 * @example
 * madByBuckets(Float64Array.from([1, 2, 3, 4, 100])); // 1
 */
export function madByBuckets(values: Float64Array): number {
  if (!LITTLE_ENDIAN || values.length === 0) return madInPlace(values);
  const words = highWords(values);
  countBuckets(words, values.length);
  // ±∞ and NaN (exponent all ones) fill the 16 buckets at either end, and nothing else does.
  let nonFinite = 0;
  for (let b = 0; b < 16; b++) nonFinite += counts[b]! + counts[0xffff - b]!;
  if (nonFinite > 0) return madInPlace(values);
  const med = middleOfCounted(values, words);
  // The deviations and their buckets in one pass.
  counts.fill(0);
  for (let i = 0; i < values.length; i++) {
    values[i] = Math.abs(values[i]! - med);
    counts[bucketOf(words[2 * i + 1]!)]!++;
  }
  return middleOfCounted(values, words);
}

/** The median absolute deviation by selection in place (medianInPlace twice). */
function madInPlace(values: Float64Array): number {
  const med = medianInPlace(values);
  for (let i = 0; i < values.length; i++) values[i] = Math.abs(values[i]! - med);
  return medianInPlace(values);
}

const LITTLE_ENDIAN = new Uint8Array(Float64Array.of(-1).buffer)[7] === 0xbf;

/** Values per bucket; reused (the functions are not reentrant). */
const counts = new Int32Array(1 << 16);
let scratch = new Float64Array(0);

/** The 32-bit words of the values: word 2i + 1 is the high half (sign, exponent) of value i. */
function highWords(values: Float64Array): Uint32Array {
  return new Uint32Array(values.buffer, values.byteOffset, 2 * values.length);
}

/** Counts the values of each bucket into `counts`. */
function countBuckets(words: Uint32Array, n: number): void {
  counts.fill(0);
  for (let i = 0; i < n; i++) counts[bucketOf(words[2 * i + 1]!)]!++;
}

/**
 * Bucket of a float64 from its high 32 bits: the sign bit flipped for positive numbers and every bit
 * flipped for negative ones orders the patterns as the numbers (−0 just below +0), then the top 16.
 */
function bucketOf(high: number): number {
  return (high ^ ((high >> 31) | 0x80000000)) >>> 16;
}

/** The median of values whose buckets are in `counts`. */
function middleOfCounted(values: Float64Array, words: Uint32Array): number {
  const n = values.length;
  const mid = n >> 1;
  let below = 0;
  let b = 0;
  while (below + counts[b]! <= mid) below += counts[b++]!;
  const inside = gather(values, words, b, counts[b]!);
  const upper = selectKth(inside, mid - below);
  if (n % 2 === 1) return upper;
  // The lower middle is the largest value ranked before the upper one: in the same bucket, ranked
  // before it after the selection; else the largest of the nearest non-empty bucket below.
  let lower = Number.NEGATIVE_INFINITY;
  if (mid - below > 0) {
    for (let i = 0; i < mid - below; i++) if (inside[i]! > lower) lower = inside[i]!;
  } else {
    let p = b - 1;
    while (counts[p] === 0) p--;
    const previous = gather(values, words, p, counts[p]!);
    for (let i = 0; i < previous.length; i++) if (previous[i]! > lower) lower = previous[i]!;
  }
  return (lower + upper) / 2;
}

/** The values of bucket b, copied into the reused working array. */
function gather(values: Float64Array, words: Uint32Array, b: number, size: number): Float64Array {
  if (scratch.length < size) scratch = new Float64Array(Math.max(size, 2 * scratch.length));
  let m = 0;
  for (let i = 0; i < values.length; i++) if (bucketOf(words[2 * i + 1]!) === b) scratch[m++] = values[i]!;
  return scratch.subarray(0, size);
}
