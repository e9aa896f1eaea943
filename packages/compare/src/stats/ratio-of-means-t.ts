import { ar1WeightedVariance } from "./ar1-weighted-variance.js";
import type { LogRatioEstimate, RatioCell, RatioStratum } from "./ratio-cell.js";
import { stratumWeights } from "./stratum-weights.js";
import { studentTCdf } from "./student-t-cdf.js";
import { studentTQuantile } from "./student-t-quantile.js";

export interface RatioOfMeansTResult extends LogRatioEstimate {
  /** Standard error of logRatio. */
  readonly se: number;
  /** Welch–Satterthwaite degrees of freedom after the autocorrelation design effect. */
  readonly df: number;
  /** Standardised means (after, before) of x; of the control too when present. */
  readonly meanAfter: number;
  readonly meanBefore: number;
}

/**
 * Ratio of (standardised) means after/before with a t interval on the log scale whose variance
 * accounts for AR(1) autocorrelation between blocks; with control values it is the ratio of ratios
 * (difference in differences on the log scale).
 *
 * Definition: with stratum weights ωₕ, Xw = Σ ωₕ x̄w,ₕ and Cw = Σ ωₕ c̄w,ₕ (C = 1 without control),
 * log θ = log(Xa/Ca) − log(Xb/Cb). Delta method: log(Xw/Cw) is linearised into Σ gⱼ zⱼ with
 * zⱼ = (xⱼ − x̄w,ₕ)/Xw − (cⱼ − c̄w,ₕ)/Cw and gⱼ = ωₕ/nw,ₕ; its variance is Σᵢₖ gᵢσᵢ gₖσₖ ρ^|pᵢ−pₖ|.
 * Each cell's σ² is estimated as Σ z² / (n − κ) with κ = n·Var(z̄)/σ² the cell's design effect, which
 * removes the downward bias of the sample variance under autocorrelation; df per cell n/κ − 1,
 * combined by Welch–Satterthwaite. Cross-cell covariance enters the variance, not the df.
 * Reference: W. G. Cochran, Sampling Techniques, 3rd ed. (1977), ratio and stratified estimators;
 * F. E. Satterthwaite, Biometrics Bulletin 2 (1946); Box & Jenkins (1976) for the AR(1) variance.
 *
 * Degenerate input: NaN estimate (p = 1, infinite CI) when a standardised mean of the before window or
 * of a control is ≤ 0, when x after is 0, or when no stratum has two blocks on both sides; a zero
 * standard error gives a point interval and p = 0 (or 1 when the ratio is exactly 1).
 *
 * @param rho lag-1 correlation of block residuals (lag1Autocorrelation, or blockDependence)
 * @param decay ratio of successive correlations beyond lag 1 (AR(1): equal to rho)
 * @example
 * const r = ratioOfMeansT(
 *   [{ before: { positions: [0, 1, 2, 3], x: [9, 11, 10, 10] }, after: { positions: [4, 5, 6, 7], x: [12, 11, 13, 12] } }],
 *   0.05, 0,
 * );
 * Math.exp(r.logRatio); // 1.2
 */
export function ratioOfMeansT(
  strata: readonly RatioStratum[],
  alpha: number,
  rho: number,
  decay: number = rho,
): RatioOfMeansTResult {
  const omega = stratumWeights(strata);
  const hasControl = strata.some((s) => s.before.c !== undefined);
  const xa = standardisedMean(strata, omega, "after", "x");
  const xb = standardisedMean(strata, omega, "before", "x");
  const ca = hasControl ? standardisedMean(strata, omega, "after", "c") : 1;
  const cb = hasControl ? standardisedMean(strata, omega, "before", "c") : 1;
  const nan: RatioOfMeansTResult = {
    logRatio: Number.NaN,
    ciLow: -Infinity,
    ciHigh: Infinity,
    pValue: 1,
    se: Number.NaN,
    df: Number.NaN,
    meanAfter: xa,
    meanBefore: xb,
  };
  if (!(xb > 0) || !(xa > 0) || !(ca > 0) || !(cb > 0) || omega.every((w) => w === 0)) return nan;
  const logRatio = Math.log(xa / ca) - Math.log(xb / cb);

  let variance = 0;
  let dfDenominator = 0;
  let cellVarianceSum = 0;
  for (const side of ["after", "before"] as const) {
    const scaleX = side === "after" ? xa : xb;
    const scaleC = side === "after" ? ca : cb;
    // Per stratum with weight: its cell and the weight g·σ of each of its blocks.
    const cells: RatioCell[] = [];
    const blockWeights: number[] = [];
    strata.forEach((s, h) => {
      const w = omega[h]!;
      if (w === 0) return;
      const cell = s[side];
      const n = cell.x.length;
      const z = linearised(cell, scaleX, scaleC);
      const g = w / n;
      const equal = new Float64Array(n).fill(1 / n);
      const kappa = n * ar1WeightedVariance(cell.positions, equal, rho, decay);
      let ss = 0;
      for (const v of z) ss += v * v;
      const sigma2 = ss / Math.max(n - kappa, 0.05 * (n - 1));
      const sigma = Math.sqrt(sigma2);
      const cellVar = sigma2 * g * g * n * kappa;
      cellVarianceSum += cellVar;
      dfDenominator += (cellVar * cellVar) / Math.max(n / kappa - 1, 1);
      cells.push(cell);
      blockWeights.push(g * sigma);
    });
    const { positions, weights } = inPositionOrder(cells, blockWeights);
    variance += ar1WeightedVariance(positions, weights, rho, decay);
  }
  const se = Math.sqrt(variance);
  const df = dfDenominator > 0 ? Math.max((cellVarianceSum * cellVarianceSum) / dfDenominator, 1) : 1;
  if (!(se > 0)) {
    return { ...nan, logRatio, ciLow: logRatio, ciHigh: logRatio, pValue: logRatio === 0 ? 1 : 0, se: 0, df };
  }
  const q = studentTQuantile(1 - alpha / 2, df);
  const pValue = Math.min(1, 2 * (1 - studentTCdf(Math.abs(logRatio) / se, df)));
  return {
    logRatio,
    ciLow: logRatio - q * se,
    ciHigh: logRatio + q * se,
    pValue,
    se,
    df,
    meanAfter: xa,
    meanBefore: xb,
  };
}

function standardisedMean(
  strata: readonly RatioStratum[],
  omega: readonly number[],
  side: "after" | "before",
  key: "x" | "c",
): number {
  let total = 0;
  strata.forEach((s, h) => {
    const w = omega[h]!;
    const values = s[side][key];
    if (w === 0 || values === undefined) return;
    total += w * mean(values);
  });
  return total;
}

function mean(values: ArrayLike<number>): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return values.length > 0 ? s / values.length : Number.NaN;
}

/** Influence values of log(X/C) for one cell, before the ωₕ/nₕ factor. */
function linearised(cell: RatioCell, scaleX: number, scaleC: number): Float64Array {
  const n = cell.x.length;
  const mx = mean(cell.x);
  const mc = cell.c ? mean(cell.c) : 0;
  const z = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    z[i] = (cell.x[i]! - mx) / scaleX - (cell.c ? (cell.c[i]! - mc) / scaleC : 0);
  }
  return z;
}

/**
 * The blocks of all cells ordered by position (a stable sort: ties in cell order), with each block's
 * weight. Cells' positions ascend as a rule: then a merge of the cells; otherwise a sort.
 */
function inPositionOrder(
  cells: readonly RatioCell[],
  cellWeights: readonly number[],
): { positions: Float64Array; weights: Float64Array } {
  let total = 0;
  let ascending = true;
  for (const cell of cells) {
    const p = cell.positions;
    total += cell.x.length;
    for (let i = 1; i < cell.x.length && ascending; i++) if (!(p[i - 1]! <= p[i]!)) ascending = false;
  }
  const positions = new Float64Array(total);
  const weights = new Float64Array(total);
  if (!ascending) {
    const all: number[] = [];
    const w: number[] = [];
    cells.forEach((cell, c) => {
      for (let i = 0; i < cell.x.length; i++) {
        all.push(cell.positions[i]!);
        w.push(cellWeights[c]!);
      }
    });
    const order = all.map((_, i) => i).sort((i, k) => all[i]! - all[k]!);
    order.forEach((i, k) => {
      positions[k] = all[i]!;
      weights[k] = w[i]!;
    });
    return { positions, weights };
  }
  // Merge: take the smallest head, the first cell's on ties.
  const heads = new Int32Array(cells.length);
  for (let k = 0; k < total; k++) {
    let best = -1;
    let bestPosition = Number.POSITIVE_INFINITY;
    for (let c = 0; c < cells.length; c++) {
      const cell = cells[c]!;
      const i = heads[c]!;
      if (i < cell.x.length && (best < 0 || cell.positions[i]! < bestPosition)) {
        best = c;
        bestPosition = cell.positions[i]!;
      }
    }
    positions[k] = bestPosition;
    weights[k] = cellWeights[best]!;
    heads[best]!++;
  }
  return { positions, weights };
}
