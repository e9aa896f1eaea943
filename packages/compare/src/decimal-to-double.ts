// Exact decimal → double conversion of a JSON number token, without allocating a string for it.
//
// The same correctly rounded (round half to even) result as Number(token), by three paths:
// 1. Clinger's fast path: a significand below 2^53 and a decimal exponent of at most 22 in magnitude
//    is one exact integer and one correctly rounded multiply or divide by an exact power of ten.
// 2. Eisel–Lemire (D. Lemire, "Number Parsing at a Gigabyte per Second", Software: Practice and
//    Experience 51(8), 2021, https://arxiv.org/abs/2101.11408; the reference implementation is
//    https://github.com/fastfloat/fast_float): a significand of up to 19 digits, normalised to 64 bits,
//    times a 128-bit truncated power of five, gives the 54 leading bits of the product and whether the
//    truncation could matter. All arithmetic is on 16-bit limbs held in doubles (every partial product
//    and column sum is below 2^53, so exact); no BigInt on this path.
// 3. Number(token) wherever Eisel–Lemire declines: more than 19 significant digits, a decimal exponent
//    outside [-342, 308], a subnormal or infinite result, the products whose 9 bits below the kept
//    ones are all ones (1 in 512; fast_float computes a second product there), and the paper's
//    ambiguous case (the low 64 bits all ones).

/** Smallest and largest decimal exponents of the power-of-five table (as fast_float). */
const Q_MIN = -342;
const Q_MAX = 308;

/** Exact powers of ten: m · 10^e and m / 10^e are correctly rounded for m < 2^53, e ≤ 22. */
const POW10 = Array.from({ length: 23 }, (_, e) => 10 ** e);
const TWO_53 = 2 ** 53;
const TWO_32 = 2 ** 32;
const INV_2_16 = 2 ** -16;

/** 2^k for k in [−1074, 971] at index k + 1074 (every value is exactly representable). */
let pow2: Float64Array | undefined;

/**
 * The 128-bit truncated powers of five for q in [Q_MIN, Q_MAX], as 4 32-bit words per q, most
 * significant first: for q ≥ 0, 5^q shifted so that its top bit is bit 127 and truncated; for q < 0,
 * the reciprocal ⌊2^b / 5^−q⌋ + 1 normalised the same way (fast_float's table_generation.py). Built on
 * first use, once, with BigInt (the conversion itself does not use BigInt).
 */
let table: Float64Array | undefined;

function buildTables(): Float64Array {
  const t = new Float64Array((Q_MAX - Q_MIN + 1) * 4);
  const one = 1n;
  const top = one << 127n;
  const limit = one << 128n;
  for (let q = Q_MIN; q <= Q_MAX; q++) {
    let c: bigint;
    if (q < 0) {
      const p = 5n ** BigInt(-q);
      // The smallest z with 2^z ≥ p: p's bit length (a power of five is never a power of two).
      const z = BigInt(p.toString(2).length);
      if (q >= -27) {
        c = (one << (z + 127n)) / p + one;
      } else {
        c = (one << (2n * z + 128n)) / p + one;
        while (c >= limit) c >>= one;
      }
    } else {
      c = 5n ** BigInt(q);
      while (c < top) c <<= one;
      while (c >= limit) c >>= one;
    }
    const at = (q - Q_MIN) * 4;
    for (let k = 3; k >= 0; k--) {
      t[at + k] = Number(c & 0xffffffffn);
      c >>= 32n;
    }
  }
  pow2 = new Float64Array(2046);
  for (let k = 0; k < pow2.length; k++) pow2[k] = 2 ** (k - 1074);
  return t;
}

/**
 * multiply's product, most significant first: the top 32-bit word, the next word as two 16-bit halves
 * (bit operations on it stay within int32), then the low 64 bits as two 32-bit words (a typed array:
 * no boxing of the numbers).
 */
const words = new Float64Array(5);

/**
 * The 64 × 64 → 128-bit product of w (16-bit limbs w0, most significant, … w3) and the 64-bit word
 * T1:T0 (32-bit halves): partial products below 2^48, each 16-bit column summed with the carry below
 * 2^50, so every step is exact in doubles. Into `words`.
 */
function multiply(w0: number, w1: number, w2: number, w3: number, t1: number, t0: number): void {
  // Each step: the column's 16 bits d and the carry q16 (by floor and multiply: no ToInt32 of values
  // above 2^31).
  let acc = w3 * t0; // bit 0
  let q16 = Math.floor(acc * INV_2_16);
  const l0 = acc - q16 * 65536;
  acc = q16 + w2 * t0; // bit 16
  q16 = Math.floor(acc * INV_2_16);
  const l0High = acc - q16 * 65536;
  acc = q16 + w1 * t0 + w3 * t1; // bit 32
  q16 = Math.floor(acc * INV_2_16);
  const l1 = acc - q16 * 65536;
  acc = q16 + w0 * t0 + w2 * t1; // bit 48
  q16 = Math.floor(acc * INV_2_16);
  const l1High = acc - q16 * 65536;
  acc = q16 + w1 * t1; // bit 64
  q16 = Math.floor(acc * INV_2_16);
  const h0 = acc - q16 * 65536;
  acc = q16 + w0 * t1; // bit 80
  q16 = Math.floor(acc * INV_2_16);
  const h0High = acc - q16 * 65536;
  words[0] = q16; // bit 96: below 2^32, the product being below 2^128
  words[1] = h0High;
  words[2] = h0;
  words[3] = l1 + l1High * 65536;
  words[4] = l0 + l0High * 65536;
}

/**
 * scanDecimal's result, and convertDecimal's input: typed arrays, since V8 boxes a double passed to or
 * returned from a call it does not inline (an allocation per number).
 */
export const decimalResult = new Float64Array(1);
/** convertDecimal's input: the significand w = a · 10^nb + b as a (below 10^15) and b (below 10^4). */
export const significand = new Float64Array(2);

/**
 * Scans the JSON number at s[start] (`-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?`) and converts
 * it in the same pass, exactly as Number() of its text would; the value goes to decimalResult[0].
 * Returns the index after the number, or −1 where there is no well-formed number at `start`.
 */
export function scanDecimal(s: string, start: number): number {
  let i = start;
  let c = s.charCodeAt(i);
  const negative = c === 0x2d;
  if (negative) c = s.charCodeAt(++i);
  // Significant digits (from the first non-zero one): the first 15 in a, up to 4 more in b; the value
  // is w · 10^q with w = a · 10^nb + b.
  let a = 0;
  let b = 0;
  let nb = 0;
  let digits = 0;
  let q = 0;
  if (c === 0x30) c = s.charCodeAt(++i);
  else if (c >= 0x31 && c <= 0x39) {
    do {
      if (++digits <= 15) a = a * 10 + (c - 0x30);
      else {
        b = b * 10 + (c - 0x30);
        nb++;
      }
      c = s.charCodeAt(++i);
    } while (c >= 0x30 && c <= 0x39);
  } else return -1;
  if (c === 0x2e) {
    c = s.charCodeAt(++i);
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    if (digits === 0) {
      // 0.000…: leading zeros only scale.
      while (c === 0x30) {
        q--;
        c = s.charCodeAt(++i);
      }
    }
    while (c >= 0x30 && c <= 0x39) {
      if (++digits <= 15) a = a * 10 + (c - 0x30);
      else {
        b = b * 10 + (c - 0x30);
        nb++;
      }
      q--;
      c = s.charCodeAt(++i);
    }
  }
  if (c === 0x65 || c === 0x45) {
    c = s.charCodeAt(++i);
    let sign = 1;
    if (c === 0x2b || c === 0x2d) {
      if (c === 0x2d) sign = -1;
      c = s.charCodeAt(++i);
    }
    if (!(c >= 0x30 && c <= 0x39)) return -1;
    let e = 0;
    do {
      if (e < 1e6) e = e * 10 + (c - 0x30);
      c = s.charCodeAt(++i);
    } while (c >= 0x30 && c <= 0x39);
    q += sign * e;
  }
  if (digits === 0) {
    decimalResult[0] = negative ? -0 : 0;
    return i;
  }
  significand[0] = a;
  significand[1] = b;
  if (digits > 19 || !convertDecimal(nb, q, negative)) decimalResult[0] = Number(s.slice(start, i));
  return i;
}

/**
 * w · 10^q with w = a · 10^nb + b (a = significand[0] below 10^15, b = significand[1], nb ≤ 4,
 * 0 < w < 10^19) rounded to the nearest double into decimalResult[0], negated if asked; false where
 * Number() of the text must decide.
 */
export function convertDecimal(nb: number, q: number, negative: boolean): boolean {
  const a = significand[0]!;
  const b = significand[1]!;
  const p = POW10[nb]!;
  const wApprox = a * p + b; // exact below 2^53; at or above it, rounded but still ≥ 2^53
  if (wApprox < TWO_53 && q >= -22 && q <= 22) {
    // Clinger's fast path.
    const x = q >= 0 ? wApprox * POW10[q]! : wApprox / POW10[-q]!;
    decimalResult[0] = negative ? -x : x;
    return true;
  }
  if (q < Q_MIN || q > Q_MAX) return false;

  // Eisel–Lemire. w in 32-bit halves: a < 10^15 < 2^50, so a's low half times 10^nb (≤ 10^4) and b
  // stay below 2^46.
  if (table === undefined) table = buildTables();
  const t = table;
  const aHi = Math.floor(a / TWO_32);
  const aLo = a - aHi * TWO_32;
  const low32 = aLo * p + b;
  const carry = Math.floor(low32 / TWO_32);
  const wHi = aHi * p + carry;
  const wLo = low32 - carry * TWO_32;
  // Normalise: the significand's top bit to bit 63; then 16-bit limbs w0 (most significant) … w3.
  let lz: number;
  let hi: number;
  let lo: number;
  if (wHi !== 0) {
    lz = Math.clz32(wHi);
    hi = lz === 0 ? wHi : ((wHi << lz) | (wLo >>> (32 - lz))) >>> 0;
    lo = lz === 0 ? wLo : (wLo << lz) >>> 0;
  } else {
    const z = Math.clz32(wLo);
    lz = 32 + z;
    hi = (wLo << z) >>> 0;
    lo = 0;
  }
  const at = (q - Q_MIN) * 4;
  multiply(hi >>> 16, hi & 0xffff, lo >>> 16, lo & 0xffff, t[at]!, t[at + 1]!);
  // The high 64 bits h1 : h0b h0a (32 + 16 + 16), the low ones l1 : l0 (32 + 32).
  const h1 = words[0]!;
  const h0b = words[1]!;
  const h0a = words[2]!;
  const l1 = words[3]!;
  const l0 = words[4]!;
  // The bits below the 55 kept ones all ones (1 in 512): the exact value could carry into them from
  // the table's low word. fast_float adds w × that word's high half here; this leaves the case to
  // Number() (the rare extra product made every call slower in V8).
  if ((h0a & 0x1ff) === 0x1ff) return false;
  // The truncated table entry could still hide a carry (the paper's ambiguous case): Number().
  if (l1 === 0xffffffff && l0 === 0xffffffff) return false;
  const upper = h1 >= 2147483648 ? 1 : 0;
  const shift = upper + 9;
  // power2: the biased binary exponent of the result (fast_float's power(q) + upper − lz + 1023).
  let power2 = (((152170 + 65536) * q) >> 16) + 63 + upper - lz + 1023;
  // A subnormal result: Number().
  if (power2 <= 0) return false;
  // The 54-bit significand is (h1:h0) >> shift; its low two bits and the bits below it decide rounding.
  // Bits shift … 31 of h0 (shift is 9 or 10: from both 16-bit halves).
  const bits = (h0b << (16 - shift)) | (h0a >>> shift);
  let roundUp = bits & 1;
  if (l1 === 0 && l0 <= 1 && q >= -4 && q <= 23 && (bits & 3) === 1 && (h0a & ((1 << shift) - 1)) === 0) {
    // Exactly halfway between two doubles with an even lower one: round down (ties to even).
    roundUp = 0;
  }
  // (significand + roundUp) >> 1: h1 · 2^(31 − shift), then h0's bits from shift + 1 up.
  let m = h1 * (upper === 1 ? 2097152 : 4194304) + (bits >>> 1) + roundUp;
  if (m >= TWO_53) {
    m = 2 ** 52;
    power2++;
  }
  // An infinite result: Number().
  if (power2 >= 2047) return false;
  // m · 2^(power2 − 1075): exact, a normal double.
  const x = m * pow2![power2 - 1075 + 1074]!;
  decimalResult[0] = negative ? -x : x;
  return true;
}

/**
 * The double nearest to the JSON number s[start, end) (well formed), exactly as
 * Number(s.slice(start, end)).
 */
export function decimalToDouble(s: string, start: number, end: number): number {
  return scanDecimal(s, start) === end ? decimalResult[0]! : Number(s.slice(start, end));
}
