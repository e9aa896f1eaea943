import type { CompactWindow, ExplicitWindow, SampleWindow } from "./input.js";
import type { Flag } from "./result.js";
import { median } from "./stats/median.js";

/**
 * A scrape interval longer than this many median steps is a gap: one missed scrape (2 steps) is
 * ordinary jitter under load, two or more in a row mean the target or Prometheus was not answering.
 */
export const GAP_FACTOR = 2.5;

export interface PrepareOptions {
  readonly window: "before" | "after";
  /** Raw cumulative counter samples (turned into per-second rates). */
  readonly counter: boolean;
  /** Restarts and counter resets of the instance, Unix seconds (warm-up excluded after each). */
  readonly events: readonly number[];
  readonly warmupSeconds: number;
  /** Window bounds, when known, for edge gaps and coverage. */
  readonly bounds?: { readonly start: number; readonly end: number } | undefined;
}

export interface PreparedWindow {
  /** Usable sample times (Unix seconds), ascending. */
  readonly t: Float64Array;
  /** Usable values (rates or gauges). */
  readonly v: Float64Array;
  /** Median scrape step in seconds (NaN with fewer than 2 samples). */
  readonly step: number;
  /** Counter resets found (Unix seconds of the first sample after each). */
  readonly resets: number[];
  readonly flags: Flag[];
  /** Share of the window covered by samples, 0..1. */
  readonly coverage: number;
}

/** The before and after windows of one series. */
export interface PreparedPair {
  readonly before: PreparedWindow;
  readonly after: PreparedWindow;
}

/**
 * Cleans one window of one series: drops missing and non-finite values, sorts and de-duplicates
 * timestamps, turns counters into rates (dropping the interval of a reset), drops negative values,
 * excludes restart warm-up and measures gaps. Flags say what was done; nothing is interpolated.
 */
export function prepareWindow(
  raw: SampleWindow | ExplicitWindow | CompactWindow,
  options: PrepareOptions,
): PreparedWindow {
  const flags: Flag[] = [];
  const w = options.window;
  const flag = (code: Flag["code"], severity: Flag["severity"], message: string) =>
    flags.push({ code, severity, message, window: w });

  // Keep finite samples (typed arrays: a 7-day window at 15 s is 40,000 samples, a fleet has thousands).
  const n = "t" in raw ? raw.t.length : raw.v.length;
  let t = scratch.t(n);
  let v = scratch.v(n);
  let kept = 0;
  let sorted = true;
  let repeated = false;
  // Counted on the way, valid when the kept samples need no sorting or de-duplication: negative
  // values, and the Boyer–Moore vote over the intervals that medianStep would cast.
  let negatives = 0;
  let candidate = 0;
  let votes = 0;
  let previous = Number.NaN;
  if ("t" in raw) {
    for (let i = 0; i < n; i++) {
      const value = raw.v[i];
      const time = raw.t[i]!;
      if (value === null || value === undefined || !Number.isFinite(value) || !Number.isFinite(time))
        continue;
      if (kept > 0) {
        if (time < previous) sorted = false;
        else if (time === previous) repeated = true;
        const d = time - previous;
        if (votes === 0) {
          candidate = d;
          votes = 1;
        } else if (d === candidate) votes++;
        else votes--;
      }
      if (value < 0) negatives++;
      t[kept] = time;
      v[kept] = value;
      previous = time;
      kept++;
    }
  } else {
    // A regular grid is sorted (step > 0); rounding of start + i · step may repeat a time.
    const { start, step: gridStep } = raw;
    for (let i = 0; i < n; i++) {
      const value = raw.v[i];
      if (value === null || value === undefined || !Number.isFinite(value)) continue;
      const time = start + i * gridStep;
      if (kept > 0) {
        if (time === previous) repeated = true;
        const d = time - previous;
        if (votes === 0) {
          candidate = d;
          votes = 1;
        } else if (d === candidate) votes++;
        else votes--;
      }
      if (value < 0) negatives++;
      t[kept] = time;
      v[kept] = value;
      previous = time;
      kept++;
    }
  }
  const nonFinite = n - kept;
  if (nonFinite > 0) flag("non_finite", "info", `${nonFinite} missing or non-finite samples dropped`);
  t = t.subarray(0, kept);
  v = v.subarray(0, kept);
  if (!sorted) {
    const order = Array.from({ length: kept }, (_, i) => i).sort((a, b) => t[a]! - t[b]!);
    t = Float64Array.from(order, (i) => t[i]!);
    v = Float64Array.from(order, (i) => v[i]!);
    flag("unsorted", "info", "timestamps were not in order and were sorted");
  }
  let duplicates = 0;
  let m = kept;
  if (!sorted || repeated) {
    m = 0;
    for (let i = 0; i < kept; i++) {
      if (m > 0 && t[m - 1] === t[i]) {
        v[m - 1] = v[i]!; // keep the last sample for a timestamp
        duplicates++;
        continue;
      }
      t[m] = t[i]!;
      v[m] = v[i]!;
      m++;
    }
  }
  const td = t.subarray(0, m);
  const vd = v.subarray(0, m);
  if (duplicates > 0)
    flag("duplicate_timestamps", "info", `${duplicates} duplicate timestamps (kept the last)`);

  const empty = (): PreparedWindow => ({
    t: new Float64Array(0),
    v: new Float64Array(0),
    step: Number.NaN,
    resets: [],
    flags,
    coverage: 0,
  });
  if (td.length > 0 && td[td.length >> 1]! > 1e11) {
    flag("bad_timestamps", "error", "timestamps look like milliseconds; Unix seconds expected");
    return empty();
  }

  const clean = sorted && !repeated;
  const step = clean ? medianStepOf(td, candidate) : medianStep(td);
  const gapLimit = GAP_FACTOR * step;

  let times: Float64Array = td;
  let values: Float64Array = vd;
  const resets: number[] = [];
  if (options.counter) {
    const tt = new Float64Array(td.length);
    const vv = new Float64Array(td.length);
    let k = 0;
    let acrossGaps = 0;
    for (let i = 1; i < td.length; i++) {
      const dt = td[i]! - td[i - 1]!;
      const dv = vd[i]! - vd[i - 1]!;
      if (dv < 0) {
        resets.push(td[i]!);
        continue;
      }
      // A rate across a gap may hide a reset that climbed back above the old value.
      if (dt > gapLimit) {
        acrossGaps++;
        continue;
      }
      tt[k] = td[i]!;
      vv[k] = dv / dt;
      k++;
    }
    times = tt.subarray(0, k);
    values = vv.subarray(0, k);
    if (resets.length > 0) {
      flag(
        "counter_reset",
        "warning",
        `${resets.length} counter reset(s) (restart or TRUNCATE of performance_schema), first at ${iso(resets[0]!)}; the interval of each reset was dropped`,
      );
    }
    if (acrossGaps > 0) flag("gaps", "info", `${acrossGaps} counter intervals spanning a gap were dropped`);
  } else {
    let negative = negatives;
    if (!clean) {
      negative = 0;
      for (let i = 0; i < vd.length; i++) if (vd[i]! < 0) negative++;
    }
    if (negative > 0) {
      const tt = new Float64Array(vd.length - negative);
      const vv = new Float64Array(vd.length - negative);
      let k = 0;
      for (let i = 0; i < vd.length; i++) {
        if (vd[i]! < 0) continue;
        tt[k] = td[i]!;
        vv[k] = vd[i]!;
        k++;
      }
      flag(
        "negative_values",
        "warning",
        `${negative} negative samples dropped (rates and gauges here are ≥ 0)`,
      );
      times = tt;
      values = vv;
    }
  }

  const events = [...options.events, ...resets].sort((a, b) => a - b);
  if (events.length > 0 && options.warmupSeconds > 0) {
    const tt = new Float64Array(times.length);
    const vv = new Float64Array(times.length);
    let k = 0;
    let excluded = 0;
    let e = 0;
    for (let i = 0; i < times.length; i++) {
      const x = times[i]!;
      while (e < events.length && events[e]! + options.warmupSeconds <= x) e++;
      // events[e] is the first event whose warm-up has not ended by x; it covers x if it started already.
      if (e < events.length && events[e]! <= x) {
        excluded++;
        continue;
      }
      tt[k] = x;
      vv[k] = values[i]!;
      k++;
    }
    if (excluded > 0) {
      flag(
        "warmup_excluded",
        "info",
        `${excluded} samples within ${options.warmupSeconds} s after a restart or counter reset excluded (warm-up)`,
      );
    }
    times = tt.subarray(0, k);
    values = vv.subarray(0, k);
  }

  let coverage = times.length > 0 ? 1 : 0;
  if (times.length >= 2 && Number.isFinite(step)) {
    let missing = 0;
    let gaps = 0;
    for (let i = 1; i < times.length; i++) {
      const dt = times[i]! - times[i - 1]!;
      if (dt > gapLimit) {
        missing += dt - step;
        gaps++;
      }
    }
    const start = options.bounds?.start ?? times[0]!;
    const end = options.bounds?.end ?? times[times.length - 1]! + step;
    const lead = times[0]! - start;
    const trail = end - (times[times.length - 1]! + step);
    if (lead > gapLimit) missing += lead;
    if (trail > gapLimit) missing += trail;
    const span = Math.max(end - start, step);
    coverage = Math.max(0, Math.min(1, 1 - missing / span));
    if (gaps > 0 || lead > gapLimit || trail > gapLimit) {
      flag(
        "gaps",
        coverage < 0.8 ? "warning" : "info",
        `${Math.round(missing)} s without data (${gaps} gap(s) inside the window); coverage ${(coverage * 100).toFixed(1)}%`,
      );
    }
  }
  // Compact copies (memcpy for typed arrays) so the window does not pin larger scratch buffers.
  return { t: new Float64Array(times), v: new Float64Array(values), step, resets, flags, coverage };
}

/**
 * Working buffers for the first cleaning pass, grown to the longest window seen and reused: the
 * window's result is always a fresh compact copy, so nothing returned refers to them.
 */
const scratch = (() => {
  let times = new Float64Array(0);
  let values = new Float64Array(0);
  return {
    t(n: number): Float64Array {
      if (times.length < n) times = new Float64Array(n);
      return times.subarray(0, n);
    },
    v(n: number): Float64Array {
      if (values.length < n) values = new Float64Array(n);
      return values.subarray(0, n);
    },
  };
})();

/**
 * Median of the intervals between consecutive times. A scrape grid makes most intervals equal: when
 * one value holds a strict majority it is the median (it covers both middle positions of the sorted
 * intervals), found in two passes without allocating (Boyer–Moore majority vote, then a count);
 * otherwise the intervals are copied and their median selected.
 */
function medianStep(t: Float64Array): number {
  let candidate = 0;
  let votes = 0;
  for (let i = 1; i < t.length; i++) {
    const d = t[i]! - t[i - 1]!;
    if (votes === 0) {
      candidate = d;
      votes = 1;
    } else if (d === candidate) votes++;
    else votes--;
  }
  return medianStepOf(t, candidate);
}

/** medianStep() given the vote's candidate. */
function medianStepOf(t: Float64Array, candidate: number): number {
  const m = t.length - 1;
  if (m < 1) return Number.NaN;
  let count = 0;
  for (let i = 1; i <= m; i++) if (t[i]! - t[i - 1]! === candidate) count++;
  if (2 * count > m) return candidate;
  const diffs = new Float64Array(m);
  for (let i = 1; i <= m; i++) diffs[i - 1] = t[i]! - t[i - 1]!;
  return median(diffs);
}

function iso(seconds: number): string {
  return new Date(seconds * 1000).toISOString().replace(".000Z", "Z");
}
