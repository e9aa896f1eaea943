/**
 * Variance of a weighted sum Σ wᵢ zᵢ of unit-variance values observed at integer positions (block
 * numbers, possibly with gaps) whose correlation at distance d ≥ 1 is ρ·λ^(d−1): AR(1) when λ = ρ (the
 * default), the block means of an AR(1) when ρ and λ come from blockDependence. In units of σ².
 *
 * Definition: Σᵢ Σₖ wᵢ wₖ corr(|pᵢ − pₖ|). With ρ = 0 this is Σ wᵢ²; the ratio of the two is the design
 * effect of autocorrelation. Terms below 1e-9 are dropped, so the cost is O(n · lag) with
 * lag ≈ ln(1e-9) / ln(λ) (about 200 at λ = 0.9).
 * Reference: G. E. P. Box, G. M. Jenkins, Time Series Analysis (1976), variance of the sample mean
 * of an AR(1) process; W. G. Cochran, Sampling Techniques (1977), design effect.
 *
 * Degenerate input: 0 for no values; positions must be sorted ascending and the two arrays equally
 * long (the shorter length is used otherwise); ρ and λ are clamped to [0, 0.99].
 *
 * @example
 * ar1WeightedVariance([0, 1, 2], [1 / 3, 1 / 3, 1 / 3], 0); // 1/3 = variance of a mean of 3 iid values
 * ar1WeightedVariance([0, 1], [0.5, 0.5], 0.5); // 0.25 + 0.25 + 2 · 0.25 · 0.5 = 0.75
 * ar1WeightedVariance([0, 2], [1, 1], 0.5, 0.1); // 1 + 1 + 2 · 0.5 · 0.1 = 2.1
 */
export function ar1WeightedVariance(
  positions: ArrayLike<number>,
  weights: ArrayLike<number>,
  rho: number,
  decay: number = rho,
): number {
  const n = Math.min(positions.length, weights.length);
  const r = clamp(rho);
  const lambda = clamp(decay);
  let total = 0;
  for (let i = 0; i < n; i++) total += weights[i]! * weights[i]!;
  if (r === 0) return total;
  // corr(d) = r·λ^(d−1); with λ = 0 only neighbours (d = 1) correlate.
  const maxLag = lambda > 0 ? 1 + Math.ceil(Math.log(1e-9 / r) / Math.log(lambda)) : 1;
  const logL = lambda > 0 ? Math.log(lambda) : Number.NEGATIVE_INFINITY;
  // corr(d) for the integer distances that occur, each worked out once (the same expression, so the
  // same value) instead of once per pair: a table up to the smaller of maxLag and the positions' span.
  const span = n > 0 ? positions[n - 1]! - positions[0]! : 0;
  const lags = Math.max(0, Math.min(maxLag, Number.isFinite(span) ? Math.floor(span) : 0));
  if (corrTable.length <= lags) corrTable = new Float64Array(lags + 1);
  const corr = corrTable;
  for (let d = 1; d <= lags; d++) corr[d] = d === 1 ? r : r * Math.exp((d - 1) * logL);
  let cross = 0;
  for (let i = 0; i < n; i++) {
    const pi = positions[i]!;
    const wi = weights[i]!;
    for (let k = i + 1; k < n; k++) {
      const d = positions[k]! - pi;
      if (d > maxLag) break;
      const c = d <= lags && Number.isInteger(d) ? corr[d]! : d === 1 ? r : r * Math.exp((d - 1) * logL);
      cross += wi * weights[k]! * c;
    }
  }
  return total + 2 * cross;
}

/** ar1WeightedVariance's table of corr(d), reused across calls (filled before each use). */
let corrTable = new Float64Array(0);

function clamp(x: number): number {
  return Math.min(Math.max(Number.isFinite(x) ? x : 0, 0), 0.99);
}
