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
  const flag: FlagSink = (code, severity, message) => flags.push({ code, severity, message, window: w });

  const ordered = orderedSamples(raw, flag);
  const { t } = ordered;
  if (t.length > 0 && t[t.length >> 1]! > 1e11) {
    flag("bad_timestamps", "error", "timestamps look like milliseconds; Unix seconds expected");
    return {
      t: new Float64Array(0),
      v: new Float64Array(0),
      step: Number.NaN,
      resets: [],
      flags,
      coverage: 0,
    };
  }
  const step = ordered.clean ? medianStepOf(t, ordered.candidate) : medianStep(t);
  const gapLimit = GAP_FACTOR * step;
  const { samples, resets } = options.counter
    ? rateSamples(ordered, gapLimit, flag)
    : { samples: nonNegativeSamples(ordered, flag), resets: [] };
  const events = [...options.events, ...resets].sort((a, b) => a - b);
  const usable = outsideWarmup(samples, events, options.warmupSeconds, flag);
  const coverage = coverageOf(usable.t, step, gapLimit, options.bounds, flag);
  // Compact copies (memcpy for typed arrays) so the window does not pin larger scratch buffers.
  return { t: new Float64Array(usable.t), v: new Float64Array(usable.v), step, resets, flags, coverage };
}

type FlagSink = (code: Flag["code"], severity: Flag["severity"], message: string) => void;

/** Sample times and values of equal length. */
interface Samples {
  readonly t: Float64Array;
  readonly v: Float64Array;
}

/**
 * The finite samples, sorted, one per timestamp. `clean`: they needed no sorting or de-duplication,
 * and then `negatives` and `candidate` (FiniteSamples) hold for them as they are.
 */
interface OrderedSamples extends Samples {
  readonly clean: boolean;
  readonly negatives: number;
  readonly candidate: number;
}

/** The first cleaning pass: finite samples, in time order, the last one of each timestamp. */
function orderedSamples(raw: SampleWindow | ExplicitWindow | CompactWindow, flag: FlagSink): OrderedSamples {
  const finite = keepFiniteSamples(raw);
  const { negatives, candidate } = finite;
  if (finite.dropped > 0)
    flag("non_finite", "info", `${finite.dropped} missing or non-finite samples dropped`);
  let { t, v } = finite;
  if (!finite.sorted) {
    ({ t, v } = sortByTime(t, v));
    flag("unsorted", "info", "timestamps were not in order and were sorted");
  }
  const clean = finite.sorted && !finite.repeated;
  if (clean) return { t, v, clean, negatives, candidate };
  const unique = keepLastPerTimestamp(t, v);
  if (unique.duplicates > 0)
    flag("duplicate_timestamps", "info", `${unique.duplicates} duplicate timestamps (kept the last)`);
  return { t: unique.t, v: unique.v, clean, negatives, candidate };
}

/** A counter's per-second rates (countersToRates), with its resets. */
function rateSamples(
  counter: Samples,
  gapLimit: number,
  flag: FlagSink,
): { readonly samples: Samples; readonly resets: number[] } {
  const rates = countersToRates(counter.t, counter.v, gapLimit);
  const { resets } = rates;
  if (resets.length > 0) {
    flag(
      "counter_reset",
      "warning",
      `${resets.length} counter reset(s) (restart or TRUNCATE of performance_schema), first at ${iso(resets[0]!)}; the interval of each reset was dropped`,
    );
  }
  if (rates.acrossGaps > 0)
    flag("gaps", "info", `${rates.acrossGaps} counter intervals spanning a gap were dropped`);
  return { samples: rates, resets };
}

/** A rate or gauge without its negative samples. */
function nonNegativeSamples(ordered: OrderedSamples, flag: FlagSink): Samples {
  const negative = ordered.clean ? ordered.negatives : countNegatives(ordered.v);
  if (negative === 0) return ordered;
  flag("negative_values", "warning", `${negative} negative samples dropped (rates and gauges here are ≥ 0)`);
  return dropNegatives(ordered.t, ordered.v, negative);
}

/** The samples outside the warm-up after each event (excludeWarmup); `events` ascending. */
function outsideWarmup(
  samples: Samples,
  events: readonly number[],
  warmupSeconds: number,
  flag: FlagSink,
): Samples {
  if (events.length === 0 || !(warmupSeconds > 0)) return samples;
  const warm = excludeWarmup(samples, events, warmupSeconds);
  if (warm.excluded > 0) {
    flag(
      "warmup_excluded",
      "info",
      `${warm.excluded} samples within ${warmupSeconds} s after a restart or counter reset excluded (warm-up)`,
    );
  }
  return warm;
}

/** Share of the window covered by samples (measureCoverage), 1 for a single sample, 0 for none. */
function coverageOf(
  times: Float64Array,
  step: number,
  gapLimit: number,
  bounds: PrepareOptions["bounds"],
  flag: FlagSink,
): number {
  if (times.length < 2 || !Number.isFinite(step)) return times.length > 0 ? 1 : 0;
  const c = measureCoverage(times, step, gapLimit, bounds);
  if (c.gaps > 0 || c.edgeGap) {
    flag(
      "gaps",
      c.coverage < 0.8 ? "warning" : "info",
      `${Math.round(c.missing)} s without data (${c.gaps} gap(s) inside the window); coverage ${(c.coverage * 100).toFixed(1)}%`,
    );
  }
  return c.coverage;
}

/**
 * The finite samples of a window in input order (views of the scratch buffers), and what the pass
 * counted on the way. `negatives` and `candidate` are valid when the samples need no sorting or
 * de-duplication: the negative values, and the Boyer–Moore vote over the intervals that medianStep
 * would cast.
 */
interface FiniteSamples extends Samples {
  /** Missing or non-finite samples dropped. */
  readonly dropped: number;
  readonly sorted: boolean;
  /** Some time equals the one before it. */
  readonly repeated: boolean;
  readonly negatives: number;
  readonly candidate: number;
}

/**
 * The finite samples of a window (typed arrays: a 7-day window at 15 s is 40,000 samples, a fleet has
 * thousands). A grid's times start + i · step come in order (step > 0), though rounding may repeat one.
 */
function keepFiniteSamples(raw: SampleWindow | ExplicitWindow | CompactWindow): FiniteSamples {
  const times = "t" in raw ? raw.t : null;
  const start = "start" in raw ? raw.start : 0;
  const gridStep = "step" in raw ? raw.step : 0;
  const values = raw.v;
  const n = times !== null ? times.length : values.length;
  const t = scratch.t(n);
  const v = scratch.v(n);
  let kept = 0;
  let sorted = true;
  let repeated = false;
  let negatives = 0;
  let candidate = 0;
  let votes = 0;
  let previous = Number.NaN;
  for (let i = 0; i < n; i++) {
    const value = values[i];
    const time = times !== null ? times[i]! : start + i * gridStep;
    if (value === null || value === undefined || !Number.isFinite(value) || !Number.isFinite(time)) continue;
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
  return {
    t: t.subarray(0, kept),
    v: v.subarray(0, kept),
    dropped: n - kept,
    sorted,
    repeated,
    negatives,
    candidate,
  };
}

/** The samples ordered by time (a stable sort: repeated times keep their input order), as new arrays. */
function sortByTime(t: Float64Array, v: Float64Array): Samples {
  const order = Array.from({ length: t.length }, (_, i) => i).sort((a, b) => t[a]! - t[b]!);
  return { t: Float64Array.from(order, (i) => t[i]!), v: Float64Array.from(order, (i) => v[i]!) };
}

/** One sample per timestamp of sorted samples, the last one given; compacted in place. */
function keepLastPerTimestamp(t: Float64Array, v: Float64Array): Samples & { readonly duplicates: number } {
  let duplicates = 0;
  let m = 0;
  for (let i = 0; i < t.length; i++) {
    if (m > 0 && t[m - 1] === t[i]) {
      v[m - 1] = v[i]!;
      duplicates++;
      continue;
    }
    t[m] = t[i]!;
    v[m] = v[i]!;
    m++;
  }
  return { t: t.subarray(0, m), v: v.subarray(0, m), duplicates };
}

/**
 * Per-second rates between consecutive counter samples, at the later sample's time. A decrease is a
 * reset: its interval is dropped and the time kept in `resets`. An interval longer than `gapLimit` is
 * dropped too: a rate across a gap may hide a reset that climbed back above the old value.
 */
function countersToRates(
  t: Float64Array,
  v: Float64Array,
  gapLimit: number,
): Samples & { readonly resets: number[]; readonly acrossGaps: number } {
  const tt = new Float64Array(t.length);
  const vv = new Float64Array(t.length);
  const resets: number[] = [];
  let k = 0;
  let acrossGaps = 0;
  for (let i = 1; i < t.length; i++) {
    const dt = t[i]! - t[i - 1]!;
    const dv = v[i]! - v[i - 1]!;
    if (dv < 0) {
      resets.push(t[i]!);
      continue;
    }
    if (dt > gapLimit) {
      acrossGaps++;
      continue;
    }
    tt[k] = t[i]!;
    vv[k] = dv / dt;
    k++;
  }
  return { t: tt.subarray(0, k), v: vv.subarray(0, k), resets, acrossGaps };
}

function countNegatives(v: Float64Array): number {
  let negative = 0;
  for (let i = 0; i < v.length; i++) if (v[i]! < 0) negative++;
  return negative;
}

/** The samples whose value is ≥ 0, given how many are not. */
function dropNegatives(t: Float64Array, v: Float64Array, negative: number): Samples {
  const tt = new Float64Array(v.length - negative);
  const vv = new Float64Array(v.length - negative);
  let k = 0;
  for (let i = 0; i < v.length; i++) {
    if (v[i]! < 0) continue;
    tt[k] = t[i]!;
    vv[k] = v[i]!;
    k++;
  }
  return { t: tt, v: vv };
}

/**
 * The samples outside the warm-up after each event (restart or counter reset): a sample at x is
 * excluded when some event e has e ≤ x < e + warmupSeconds. `events` ascending.
 */
function excludeWarmup(
  samples: Samples,
  events: readonly number[],
  warmupSeconds: number,
): Samples & { readonly excluded: number } {
  const times = samples.t;
  const tt = new Float64Array(times.length);
  const vv = new Float64Array(times.length);
  let k = 0;
  let excluded = 0;
  let e = 0;
  for (let i = 0; i < times.length; i++) {
    const x = times[i]!;
    while (e < events.length && events[e]! + warmupSeconds <= x) e++;
    // events[e] is the first event whose warm-up has not ended by x; it covers x if it started already.
    if (e < events.length && events[e]! <= x) {
      excluded++;
      continue;
    }
    tt[k] = x;
    vv[k] = samples.v[i]!;
    k++;
  }
  return { t: tt.subarray(0, k), v: vv.subarray(0, k), excluded };
}

/**
 * Share of the window covered by samples (at least 2, `step` finite): the time of every interval
 * longer than `gapLimit` beyond one step, and the lead and trail to the bounds when longer than
 * `gapLimit`, are missing. Without bounds the window runs from the first sample to one step after
 * the last.
 */
function measureCoverage(
  times: Float64Array,
  step: number,
  gapLimit: number,
  bounds: PrepareOptions["bounds"],
): { readonly coverage: number; readonly missing: number; readonly gaps: number; readonly edgeGap: boolean } {
  let missing = 0;
  let gaps = 0;
  for (let i = 1; i < times.length; i++) {
    const dt = times[i]! - times[i - 1]!;
    if (dt > gapLimit) {
      missing += dt - step;
      gaps++;
    }
  }
  const first = times[0]!;
  const last = times[times.length - 1]!;
  const start = bounds?.start ?? first;
  const end = bounds?.end ?? last + step;
  const lead = first - start;
  const trail = end - (last + step);
  if (lead > gapLimit) missing += lead;
  if (trail > gapLimit) missing += trail;
  const span = Math.max(end - start, step);
  const coverage = Math.max(0, Math.min(1, 1 - missing / span));
  return { coverage, missing, gaps, edgeGap: lead > gapLimit || trail > gapLimit };
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
