import type { PreparedPair, PreparedWindow } from "./prepare-window.js";
import { robustLag1FromSums } from "./stats/robust-lag1-autocorrelation.js";

const DAY = 86_400;
const HOUR = 3_600;

/**
 * Lag-1 autocorrelation at the scrape step, estimated from the samples themselves (hundreds per window,
 * against a dozen blocks): relative residuals around hour-of-day means per window, consecutive pairs
 * exactly one step apart, outlier-resistant estimator, centring bias corrected. With controls, the
 * residuals are those of treated minus control at shared timestamps (what the difference in
 * differences actually tests; Prometheus range queries put every series on the same step grid); when
 * fewer than half the treated samples share a timestamp with a control, the largest of the separate
 * estimates is used (more dependence = wider intervals). NaN when it cannot be estimated.
 */
export function rawLag1(treated: PreparedPair, controls: readonly PreparedPair[]): number {
  if (controls.length === 0) return lag1Of(treated, []);
  const aligned = lag1Of(treated, controls);
  if (Number.isFinite(aligned)) return aligned;
  const separate = [treated, ...controls].map((p) => lag1Of(p, [])).filter(Number.isFinite);
  return separate.length > 0 ? Math.max(...separate) : Number.NaN;
}

const scratch = {
  u: new Float64Array(0),
  v: new Float64Array(0),
  /** alignControls' result. */
  c: new Float64Array(0),
};

/**
 * One pass per window for the hour-of-day sums, one for the residuals, their consecutive pairs and
 * the pairs' sums and differences (what the robust estimator takes). Kept samples: all of them, or
 * with controls those where a control has a sample at the same time.
 */
function lag1Of(pair: PreparedPair, controls: readonly PreparedPair[]): number {
  const total = pair.before.t.length + pair.after.t.length;
  // Working arrays, reused across calls: read up to the pairs written.
  if (scratch.u.length < total) {
    scratch.u = new Float64Array(total);
    scratch.v = new Float64Array(total);
  }
  const { u, v: d } = scratch;
  const sumX = new Float64Array(24);
  const sumC = new Float64Array(24);
  const count = new Float64Array(24);
  const meanX = new Float64Array(24);
  const meanC = new Float64Array(24);
  let pairs = 0;
  let used = 0;
  let cells = 0;
  for (const which of ["before", "after"] as const) {
    const w = pair[which];
    const t = w.t;
    const v = w.v;
    const n = t.length;
    const control = controls.length > 0 ? alignControls(w, controls, which) : undefined;
    sumX.fill(0);
    sumC.fill(0);
    count.fill(0);
    // Times ascend: the hour of day is worked out once per clock hour, not per sample.
    let hourStart = Number.POSITIVE_INFINITY;
    let hourEnd = Number.NEGATIVE_INFINITY;
    let h = 0;
    for (let i = 0; i < n; i++) {
      if (control && Number.isNaN(control[i]!)) continue;
      const x = t[i]!;
      if (!(x >= hourStart && x < hourEnd)) {
        h = hourOf(x);
        hourStart = x - (((x % HOUR) + HOUR) % HOUR);
        hourEnd = hourStart + HOUR;
      }
      sumX[h]! += v[i]!;
      if (control) sumC[h]! += control[i]!;
      count[h]! += 1;
    }
    for (let k = 0; k < 24; k++) {
      if (count[k]! > 0) cells++;
      meanX[k] = sumX[k]! / count[k]!;
      meanC[k] = sumC[k]! / count[k]!;
    }
    const step = w.step;
    hourStart = Number.POSITIVE_INFINITY;
    hourEnd = Number.NEGATIVE_INFINITY;
    // The previous sample's residual, when it was kept.
    let previous = Number.NaN;
    let previousKept = false;
    for (let i = 0; i < n; i++) {
      if (control && Number.isNaN(control[i]!)) {
        previousKept = false;
        continue;
      }
      used++;
      const x = t[i]!;
      if (!(x >= hourStart && x < hourEnd)) {
        h = hourOf(x);
        hourStart = x - (((x % HOUR) + HOUR) % HOUR);
        hourEnd = hourStart + HOUR;
      }
      const mx = meanX[h]!;
      const mc = meanC[h]!;
      const residual = (mx > 0 ? v[i]! / mx - 1 : 0) - (control && mc > 0 ? control[i]! / mc - 1 : 0);
      if (previousKept && !(Math.abs(x - t[i - 1]! - step) > 0.5 * step)) {
        u[pairs] = previous + residual;
        d[pairs] = previous - residual;
        pairs++;
      }
      previous = residual;
      previousKept = true;
    }
  }
  if (controls.length > 0 && used < total / 2) return Number.NaN;
  const raw = robustLag1FromSums(u.subarray(0, pairs), d.subarray(0, pairs));
  // Centring on cell means biases ρ̂ down by about (1 + 3ρ)·cells/N (Marriott and Pope 1954); near
  // ρ = 1 that small bias is a large error in (1 + ρ)/(1 − ρ).
  const k = cells / Math.max(used, 1);
  return Number.isFinite(raw) && 3 * k < 0.9 ? Math.min((raw + k) / (1 - 3 * k), 0.999) : raw;
}

/**
 * Mean of the controls (each divided by its own before-window mean) at the treated sample times, NaN
 * where no control has a sample at exactly that time. Both time arrays are ascending: two pointers
 * over the controls' mean at each of their times (controlMean, worked out once per set of controls).
 */
function alignControls(
  w: PreparedWindow,
  controls: readonly PreparedPair[],
  which: "before" | "after",
): Float64Array {
  const n = w.t.length;
  // Read up to n by lag1Of before the next call: reused, as the 2 × 128 treated windows of a
  // difference in differences would otherwise allocate one each (garbage that raises the peak RSS).
  if (scratch.c.length < n) scratch.c = new Float64Array(n);
  const out = scratch.c;
  const t = w.t;
  const cm = controlMean(controls)[which];
  if ("start" in cm) {
    const { start, step, mean } = cm;
    for (let i = 0; i < n; i++) {
      const x = t[i]!;
      const k = gridIndex(x, start, step);
      out[i] = k >= 0 && k < mean.length && start + k * step === x ? mean[k]! : Number.NaN;
    }
    return out;
  }
  const { t: ct, mean } = cm;
  const m = ct.length;
  let j = 0;
  for (let i = 0; i < n; i++) {
    const x = t[i]!;
    while (j < m && ct[j]! < x) j++;
    out[i] = j < m && ct[j] === x ? mean[j]! : Number.NaN;
  }
  return out;
}

/** The cell of time x on the grid start + k · step (exactly that time only if start + k · step === x). */
function gridIndex(x: number, start: number, step: number): number {
  return Math.round((x - start) / step);
}

/** The controls' mean at every time where at least one control has a sample. */
type ControlMean =
  | { readonly t: Float64Array; readonly mean: Float64Array }
  /**
   * The same on a grid (every control time is exactly start + k · step for its own k, each control's
   * times strictly ascending): mean[k] at start + k · step, NaN where no control has a sample. Half the
   * memory of times and means, kept for every metric through the whole comparison.
   */
  | { readonly start: number; readonly step: number; readonly mean: Float64Array };

/**
 * controlMean's results, under the first control's before window (each treated series of a metric
 * brings the same prepared control windows, in new pair objects), with the windows they are for.
 */
const controlMeans = new WeakMap<
  PreparedWindow,
  { windows: PreparedWindow[]; before: ControlMean; after: ControlMean }[]
>();

/**
 * Each control divided by its before-window mean, summed in the controls' order at every time any of
 * them has (a merge of their ascending times), and divided by how many had a sample there.
 */
function controlMean(controls: readonly PreparedPair[]): { before: ControlMean; after: ControlMean } {
  const windows = controls.map((c) => c.before);
  let entries = controlMeans.get(windows[0]!);
  if (!entries) {
    entries = [];
    controlMeans.set(windows[0]!, entries);
  }
  const known = entries.find(
    (e) => e.windows.length === windows.length && e.windows.every((w, k) => w === windows[k]),
  );
  if (known) return known;
  const scaled: PreparedPair[] = [];
  const scales: number[] = [];
  for (const c of controls) {
    let scale = 0;
    for (let i = 0; i < c.before.v.length; i++) scale += c.before.v[i]!;
    scale /= c.before.v.length;
    if (!(scale > 0)) continue;
    scaled.push(c);
    scales.push(scale);
  }
  const merged = (which: "before" | "after"): ControlMean => {
    const onGrid = gridded(
      scaled.map((c) => c[which]),
      scales,
    );
    if (onGrid) return onGrid;
    const times = scaled.map((c) => c[which].t);
    const values = scaled.map((c) => c[which].v);
    const k = times.length;
    let capacity = 0;
    for (const ct of times) capacity += ct.length;
    const t = new Float64Array(capacity);
    const mean = new Float64Array(capacity);
    const heads = new Int32Array(k);
    let m = 0;
    for (;;) {
      let x = Number.POSITIVE_INFINITY;
      let any = false;
      for (let c = 0; c < k; c++) {
        const ct = times[c]!;
        const h = heads[c]!;
        if (h < ct.length && (!any || ct[h]! < x)) {
          x = ct[h]!;
          any = true;
        }
      }
      if (!any) break;
      let sum = 0;
      let count = 0;
      for (let c = 0; c < k; c++) {
        const ct = times[c]!;
        const h = heads[c]!;
        if (h < ct.length && ct[h] === x) {
          sum += values[c]![h]! / scales[c]!;
          count += 1;
          heads[c] = h + 1;
        }
      }
      t[m] = x;
      mean[m] = sum / count;
      m++;
    }
    return { t: t.slice(0, m), mean: mean.slice(0, m) };
  };
  const entry = { windows, before: merged("before"), after: merged("after") };
  entries.push(entry);
  return entry;
}

/**
 * controlMean on the first window's step grid from the earliest time, when every time is exactly on
 * it and each window's times strictly ascend (else undefined): per cell, each window's value divided
 * by its scale summed in the windows' order, then divided by how many there were, as the merge does.
 */
function gridded(windows: readonly PreparedWindow[], scales: readonly number[]): ControlMean | undefined {
  const step = windows[0]?.step ?? Number.NaN;
  if (!(step > 0) || !Number.isFinite(step)) return undefined;
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  let samples = 0;
  for (const w of windows) {
    if (w.t.length === 0) continue;
    start = Math.min(start, w.t[0]!);
    end = Math.max(end, w.t[w.t.length - 1]!);
    samples += w.t.length;
  }
  if (samples === 0) return undefined;
  const cells = gridIndex(end, start, step) + 1;
  // Sparse controls (or a step far below their spacing): the merge's times and means are smaller.
  if (!(cells > 0 && cells <= 2 * samples)) return undefined;
  for (const w of windows) {
    let previous = -1;
    for (let i = 0; i < w.t.length; i++) {
      const x = w.t[i]!;
      const c = gridIndex(x, start, step);
      if (!(c > previous && c < cells && start + c * step === x)) return undefined;
      previous = c;
    }
  }
  const mean = new Float64Array(cells);
  const count = new Uint32Array(cells);
  for (let c = 0; c < windows.length; c++) {
    const { t, v } = windows[c]!;
    const scale = scales[c]!;
    for (let i = 0; i < t.length; i++) {
      const cell = gridIndex(t[i]!, start, step);
      mean[cell]! += v[i]! / scale;
      count[cell]! += 1;
    }
  }
  for (let cell = 0; cell < cells; cell++)
    mean[cell] = count[cell]! > 0 ? mean[cell]! / count[cell]! : Number.NaN;
  return { start, step, mean };
}

function hourOf(x: number): number {
  // 0..23 (as an int32, which indexes the hourly sums without a conversion).
  return Math.floor((((x % DAY) + DAY) % DAY) / HOUR) | 0;
}
