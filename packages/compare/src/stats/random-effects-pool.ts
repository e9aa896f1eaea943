import { normalCdf } from "./normal-cdf.js";
import { normalQuantile } from "./normal-quantile.js";

export interface PooledEstimate {
  /** Pooled effect. */
  readonly estimate: number;
  readonly se: number;
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly pValue: number;
  /** Between-study variance τ² (DerSimonian–Laird). */
  readonly tau2: number;
  /** Share of total variability due to heterogeneity, I² in [0, 1]. */
  readonly i2: number;
  /** Number of estimates pooled. */
  readonly k: number;
}

/**
 * Random-effects pooling of independent estimates (here: per-instance log ratios) with the
 * DerSimonian–Laird between-instance variance.
 *
 * Definition: fixed weights wᵢ = 1/sᵢ², Cochran's Q = Σ wᵢ(yᵢ − ȳ_w)², τ² = max(0, (Q − (k−1)) /
 * (Σw − Σw²/Σw)); random weights wᵢ* = 1/(sᵢ² + τ²); estimate Σ wᵢ* yᵢ / Σ wᵢ*, SE = (Σ wᵢ*)^(−½), normal
 * interval and p-value. I² = max(0, (Q − (k−1))/Q).
 * Reference: R. DerSimonian and N. Laird, "Meta-analysis in clinical trials", Controlled Clinical
 * Trials 7 (1986); J. P. T. Higgins and S. G. Thompson, "Quantifying heterogeneity in a
 * meta-analysis", Stat. Med. 21 (2002).
 *
 * Degenerate input: entries with a non-finite estimate or a non-positive or non-finite SE are skipped;
 * no usable entry gives NaN with p = 1; one entry is returned as it is (τ² = 0).
 *
 * @example
 * const r = randomEffectsPool([{ estimate: 0.1, se: 0.05 }, { estimate: 0.1, se: 0.05 }], 0.05);
 * r.estimate; // 0.1
 * r.se; // 0.0354 (= 0.05/√2)
 */
export function randomEffectsPool(
  entries: readonly { readonly estimate: number; readonly se: number }[],
  alpha: number,
): PooledEstimate {
  const usable = entries.filter((e) => Number.isFinite(e.estimate) && e.se > 0 && Number.isFinite(e.se));
  const k = usable.length;
  if (k === 0) {
    return {
      estimate: Number.NaN,
      se: Number.NaN,
      ciLow: -Infinity,
      ciHigh: Infinity,
      pValue: 1,
      tau2: 0,
      i2: 0,
      k,
    };
  }
  const w = usable.map((e) => 1 / (e.se * e.se));
  const sw = w.reduce((a, b) => a + b, 0);
  const sw2 = w.reduce((a, b) => a + b * b, 0);
  const fixed = usable.reduce((acc, e, i) => acc + w[i]! * e.estimate, 0) / sw;
  const q = usable.reduce((acc, e, i) => acc + w[i]! * (e.estimate - fixed) ** 2, 0);
  const denom = sw - sw2 / sw;
  const tau2 = k > 1 && denom > 0 ? Math.max(0, (q - (k - 1)) / denom) : 0;
  const wr = usable.map((e) => 1 / (e.se * e.se + tau2));
  const swr = wr.reduce((a, b) => a + b, 0);
  const estimate = usable.reduce((acc, e, i) => acc + wr[i]! * e.estimate, 0) / swr;
  const se = Math.sqrt(1 / swr);
  const z = normalQuantile(1 - alpha / 2);
  return {
    estimate,
    se,
    ciLow: estimate - z * se,
    ciHigh: estimate + z * se,
    pValue: Math.min(1, 2 * (1 - normalCdf(Math.abs(estimate) / se))),
    tau2,
    i2: q > 0 && k > 1 ? Math.max(0, (q - (k - 1)) / q) : 0,
    k,
  };
}
