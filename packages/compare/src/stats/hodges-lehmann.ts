import { kthStratifiedDifference, type SortedPair } from "./kth-stratified-difference.js";
import { normalCdf } from "./normal-cdf.js";
import { normalQuantile } from "./normal-quantile.js";
import { studentTCdf } from "./student-t-cdf.js";
import { studentTQuantile } from "./student-t-quantile.js";

/** One stratum of a stratified two-sample comparison. */
export interface RankStratum {
  /** After-window values (any order). */
  readonly after: ArrayLike<number>;
  /** Before-window values (any order). */
  readonly before: ArrayLike<number>;
  /** Variance inflation of the after sample's mean from autocorrelation (1 = independent). */
  readonly designEffectAfter?: number;
  /** Variance inflation of the before sample's mean from autocorrelation (1 = independent). */
  readonly designEffectBefore?: number;
}

export interface HodgesLehmannResult {
  /** Hodges–Lehmann shift estimate (after − before). */
  readonly shift: number;
  /** Lower confidence limit of the shift (−Infinity when the samples are too small). */
  readonly ciLow: number;
  /** Upper confidence limit of the shift (+Infinity when the samples are too small). */
  readonly ciHigh: number;
  /** Two-sided p-value of the (stratified) Mann–Whitney test of no shift. */
  readonly pValue: number;
  /** Mann–Whitney U summed over strata: pairs with after > before, ties counting ½. */
  readonly u: number;
  /** Number of within-stratum pairs. */
  readonly pairs: number;
}

/**
 * Stratified Mann–Whitney test with the Hodges–Lehmann shift estimate and Moses' confidence interval.
 *
 * Definition: U = Σₕ #{aᵢ > bⱼ} (+½ per tie) over pairs in the same stratum; the shift estimate is the
 * median of the within-stratum differences aᵢ − bⱼ; the CI is [D₍C₎, D₍N+1−C₎] with
 * C = ⌊N/2 − z₁₋α/₂ √Var(U)⌋. Under independence Var(Uₕ) = nₐ n_b (nₐ + n_b + 1)/12; autocorrelated
 * samples inflate each window's share, giving nₐ n_b (n_b κₐ + nₐ κ_b + 1)/12 with κ the design
 * effects, times the tie correction 1 − Σ(t³ − t)/(N³ − N) (van Elteren-style sum over strata, with
 * continuity correction). Independent samples (all κ = 1) use the normal approximation; with
 * dependence the variance rests on an estimated κ and few effective values, so the reference is a t
 * distribution with Welch–Satterthwaite df built from the effective sizes n/κ (as in ratioOfMeansT).
 * Reference: J. L. Hodges and E. L. Lehmann, "Estimates of location based on rank tests", Ann. Math.
 * Statist. 34 (1963); L. E. Moses in Hollander & Wolfe, Nonparametric Statistical Methods, 3rd ed.,
 * section 4.3; P. H. van Elteren, "On the combination of independent two-sample tests of Wilcoxon",
 * Bull. ISI 37 (1960).
 *
 * Degenerate input: shift NaN and p = 1 with no pairs; when all values are equal, shift 0, CI [0, 0],
 * p = 1.
 *
 * @example
 * const r = hodgesLehmann([{ after: [11, 12, 13, 14, 15], before: [1, 2, 3, 4, 5] }], 0.05);
 * r.shift; // 10
 * r.pValue < 0.05; // true
 */
export function hodgesLehmann(strata: readonly RankStratum[], alpha: number): HodgesLehmannResult {
  const sorted: SortedPair[] = [];
  let u = 0;
  let pairs = 0;
  let variance = 0;
  let allEqual = true;
  let dependent = false;
  let dfNumerator = 0;
  let dfDenominator = 0;
  let first: number | undefined;
  for (const s of strata) {
    const a = Float64Array.from(s.after).sort();
    const b = Float64Array.from(s.before).sort();
    const na = a.length;
    const nb = b.length;
    if (na === 0 || nb === 0) continue;
    first ??= a[0]!;
    if (a[0] !== first || a[na - 1] !== first || b[0] !== first || b[nb - 1] !== first) allEqual = false;
    sorted.push({ after: a, before: b });
    pairs += na * nb;
    u += mannWhitneyU(a, b);
    const ka = Math.max(s.designEffectAfter ?? 1, 1);
    const kb = Math.max(s.designEffectBefore ?? 1, 1);
    const n = na + nb;
    const ties = 1 - tieSum(a, b) / (n * n * n - n);
    variance += ((na * nb * (nb * ka + na * kb + 1)) / 12) * ties;
    if (ka > 1 || kb > 1) dependent = true;
    // Satterthwaite over the two windows' shares of Var(U), each with n/κ − 1 effective df.
    const partA = (na * nb * nb * ka) / 12;
    const partB = (na * nb * na * kb) / 12;
    dfNumerator += partA + partB;
    dfDenominator += (partA * partA) / Math.max(na / ka - 1, 1) + (partB * partB) / Math.max(nb / kb - 1, 1);
  }
  if (pairs === 0) {
    return { shift: Number.NaN, ciLow: -Infinity, ciHigh: Infinity, pValue: 1, u: 0, pairs: 0 };
  }
  if (allEqual) return { shift: 0, ciLow: 0, ciHigh: 0, pValue: 1, u, pairs };
  const mean = pairs / 2;
  const sd = Math.sqrt(variance);
  const dev = Math.max(Math.abs(u - mean) - 0.5, 0);
  const df =
    dfDenominator > 0 ? Math.max((dfNumerator * dfNumerator) / dfDenominator, 1) : Number.POSITIVE_INFINITY;
  const tail = (x: number) => (dependent ? 1 - studentTCdf(x, df) : 1 - normalCdf(x));
  const quantile = dependent ? studentTQuantile(1 - alpha / 2, df) : normalQuantile(1 - alpha / 2);
  const pValue = Math.min(1, 2 * tail(dev / sd));
  const shift =
    pairs % 2 === 1
      ? kthStratifiedDifference(sorted, (pairs + 1) / 2)
      : (kthStratifiedDifference(sorted, pairs / 2) + kthStratifiedDifference(sorted, pairs / 2 + 1)) / 2;
  const c = Math.floor(mean - quantile * sd);
  if (c < 1) return { shift, ciLow: -Infinity, ciHigh: Infinity, pValue, u, pairs };
  return {
    shift,
    ciLow: kthStratifiedDifference(sorted, c),
    ciHigh: kthStratifiedDifference(sorted, pairs + 1 - c),
    pValue,
    u,
    pairs,
  };
}

/** U for sorted samples: pairs with a > b plus half the ties. */
function mannWhitneyU(a: Float64Array, b: Float64Array): number {
  let below = 0; // b values < current a
  let belowOrEqual = 0; // b values ≤ current a
  let u = 0;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    while (below < b.length && b[below]! < x) below++;
    if (belowOrEqual < below) belowOrEqual = below;
    while (belowOrEqual < b.length && b[belowOrEqual]! <= x) belowOrEqual++;
    u += below + (belowOrEqual - below) / 2;
  }
  return u;
}

/** Σ (t³ − t) over groups of equal values in the merged samples (tie correction of Var(U)). */
function tieSum(a: Float64Array, b: Float64Array): number {
  let i = 0;
  let j = 0;
  let sum = 0;
  while (i < a.length || j < b.length) {
    const v = j >= b.length || (i < a.length && a[i]! <= b[j]!) ? a[i]! : b[j]!;
    let t = 0;
    while (i < a.length && a[i] === v) {
      i++;
      t++;
    }
    while (j < b.length && b[j] === v) {
      j++;
      t++;
    }
    sum += t * t * t - t;
  }
  return sum;
}
