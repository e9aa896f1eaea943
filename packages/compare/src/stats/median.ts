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
  const n = values.length;
  if (n === 0) return Number.NaN;
  const copy = values instanceof Float64Array ? values.slice() : Float64Array.from(values);
  const mid = n >> 1;
  const upper = selectKth(copy, mid);
  if (n % 2 === 1) return upper;
  // After selecting index mid, everything left of it is ≤ upper: the lower middle is their maximum.
  let lower = Number.NEGATIVE_INFINITY;
  for (let i = 0; i < mid; i++) if (copy[i]! > lower) lower = copy[i]!;
  return (lower + upper) / 2;
}
