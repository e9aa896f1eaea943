import { normalCdf } from "./normal-cdf.js";
import { regularizedIncompleteBeta } from "./regularized-incomplete-beta.js";

/**
 * Cumulative distribution function of Student's t distribution with `df` degrees of freedom
 * (df may be fractional, as Welch–Satterthwaite degrees of freedom are).
 *
 * Definition: F(t) = 1 − ½ I_x(df/2, ½) for t ≥ 0 with x = df / (df + t²), and F(−t) = 1 − F(t).
 * Reference: Abramowitz & Stegun 26.7.1; Numerical Recipes 3rd ed., section 6.14.
 *
 * Degenerate input: NaN for NaN t or df ≤ 0; df = Infinity (or above 1e7) is the normal distribution.
 *
 * @example
 * studentTCdf(0, 5); // 0.5
 * studentTCdf(2.200985160091639, 11); // 0.975
 */
export function studentTCdf(t: number, df: number): number {
  if (Number.isNaN(t) || !(df > 0)) return Number.NaN;
  if (df > 1e7) return normalCdf(t);
  if (t === Number.POSITIVE_INFINITY) return 1;
  if (t === Number.NEGATIVE_INFINITY) return 0;
  const tail = 0.5 * regularizedIncompleteBeta(df / (df + t * t), df / 2, 0.5);
  return t < 0 ? tail : 1 - tail;
}
