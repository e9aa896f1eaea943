import { regularizedGammaQ } from "./regularized-gamma-q.js";

/**
 * Standard normal cumulative distribution function Φ(z) = P(Z ≤ z), Z ~ N(0, 1).
 *
 * Definition: Φ(z) = ½ erfc(−z/√2), with erfc(u) = Q(½, u²) for u ≥ 0 (regularized upper incomplete
 * gamma), so both tails keep full relative precision (Φ(−10) ≈ 7.6e-24, not 0).
 * Reference: Abramowitz & Stegun 7.1.2 and 26.2.2.
 *
 * Degenerate input: NaN gives NaN; ±Infinity gives 1 or 0.
 *
 * @example
 * normalCdf(0); // 0.5
 * normalCdf(1.959963984540054); // 0.975
 */
export function normalCdf(z: number): number {
  if (Number.isNaN(z)) return Number.NaN;
  if (z === Number.POSITIVE_INFINITY) return 1;
  if (z === Number.NEGATIVE_INFINITY) return 0;
  const tail = 0.5 * regularizedGammaQ(0.5, (z * z) / 2);
  return z < 0 ? tail : 1 - tail;
}
