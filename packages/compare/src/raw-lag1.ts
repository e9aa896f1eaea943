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
  const out = new Float64Array(n);
  const t = w.t;
  const { t: ct, mean } = controlMean(controls)[which];
  const m = ct.length;
  let j = 0;
  for (let i = 0; i < n; i++) {
    const x = t[i]!;
    while (j < m && ct[j]! < x) j++;
    out[i] = j < m && ct[j] === x ? mean[j]! : Number.NaN;
  }
  return out;
}

/** The controls' mean at every time where at least one control has a sample. */
interface ControlMean {
  readonly t: Float64Array;
  readonly mean: Float64Array;
}

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

function hourOf(x: number): number {
  // 0..23 (as an int32, which indexes the hourly sums without a conversion).
  return Math.floor((((x % DAY) + DAY) % DAY) / HOUR) | 0;
}
