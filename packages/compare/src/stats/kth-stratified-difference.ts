/** One stratum: two samples, each sorted ascending. */
export interface SortedPair {
  readonly after: ArrayLike<number>;
  readonly before: ArrayLike<number>;
}

/**
 * The k-th smallest (1-based) of all within-stratum differences aₕᵢ − bₕⱼ, without forming them.
 *
 * Definition: order statistic D₍ₖ₎ of the multiset {aᵢ − bⱼ : i, j in the same stratum}. Bisection on
 * the value with an O(n) two-pointer count per stratum, then the remaining few candidates are listed
 * and sorted; O((n_a + n_b) · log(range/ε)) time and O(n) memory, so 2,000 × 2,000 blocks (4 million
 * differences) cost a few milliseconds.
 * Reference: J. F. Monahan, "Algorithm 616: fast computation of the Hodges–Lehmann location
 * estimator", ACM TOMS 10 (1984), for the idea of selecting among implicit pairwise differences.
 *
 * Degenerate input: NaN when there are no pairs or k is outside 1..N.
 *
 * @example
 * kthStratifiedDifference([{ after: [3, 5], before: [1, 2] }], 1); // 1 (= 3 − 2)
 * kthStratifiedDifference([{ after: [3, 5], before: [1, 2] }], 4); // 4 (= 5 − 1)
 */
export function kthStratifiedDifference(strata: readonly SortedPair[], k: number): number {
  let total = 0;
  let lo = Number.POSITIVE_INFINITY;
  let hi = Number.NEGATIVE_INFINITY;
  for (const s of strata) {
    const na = s.after.length;
    const nb = s.before.length;
    if (na === 0 || nb === 0) continue;
    total += na * nb;
    lo = Math.min(lo, s.after[0]! - s.before[nb - 1]!);
    hi = Math.max(hi, s.after[na - 1]! - s.before[0]!);
  }
  if (total === 0 || !(k >= 1 && k <= total) || !Number.isInteger(k)) return Number.NaN;
  // Invariant: count(lo) < k <= count(hi).
  lo = lo - Math.max(1, Math.abs(lo)) * 1e-9;
  let countLo = 0;
  let countHi = total;
  for (let iter = 0; iter < 2200 && countHi - countLo > 256; iter++) {
    const mid = lo + (hi - lo) / 2;
    if (mid <= lo || mid >= hi) return hi; // no double between: every remaining candidate equals hi
    const c = countAtMost(strata, mid);
    if (c >= k) {
      hi = mid;
      countHi = c;
    } else {
      lo = mid;
      countLo = c;
    }
  }
  const candidates: number[] = [];
  for (const s of strata) {
    const nb = s.before.length;
    let start = 0;
    let end = 0;
    for (let i = 0; i < s.after.length; i++) {
      const a = s.after[i]!;
      // b in [a − hi, a − lo): both bounds rise with a, so the pointers only move forward.
      while (start < nb && s.before[start]! < a - hi) start++;
      if (end < start) end = start;
      while (end < nb && s.before[end]! < a - lo) end++;
      for (let j = start; j < end; j++) {
        const d = a - s.before[j]!;
        if (d > lo && d <= hi) candidates.push(d);
      }
    }
  }
  candidates.sort((x, y) => x - y);
  return candidates[k - countLo - 1] ?? hi;
}

/** Number of within-stratum differences a − b that are ≤ x. */
function countAtMost(strata: readonly SortedPair[], x: number): number {
  let count = 0;
  for (const s of strata) {
    const nb = s.before.length;
    // For ascending a, the threshold a − x rises: count b ≥ a − x with a pointer moving forward.
    let j = 0;
    for (let i = 0; i < s.after.length; i++) {
      const threshold = s.after[i]! - x;
      while (j < nb && s.before[j]! < threshold) j++;
      count += nb - j;
    }
  }
  return count;
}
