import { analyseSeries, type PreparedPair } from "./analyse-series.js";
import { deriveSeed } from "./derive-seed.js";
import type { ComparisonInput, Instance, MetricSpec } from "./input.js";
import { DEFAULT_DIRECTION, type Direction } from "./metric-kinds.js";
import { overallVerdict } from "./overall-verdict.js";
import { prepareWindow } from "./prepare-window.js";
import { createRng } from "./prng.js";
import type { ComparisonResult, Flag, SeriesResult, WorkloadCheck } from "./result.js";
import { workloadCheck } from "./workload-check.js";

/**
 * Compares every metric of every instance between the before and after windows and gives per-series
 * effects (ratio, CI, p-value, method, data-quality flags, verdict), per-metric summaries over the
 * treated instances and an overall verdict with its reasons. Pure and deterministic: the same input
 * (including `seed`) gives the same output. Expects input validated by `parseComparisonInput`.
 * See docs/comparison.md for the method.
 */
export function compare(input: ComparisonInput): ComparisonResult {
  const plan = planComparison(input);
  const analyse = instanceAnalyser(plan, input.instances);
  return finishComparison(
    plan,
    input.instances.map((inst) => analyse(inst)),
  );
}

/** What every instance's analysis shares: resolved metrics, window bounds, options, seed. */
export interface ComparisonPlan {
  readonly seed: number;
  readonly options: ComparisonInput["options"];
  readonly metrics: readonly (MetricSpec & { readonly direction: Direction })[];
  readonly bounds: {
    readonly before: { readonly start: number; readonly end: number };
    readonly after: { readonly start: number; readonly end: number };
  };
}

/** One instance's part of the result: its series results (in metric order) and workload check. */
export interface InstanceAnalysis {
  readonly results: SeriesResult[];
  readonly workload: WorkloadCheck | null;
}

/**
 * The parts of compare that look at the whole input: directions resolved, window bounds declared or
 * taken from all the data. Each instance's analysis then needs only the plan, its own series and the
 * controls' (compare-parallel.ts runs them on worker threads).
 */
export function planComparison(input: ComparisonInput): ComparisonPlan {
  return {
    seed: input.seed,
    options: input.options,
    metrics: input.metrics.map((m) => ({ ...m, direction: resolveDirection(m) })),
    bounds: input.windows ?? inferWindows(input),
  };
}

function overlapFlag(plan: ComparisonPlan): Flag | undefined {
  const { bounds } = plan;
  return bounds.before.end > bounds.after.start && bounds.after.end > bounds.before.start
    ? {
        code: "windows_overlap",
        severity: "warning",
        message: "the before and after windows overlap: part of the data is counted on both sides",
      }
    : undefined;
}

/**
 * Analyses instances one at a time against the controls among `instances` (in their input order,
 * which the difference in differences sums in). Controls are prepared once, when first needed, and
 * kept (every treated instance is compared with them); a treated instance's samples are prepared when
 * it is analysed and dropped after, so the cleaned copies of a large fleet never sit in memory all at
 * once. The result of an instance does not depend on which others were analysed before it.
 */
export function instanceAnalyser(
  plan: ComparisonPlan,
  instances: readonly Instance[],
): (inst: Instance) => InstanceAnalysis {
  const { options, seed, metrics, bounds } = plan;
  const windowSeconds = {
    before: Math.max(bounds.before.end - bounds.before.start, 1),
    after: Math.max(bounds.after.end - bounds.after.start, 1),
  };
  const overlap = overlapFlag(plan);

  // Counter resets in any counter series mark a restart (or a performance_schema TRUNCATE) for the
  // whole instance, so warm-up is excluded from its gauge series too.
  const eventsOf = (inst: Instance) => {
    const events = [...(inst.restarts ?? [])];
    for (const m of metrics) {
      const s = inst.series[m.id];
      if (!m.counter || !s) continue;
      for (const which of ["before", "after"] as const) {
        const probe = prepareWindow(s[which], { window: which, counter: true, events: [], warmupSeconds: 0 });
        events.push(...probe.resets);
      }
    }
    return events;
  };
  const prepare = (inst: Instance) => {
    const events = eventsOf(inst);
    const pairs = new Map<string, PreparedPair>();
    for (const m of metrics) {
      const s = inst.series[m.id];
      if (!s) continue;
      const prep = (which: "before" | "after") =>
        prepareWindow(s[which], {
          window: which,
          counter: m.counter ?? false,
          events,
          warmupSeconds: options.warmupSeconds,
          bounds: bounds[which],
        });
      pairs.set(m.id, { before: prep("before"), after: prep("after") });
    }
    return pairs;
  };

  const controls = instances.filter((i) => i.role === "control");
  let preparedControls: Map<string, Map<string, PreparedPair>> | undefined;
  const controlsPrepared = () => {
    preparedControls ??= new Map(controls.map((c) => [c.id, prepare(c)]));
    return preparedControls;
  };
  const workloadMetrics = metrics.filter((m) => m.kind === "workload");
  return (inst) => {
    const results: SeriesResult[] = [];
    const pairs = inst.role === "control" ? controlsPrepared().get(inst.id)! : prepare(inst);
    const prepared = inst.role === "treated" && controls.length > 0 ? controlsPrepared() : undefined;
    for (const m of metrics) {
      const pair = pairs.get(m.id);
      const empty = { before: emptyWindow("before"), after: emptyWindow("after") };
      const controlPairs = prepared
        ? controls
            .map((c) => ({ id: c.id, pair: prepared.get(c.id)!.get(m.id) }))
            .filter((c) => c.pair && c.pair.before.v.length > 0 && c.pair.after.v.length > 0)
            .map((c) => ({ id: c.id, ...c.pair! }))
        : [];
      const result = analyseSeries({
        instance: inst.id,
        role: inst.role,
        metric: m,
        direction: m.direction,
        treated: pair ?? empty,
        controls: controlPairs,
        windowSeconds,
        options,
        rng: createRng(deriveSeed(seed, inst.id, m.id)),
      });
      // Replace the generic "no usable samples" flag: here there was no series at all.
      if (!pair)
        result.flags = [{ code: "no_data", severity: "error", message: "no series given for this metric" }];
      if (overlap) result.flags.push(overlap);
      if (inst.role === "control") {
        // A control is the reference, not a subject: no verdict, and its own hour-of-day mismatch is
        // what the difference in differences removes, so it is not a warning to the user.
        result.verdict = null;
        result.flags = result.flags.filter((f) => !f.code.startsWith("seasonality_"));
      }
      results.push(result);
    }
    let workload: WorkloadCheck | null = null;
    if (inst.role === "treated" && workloadMetrics.length > 0) {
      workload = workloadCheck({
        instance: inst.id,
        metrics: workloadMetrics,
        treated: pairs,
        controls: controls.map((c) => ({ id: c.id, series: controlsPrepared().get(c.id)! })),
        windowSeconds,
        options,
        rng: createRng(deriveSeed(seed, inst.id, "\u0000workload")),
      });
    }
    return { results, workload };
  };
}

/** The per-metric summaries and the overall verdict over every instance's analysis, in input order. */
export function finishComparison(
  plan: ComparisonPlan,
  analyses: readonly InstanceAnalysis[],
): ComparisonResult {
  const { options, seed, metrics } = plan;
  const results = analyses.flatMap((a) => a.results);
  const workload = analyses.flatMap((a) => (a.workload ? [a.workload] : []));
  const { overall, summaries } = overallVerdict({ metrics, results, workload, options });
  const overlap = overlapFlag(plan);
  if (overlap) overall.reasons.push(overlap.message);
  return { version: 1, seed, options, overall, metrics: summaries, results, workload };
}

function resolveDirection(m: MetricSpec): Direction {
  return m.direction ?? DEFAULT_DIRECTION[m.kind];
}

/**
 * Window bounds from the data: earliest timestamp to one step past the latest, over all series, per
 * window (the last sample stands for the interval after it).
 */
function inferWindows(input: ComparisonInput) {
  const range = (which: "before" | "after") => {
    let start = Number.POSITIVE_INFINITY;
    let end = Number.NEGATIVE_INFINITY;
    for (const inst of input.instances) {
      for (const s of Object.values(inst.series)) {
        const w = s[which];
        let first = Number.POSITIVE_INFINITY;
        let last = Number.NEGATIVE_INFINITY;
        let prev = Number.NEGATIVE_INFINITY;
        if ("t" in w) {
          const t = w.t;
          for (let i = 0; i < t.length; i++) {
            const x = t[i]!;
            if (x < first) first = x;
            if (x > last) {
              prev = last;
              last = x;
            } else if (x > prev) prev = x;
          }
        } else if (w.v.length > 0) {
          // The grid's times, as prepareWindow computes them.
          const n = w.v.length;
          first = w.start;
          last = w.start + (n - 1) * w.step;
          if (n > 1) prev = w.start + (n - 2) * w.step;
        }
        if (first < start) start = first;
        const step = Number.isFinite(prev) ? last - prev : 0;
        if (last + step > end) end = last + step;
      }
    }
    return Number.isFinite(start) ? { start, end: Math.max(end, start + 1) } : { start: 0, end: 1 };
  };
  return { before: range("before"), after: range("after") };
}

function emptyWindow(which: "before" | "after") {
  return prepareWindow(
    { t: new Float64Array(0), v: new Float64Array(0) },
    { window: which, counter: false, events: [], warmupSeconds: 0 },
  );
}
