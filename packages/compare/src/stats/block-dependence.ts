/** Correlation between block means d blocks apart: lag1 · decay^(d−1) for d ≥ 1 (1 at d = 0). */
export interface BlockDependence {
  readonly lag1: number;
  readonly decay: number;
}

/**
 * Correlation structure of the means of consecutive blocks of m samples of an AR(1) process with
 * coefficient φ: the block means follow an ARMA(1,1)-shaped correlation ρ(d) = c·λ^(d−1) with λ = φ^m.
 *
 * Definition: with V = m(1+φ)/(1−φ) − 2φ(1−φ^m)/(1−φ)² (variance of a block sum, unit σ²) and
 * C = φ(1−φ^m)²/(1−φ)² (covariance of adjacent block sums): c = C/V, λ = φ^m. Fitting AR(1) to block
 * means instead would give ρ(d) = c^d, which decays too slowly for long blocks and too fast for short
 * ones.
 * Reference: Box & Jenkins (1976), temporal aggregation of ARMA processes; W. W. S. Wei, Time Series
 * Analysis, 2nd ed. (2006), chapter 20.
 *
 * Degenerate input: φ ≤ 0 or m ≤ 1 gives independence for φ ≤ 0 and {φ, φ} for m ≤ 1; φ is capped at
 * 0.999.
 *
 * @example
 * blockDependence(0.9, 20); // { lag1: 0.313, decay: 0.1216 }
 * blockDependence(0.5, 1); // { lag1: 0.5, decay: 0.5 }
 */
export function blockDependence(phi: number, m: number): BlockDependence {
  if (!(phi > 0)) return { lag1: 0, decay: 0 };
  const p = Math.min(phi, 0.999);
  if (!(m > 1)) return { lag1: p, decay: p };
  const pm = p ** m;
  const v = (m * (1 + p)) / (1 - p) - (2 * p * (1 - pm)) / (1 - p) ** 2;
  const c = (p * (1 - pm) ** 2) / (1 - p) ** 2;
  return { lag1: Math.min(Math.max(c / v, 0), 0.99), decay: pm };
}
