import type { MetricKind, Options } from "./input.js";
import type { Rng } from "./prng.js";
import type { Flag, ResultMethod } from "./result.js";
import { ar1WeightedVariance } from "./stats/ar1-weighted-variance.js";
import { blockBootstrapRatio } from "./stats/block-bootstrap-ratio.js";
import { type BlockDependence, blockDependence } from "./stats/block-dependence.js";
import { hodgesLehmann } from "./stats/hodges-lehmann.js";
import { lag1Autocorrelation, type ResidualRun } from "./stats/lag1-autocorrelation.js";
import { normalQuantile } from "./stats/normal-quantile.js";
import type { RatioCell, RatioStratum } from "./stats/ratio-cell.js";
import { ratioOfMeansT } from "./stats/ratio-of-means-t.js";

export interface EffectEstimate {
  readonly logRatio: number;
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly pValue: number;
  /** SE of logRatio (from the CI width and the normal quantile when the method has no closed form). */
  readonly logSe: number;
  readonly rho: number;
  readonly method: ResultMethod;
  readonly estimand: "ratio-of-means" | "hodges-lehmann-ratio";
  readonly flags: Flag[];
}

/**
 * Picks and runs the test for one comparison given as block-level strata (x = judged series, c =
 * control when present):
 * - Hodges–Lehmann on log block values for latency and wait (heavy tails, stalls), stratified by hour
 *   and with autocorrelation-inflated variance; it needs every value > 0, so zero-inflated metrics fall
 *   back to the ratio of means (Kayenta's effect size breaks on them, kayenta#674).
 * - Otherwise the ratio of means with the block-t interval. The circular block bootstrap is used only
 *   when asked for (method "block-bootstrap") and every cell has ≥ minBootstrapBlocks blocks: at the
 *   sizes seen here its standard errors come out 10–20% below block-t's, which is calibrated
 *   (docs/comparison.md, section 5).
 * Dependence between blocks: the correlation of block means implied by the scrape-level lag-1
 * autocorrelation (blockDependence), unless the blocks themselves show clearly more lag-1 correlation
 * than that (slow load swings the scrape-level AR(1) misses): then AR(1) on the blocks.
 */
export function estimateEffect(
  strata: readonly RatioStratum[],
  kind: MetricKind,
  options: Options,
  rng: Rng,
  scrape: { readonly lag1: number; readonly samplesPerBlock: number } = {
    lag1: Number.NaN,
    samplesPerBlock: 1,
  },
): EffectEstimate {
  const flags: Flag[] = [];
  const usable = strata.filter((s) => s.before.x.length >= 2 && s.after.x.length >= 2);
  const positive = usable.every((s) => allPositive(s.before) && allPositive(s.after));
  let method: ResultMethod;
  if (
    options.method === "hodges-lehmann" ||
    (options.method === "auto" && (kind === "latency" || kind === "wait"))
  ) {
    method = positive ? "hodges-lehmann" : "block-t";
    if (!positive) {
      flags.push({
        code: "zero_values",
        severity: "info",
        message: "blocks with zero values: compared as a ratio of means instead of Hodges–Lehmann on logs",
      });
      if (options.method === "hodges-lehmann") {
        flags.push({
          code: "method_fallback",
          severity: "info",
          message: "hodges-lehmann needs values > 0; used block-t",
        });
      }
    }
  } else if (options.method === "block-bootstrap") {
    method = "block-bootstrap";
  } else {
    method = "block-t";
  }
  if (method === "block-bootstrap") {
    const smallest = Math.min(...usable.flatMap((s) => [s.before.x.length, s.after.x.length]));
    if (smallest < options.minBootstrapBlocks) {
      method = "block-t";
      if (options.method === "block-bootstrap") {
        flags.push({
          code: "method_fallback",
          severity: "info",
          message: `block bootstrap needs ≥ ${options.minBootstrapBlocks} blocks per window and hour; used block-t`,
        });
      }
    }
  }

  const z = normalQuantile(1 - options.alpha / 2);
  if (method === "hodges-lehmann") {
    const logCells = usable.map((s) => ({ before: logValues(s.before), after: logValues(s.after) }));
    const runs: ResidualRun[] = [];
    usable.forEach((s, h) => {
      runs.push({ positions: s.before.positions, residuals: centred(logCells[h]!.before) });
      runs.push({ positions: s.after.positions, residuals: centred(logCells[h]!.after) });
    });
    const dep = dependence(runs, scrape, flags);
    const rho = dep.lag1;
    const r = hodgesLehmann(
      usable.map((s, h) => ({
        before: logCells[h]!.before,
        after: logCells[h]!.after,
        designEffectBefore: designEffect(s.before.positions, dep),
        designEffectAfter: designEffect(s.after.positions, dep),
      })),
      options.alpha,
    );
    return {
      logRatio: r.shift,
      ciLow: r.ciLow,
      ciHigh: r.ciHigh,
      pValue: r.pValue,
      logSe: seFromCi(r.ciLow, r.ciHigh, z),
      rho,
      method,
      estimand: "hodges-lehmann-ratio",
      flags,
    };
  }

  const runs: ResidualRun[] = [];
  for (const s of usable) {
    runs.push({ positions: s.before.positions, residuals: relativeResiduals(s.before) });
    runs.push({ positions: s.after.positions, residuals: relativeResiduals(s.after) });
  }
  const dep = dependence(runs, scrape, flags);
  const rho = dep.lag1;
  if (method === "block-bootstrap") {
    const smallest = Math.min(...usable.flatMap((s) => [s.before.x.length, s.after.x.length]));
    // Runs must span the dependence: at least the integrated correlation time 1 + 2ρ/(1−λ) of the
    // blocks, and the n^(1/3) rate that minimises the bootstrap variance error (Hall, Horowitz, Jing 1995).
    const runLength = Math.max(
      Math.ceil(smallest ** (1 / 3)),
      Math.ceil(1 + (2 * dep.lag1) / (1 - dep.decay)),
    );
    const r = blockBootstrapRatio(usable, {
      alpha: options.alpha,
      resamples: options.bootstrapResamples,
      runLength,
      rng,
    });
    return {
      logRatio: r.logRatio,
      ciLow: r.ciLow,
      ciHigh: r.ciHigh,
      pValue: r.pValue,
      logSe: Number.isFinite(r.se) ? r.se : seFromCi(r.ciLow, r.ciHigh, z),
      rho,
      method,
      estimand: "ratio-of-means",
      flags,
    };
  }
  const r = ratioOfMeansT(usable, options.alpha, dep.lag1, dep.decay);
  return {
    logRatio: r.logRatio,
    ciLow: r.ciLow,
    ciHigh: r.ciHigh,
    pValue: r.pValue,
    logSe: r.se,
    rho,
    method: "block-t",
    estimand: "ratio-of-means",
    flags,
  };
}

function allPositive(cell: RatioCell): boolean {
  for (let i = 0; i < cell.x.length; i++) if (!(cell.x[i]! > 0)) return false;
  if (cell.c) for (let i = 0; i < cell.c.length; i++) if (!(cell.c[i]! > 0)) return false;
  return true;
}

/** log x, or log x − log c against a control. */
function logValues(cell: RatioCell): Float64Array {
  const out = new Float64Array(cell.x.length);
  for (let i = 0; i < out.length; i++) out[i] = Math.log(cell.x[i]!) - (cell.c ? Math.log(cell.c[i]!) : 0);
  return out;
}

function centred(values: Float64Array): Float64Array {
  let m = 0;
  for (const v of values) m += v;
  m /= values.length;
  return values.map((v) => v - m);
}

/** Relative deviations from the cell means (x/x̄ − c/c̄), the scale-free residuals of a ratio. */
function relativeResiduals(cell: RatioCell): Float64Array {
  const n = cell.x.length;
  let mx = 0;
  let mc = 0;
  for (let i = 0; i < n; i++) {
    mx += cell.x[i]!;
    if (cell.c) mc += cell.c[i]!;
  }
  mx /= n;
  mc /= n;
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    out[i] = (mx !== 0 ? cell.x[i]! / mx - 1 : 0) - (cell.c && mc !== 0 ? cell.c[i]! / mc - 1 : 0);
  }
  return out;
}

/** n · Var(mean)/σ² of a sample at these positions: 1 when independent. */
function designEffect(positions: ArrayLike<number>, dep: BlockDependence): number {
  const n = positions.length;
  if (n === 0) return 1;
  return n * ar1WeightedVariance(positions, new Float64Array(n).fill(1 / n), dep.lag1, dep.decay);
}

/** Below this many adjacent block pairs the block-level lag-1 correlation is not trusted at face value. */
export const MIN_BLOCK_PAIRS = 30;
/**
 * Largest block-level lag-1 correlation used from fewer than MIN_BLOCK_PAIRS pairs. The estimate's
 * standard error there is about 1/√pairs (≥ 0.18), so a value far above what the scrape-level noise
 * implies shows that the blocks are more dependent, not by how much; near 1 it would turn the t interval's
 * degrees of freedom below 1 and the interval into "−100% to unbounded". 0.5 triples the variance of a
 * mean over independent blocks (design effect (1 + ρ)/(1 − ρ) = 3).
 */
export const SMALL_SAMPLE_RHO_CAP = 0.5;

/**
 * Block-level dependence: from the scrape-level lag-1 autocorrelation when known, unless the block
 * residuals show lag-1 correlation more than two standard errors above what it implies; then the
 * block-level value, capped at SMALL_SAMPLE_RHO_CAP when fewer than MIN_BLOCK_PAIRS block pairs support
 * it. Either way the interval is wider than the scrape-level noise alone gives, and a flag says why.
 */
function dependence(
  runs: readonly ResidualRun[],
  scrape: { readonly lag1: number; readonly samplesPerBlock: number },
  flags: Flag[],
): BlockDependence {
  const blockRho = lag1Autocorrelation(runs, runs.length);
  let pairs = 0;
  for (const run of runs) {
    for (let i = 1; i < run.positions.length; i++)
      if (run.positions[i]! - run.positions[i - 1]! === 1) pairs++;
  }
  const implied = Number.isFinite(scrape.lag1) ? blockDependence(scrape.lag1, scrape.samplesPerBlock) : null;
  const switched =
    implied === null || blockRho > implied.lag1 + 2 * Math.sqrt((1 - implied.lag1 ** 2) / Math.max(pairs, 1));
  if (!switched) return implied;
  if (!Number.isFinite(blockRho)) return { lag1: blockRho, decay: blockRho };
  const capped = pairs < MIN_BLOCK_PAIRS && blockRho > SMALL_SAMPLE_RHO_CAP;
  const rho = capped ? Math.max(SMALL_SAMPLE_RHO_CAP, implied?.lag1 ?? 0) : blockRho;
  if (!implied && !capped) return { lag1: rho, decay: rho };
  const why = implied
    ? `the blocks are more correlated (lag-1 ρ = ${blockRho.toFixed(2)} from ${pairs} block pairs) than the scrape-level noise implies (ρ = ${implied.lag1.toFixed(2)}), e.g. a slow load swing or a trend`
    : `the blocks are correlated (lag-1 ρ = ${blockRho.toFixed(2)} from ${pairs} block pairs)`;
  const cap = capped
    ? `; with fewer than ${MIN_BLOCK_PAIRS} block pairs ρ was capped at ${rho.toFixed(2)} so the interval stays bounded: treat it as approximate, longer windows give a sound estimate`
    : "";
  flags.push({ code: "interval_widened", severity: "warning", message: `interval widened: ${why}${cap}` });
  return { lag1: rho, decay: rho };
}

function seFromCi(low: number, high: number, z: number): number {
  return Number.isFinite(low) && Number.isFinite(high) ? (high - low) / (2 * z) : Number.NaN;
}
