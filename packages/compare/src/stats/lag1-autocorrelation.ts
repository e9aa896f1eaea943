/** One run of residuals (already centred within its group) at integer positions, sorted ascending. */
export interface ResidualRun {
  readonly positions: ArrayLike<number>;
  readonly residuals: ArrayLike<number>;
}

/**
 * Pooled lag-1 autocorrelation of residual runs, bias-corrected and clamped to [0, 0.95].
 *
 * Definition: ρ̂ = Σ rᵢ rᵢ₊₁ / Σ rᵢ² over neighbours whose positions differ by exactly 1 (gaps break
 * pairs). Centring each group on its own mean biases ρ̂ down by about (1 + 3ρ)/n for a group of n
 * values (Marriott and Pope), which with 12 blocks per window would hide most of the dependence; with
 * m estimated means over N values the corrected estimate is ρ = (ρ̂ + m/N) / (1 − 3m/N).
 * Negative values are returned as 0: ignoring negative dependence only widens intervals.
 * Reference: F. H. C. Marriott and J. A. Pope, "Bias in the estimation of autocorrelations",
 * Biometrika 41 (1954); M. G. Kendall, "Note on bias in the estimation of autocorrelation" (1954).
 *
 * Degenerate input: 0 when there are fewer than 3 neighbour pairs or all residuals are 0.
 *
 * @param runs residual runs (positions sorted ascending)
 * @param meansEstimated number of group means removed before calling (for the bias correction)
 * @example
 * lag1Autocorrelation([{ positions: [0, 1, 2, 3], residuals: [1, -1, 1, -1] }], 1); // 0 (negative)
 * lag1Autocorrelation([{ positions: [0, 1, 2, 3, 4, 5], residuals: [-2, -1, 0, 0, 1, 2] }], 1); // 0.95 (clamped)
 */
export function lag1Autocorrelation(runs: readonly ResidualRun[], meansEstimated: number): number {
  let num = 0;
  let den = 0;
  let pairs = 0;
  let count = 0;
  for (const run of runs) {
    const n = Math.min(run.positions.length, run.residuals.length);
    count += n;
    for (let i = 0; i < n; i++) {
      const r = run.residuals[i]!;
      den += r * r;
      if (i + 1 < n && run.positions[i + 1]! - run.positions[i]! === 1) {
        num += r * run.residuals[i + 1]!;
        pairs++;
      }
    }
  }
  if (pairs < 3 || den <= 0) return 0;
  const raw = num / den;
  const m = Math.max(meansEstimated, 0) / count;
  const corrected = 3 * m < 0.9 ? (raw + m) / (1 - 3 * m) : raw + m;
  return Math.min(Math.max(corrected, 0), 0.95);
}
