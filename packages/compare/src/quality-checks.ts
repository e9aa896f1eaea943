import type { Flag } from "./result.js";
import { ar1WeightedVariance } from "./stats/ar1-weighted-variance.js";
import { linearTrend } from "./stats/linear-trend.js";
import { median } from "./stats/median.js";
import type { RatioCell, RatioStratum } from "./stats/ratio-cell.js";
import { selectKth } from "./stats/select-kth.js";
import { welchTTest } from "./stats/welch-t-test.js";

/** Kayenta's IQR outlier factor (NetflixACAJudge default 3): far-out blocks are reported, not removed. */
const OUTLIER_IQR_FACTOR = 3;
/** A dispersion change is reported when the mean absolute deviation moves by this factor and p < 0.01. */
const DISPERSION_FACTOR = 1.5;
const DISPERSION_P = 0.01;

/**
 * Post-estimation checks on block data that do not change the estimate but qualify it:
 * outlier blocks (log scale, 3 × IQR), a change in dispersion (Brown–Forsythe: Welch test on absolute
 * deviations from the cell medians of log values; Mann–Whitney misses variance increases, kayenta#780)
 * and, with a control, a pre-period trend of treated/control (difference in differences assumes
 * parallel trends; a drifting ratio before the change would leak into the effect).
 */
export function qualityChecks(
  strata: readonly RatioStratum[],
  rho: number,
  margin: number,
  blockSeconds: number,
): Flag[] {
  const flags: Flag[] = [];
  const positive = strata.every((s) => positiveCell(s.before) && positiveCell(s.after));
  if (!positive) return flags;

  // Log block values of each side, the strata one after the other (as every check below reads them).
  const logs = { before: logValuesOf(strata, "before"), after: logValuesOf(strata, "after") };
  for (const side of ["before", "after"] as const) {
    const values = logs[side];
    if (values.length < 8) continue;
    const [q1, q3] = quartiles(values);
    const iqr = q3 - q1;
    if (!(iqr > 0)) continue;
    let out = 0;
    for (let i = 0; i < values.length; i++) {
      const v = values[i]!;
      if (v < q1 - OUTLIER_IQR_FACTOR * iqr || v > q3 + OUTLIER_IQR_FACTOR * iqr) out++;
    }
    if (out > 0) {
      flags.push({
        code: "outliers",
        severity: "info",
        message: `${out} block(s) beyond 3 × IQR (kept: stalls and spikes are part of the behaviour)`,
        window: side,
      });
    }
  }

  const devBefore = deviations(strata, logs.before, "before");
  const devAfter = deviations(strata, logs.after, "after");
  if (devBefore.length >= 8 && devAfter.length >= 8) {
    const test = welchTTest(devAfter, devBefore);
    const mb = sum(devBefore) / devBefore.length;
    const ma = sum(devAfter) / devAfter.length;
    // Blocks are autocorrelated: require a clear change rather than trusting the iid p-value alone.
    if (test.pValue < DISPERSION_P && mb > 0 && ma > 0) {
      const ratio = ma / mb;
      if (ratio >= DISPERSION_FACTOR) {
        flags.push({
          code: "dispersion_increased",
          severity: "warning",
          message: `block-to-block variability rose ${ratio.toFixed(2)}× (the typical level may hide more stalls or spikes)`,
        });
      } else if (ratio <= 1 / DISPERSION_FACTOR) {
        flags.push({
          code: "dispersion_decreased",
          severity: "info",
          message: `block-to-block variability fell to ${ratio.toFixed(2)}× of before`,
        });
      }
    }
  }

  const hasControl = strata.some((s) => s.before.c !== undefined);
  if (hasControl) {
    const positions = new Float64Array(logs.before.length);
    let k = 0;
    for (const s of strata)
      for (let i = 0; i < s.before.x.length; i++) positions[k++] = s.before.positions[i]!;
    const trend = linearTrend(positions, logs.before);
    if (Number.isFinite(trend.se) && trend.se > 0 && positions.length >= 6) {
      const sortedPos = sortedCopy(positions);
      const n = sortedPos.length;
      const kappa = n * ar1WeightedVariance(sortedPos, new Float64Array(n).fill(1 / n), rho);
      const seAdj = trend.se * Math.sqrt(kappa);
      const span = sortedPos[n - 1]! - sortedPos[0]!;
      const drift = Math.abs(trend.slope * span);
      if (Math.abs(trend.slope) / seAdj > 2.576 && drift > Math.log1p(margin)) {
        flags.push({
          code: "control_divergence",
          severity: "warning",
          message: `treated/control ratio drifted ${(Math.expm1(drift) * 100).toFixed(1)}% across the before window (${Math.round((span * blockSeconds) / 60)} min): difference in differences assumes they move in parallel`,
          window: "before",
        });
      }
    }
  }
  if (rho >= 0.9) {
    flags.push({
      code: "high_autocorrelation",
      severity: "info",
      message: `blocks are strongly autocorrelated (ρ = ${rho.toFixed(2)}): intervals are wide; longer windows help`,
    });
  }
  return flags;
}

function positiveCell(cell: RatioCell): boolean {
  for (let i = 0; i < cell.x.length; i++) if (!(cell.x[i]! > 0)) return false;
  if (cell.c) for (let i = 0; i < cell.c.length; i++) if (!(cell.c[i]! > 0)) return false;
  return true;
}

/** log x, or log x − log c against a control, of every block of one side, stratum after stratum. */
function logValuesOf(strata: readonly RatioStratum[], side: "before" | "after"): Float64Array {
  let n = 0;
  for (const s of strata) n += s[side].x.length;
  const out = new Float64Array(n);
  let k = 0;
  for (const s of strata) {
    const { x, c } = s[side];
    for (let i = 0; i < x.length; i++) out[k++] = Math.log(x[i]!) - (c ? Math.log(c[i]!) : 0);
  }
  return out;
}

/** |log value − the median of its stratum and side|, stratum after stratum. */
function deviations(
  strata: readonly RatioStratum[],
  logs: Float64Array,
  side: "before" | "after",
): Float64Array {
  const out = new Float64Array(logs.length);
  let start = 0;
  for (const s of strata) {
    const cell = logs.subarray(start, start + s[side].x.length);
    const m = median(cell);
    for (let i = 0; i < cell.length; i++) out[start + i] = Math.abs(cell[i]! - m);
    start += cell.length;
  }
  return out;
}

function sum(values: Float64Array): number {
  let s = 0;
  for (let i = 0; i < values.length; i++) s += values[i]!;
  return s;
}

/**
 * The 25th and 75th percentiles (linear interpolation between order statistics), by selection on a
 * copy instead of a sort; the same numbers (only a zero may differ in sign, which the comparisons they
 * are used in do not see). With NaN among the values (log ∞ − log ∞): from the sort, NaN last.
 */
function quartiles(values: Float64Array): [number, number] {
  const copy = values.slice();
  let nan = false;
  for (let i = 0; i < copy.length; i++) if (Number.isNaN(copy[i]!)) nan = true;
  if (nan) {
    copy.sort();
    return [quantile(copy, 0.25), quantile(copy, 0.75)];
  }
  return [quantileBySelection(copy, 0.25), quantileBySelection(copy, 0.75)];
}

function quantile(sorted: Float64Array, p: number): number {
  const h = (sorted.length - 1) * p;
  const lo = Math.floor(h);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo]! + (h - lo) * (sorted[hi]! - sorted[lo]!);
}

/** quantile() of the values sorted, by selection in place (reorders them). */
function quantileBySelection(values: Float64Array, p: number): number {
  const n = values.length;
  const h = (n - 1) * p;
  const lo = Math.floor(h);
  const a = selectKth(values, lo);
  // After the selection the values beyond index lo are ≥ a: the next order statistic is their minimum.
  let b = a;
  if (lo + 1 < n) {
    b = Number.POSITIVE_INFINITY;
    for (let i = lo + 1; i < n; i++) if (values[i]! < b) b = values[i]!;
  }
  return a + (h - lo) * (b - a);
}

/** The positions in ascending order: themselves when they ascend, else a sorted copy (stable). */
function sortedCopy(positions: Float64Array): Float64Array {
  let ascending = true;
  for (let i = 1; i < positions.length && ascending; i++)
    if (!(positions[i - 1]! <= positions[i]!)) ascending = false;
  if (ascending) return positions;
  const order = Array.from(positions, (_, i) => i).sort((a, b) => positions[a]! - positions[b]!);
  return Float64Array.from(order, (i) => positions[i]!);
}
