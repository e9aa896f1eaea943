import { selectKth } from "./select-kth.js";

/**
 * Median of a list of numbers.
 *
 * Definition: the middle value of the sorted list, or the mean of the two middle values for an even
 * count. Found by selection (O(n)) on a copy.
 * Reference: simple-statistics `median` (https://simple-statistics.github.io/docs/#median).
 *
 * Degenerate input: NaN for an empty list. The input is not modified.
 *
 * @example
 * median([3, 1, 2]); // 2
 * median([4, 1, 3, 2]); // 2.5
 */
export function median(values: ArrayLike<number>): number {
  if (values.length === 0) return Number.NaN;
  return medianInPlace(values instanceof Float64Array ? values.slice() : Float64Array.from(values));
}

/**
 * median() without the copy: selects in `values` itself, which it reorders. The same value as
 * median() of the same numbers in any order (the middle order statistics do not depend on the order;
 * with NaN among them the order is unspecified, as for median()).
 *
 * @example
 * medianInPlace(Float64Array.from([4, 1, 3, 2])); // 2.5
 */
export function medianInPlace(copy: Float64Array): number {
  const n = copy.length;
  if (n === 0) return Number.NaN;
  const mid = n >> 1;
  const upper = selectKth(copy, mid);
  if (n % 2 === 1) return upper;
  // After selecting index mid, everything left of it is ≤ upper: the lower middle is their maximum.
  let lower = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < mid; i++) if (copy[i]! > lower) lower = copy[i]!;
  return (lower + upper) / 2;
}
