import { logGamma } from "./log-gamma.js";
import { normalQuantile } from "./normal-quantile.js";
import { studentTCdf } from "./student-t-cdf.js";

/**
 * Quantile function of Student's t distribution: the t with F(t; df) = p. df may be fractional.
 *
 * Definition: inverse of studentTCdf. Starts from the normal quantile with the Cornish–Fisher
 * correction and polishes with safeguarded Newton steps (bisection fallback), to about 1e-12.
 * Reference: G. W. Hill, "Algorithm 396: Student's t-quantiles", CACM 13 (1970) for the expansion;
 * Abramowitz & Stegun 26.7.5.
 *
 * Degenerate input: NaN for p outside [0, 1] or df ≤ 0; ±Infinity at p = 0 or 1.
 *
 * @example
 * studentTQuantile(0.975, 11); // 2.200985160091639
 * studentTQuantile(0.975, 1); // 12.706204736174698
 */
export function studentTQuantile(p: number, df: number): number {
  if (!(p >= 0 && p <= 1) || !(df > 0)) return Number.NaN;
  if (p === 0) return Number.NEGATIVE_INFINITY;
  if (p === 1) return Number.POSITIVE_INFINITY;
  if (p === 0.5) return 0;
  if (df > 1e7) return normalQuantile(p);
  if (p < 0.5) return -studentTQuantile(1 - p, df);
  const z = normalQuantile(p);
  const g1 = (z ** 3 + z) / 4;
  const g2 = (5 * z ** 5 + 16 * z ** 3 + 3 * z) / 96;
  let t = z + g1 / df + g2 / (df * df);
  if (!Number.isFinite(t) || t <= 0) t = z;
  let lo = 0;
  let hi = Math.max(2 * t, 1);
  while (studentTCdf(hi, df) < p) hi *= 2;
  const lnC = logGamma((df + 1) / 2) - logGamma(df / 2) - 0.5 * Math.log(df * Math.PI);
  for (let i = 0; i < 200; i++) {
    const f = studentTCdf(t, df) - p;
    if (f > 0) hi = Math.min(hi, t);
    else lo = Math.max(lo, t);
    const pdf = Math.exp(lnC - ((df + 1) / 2) * Math.log1p((t * t) / df));
    let next = t - f / pdf;
    if (!(next > lo && next < hi)) next = (lo + hi) / 2;
    if (Math.abs(next - t) <= 1e-13 * Math.max(1, Math.abs(t))) return next;
    t = next;
  }
  return t;
}
