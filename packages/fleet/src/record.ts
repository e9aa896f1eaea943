/**
 * Records what the fleet, instance and chart views need into a replay file: the fleet facts at every
 * evaluation time of the span, and chart series over the span (the instance page's and a rollout page's). Per-instance answers are not asked one
 * instance at a time: every plan query is aggregated `by (instance)` and its selector is ANDed into each
 * series selector, so an instance's answer is the fleet answer restricted to that instance. The recorder
 * files those restrictions under the one-instance query texts (marked `derived`), which keeps the request
 * count of a recording independent of the fleet size.
 */
import { nowOf, type PromQueryApi, type VectorSample } from "./api.js";
import { CHARTS, type ChartRange, chartQueries, ROLLOUT_CHARTS, TREND_CHARTS } from "./charts.js";
import { buildFleetFacts, type FleetFactsOptions } from "./facts.js";
import { durationSeconds, factQueries, instanceSelector, planOptions } from "./plan.js";
import { fromWire, RecordingApi, type ReplayFile } from "./replay.js";

export interface RecordOptions extends Omit<FleetFactsOptions, "at" | "onProgress"> {
  /** PromQL duration covered by the recording, e.g. "3h". */
  readonly span: string;
  /** PromQL duration between evaluation times, e.g. "5m". */
  readonly every: string;
  /** Last evaluation time, Unix seconds. Default: the api's now. */
  readonly at?: number;
  /** Seconds between chart points. Default span / 240, at least 1 s. */
  readonly chartStep?: number;
  /** Prometheus URL for the metadata (credentials removed by the caller). */
  readonly recordedFrom: string;
  /** e.g. "untorn 0.1.0". */
  readonly tool: string;
  readonly note?: string;
  /** Wall clock for `recordedAt`, injectable for tests. */
  readonly clock?: () => Date;
  readonly onProgress?: (step: string, done: number, total: number) => void;
}

export interface Recording {
  readonly file: ReplayFile;
  /** Requests made to Prometheus. */
  readonly queries: number;
  readonly warnings: readonly string[];
}

/** Evaluation times from end − span to end, `every` apart, the last one exactly at end. */
export function evaluationTimes(end: number, spanSeconds: number, everySeconds: number): number[] {
  if (!(everySeconds > 0)) throw new RangeError("every must be longer than 0");
  if (spanSeconds < 0) throw new RangeError("span must not be negative");
  const n = Math.floor(spanSeconds / everySeconds);
  return Array.from({ length: n + 1 }, (_, i) => end - (n - i) * everySeconds);
}

const restrict = (data: readonly VectorSample[], instance: string) =>
  // Series without an instance label (e.g. the step count of the quality query) are the same for
  // every selector.
  data.filter((s) => s.labels.instance === undefined || s.labels.instance === instance);

export async function recordFleet(api: PromQueryApi, opts: RecordOptions): Promise<Recording> {
  const spanSeconds = durationSeconds(opts.span);
  const everySeconds = durationSeconds(opts.every);
  const end = opts.at ?? nowOf(api);
  const times = evaluationTimes(end, spanSeconds, everySeconds);
  const rec = new RecordingApi(api);
  const instances = new Set<string>();
  const warnings = new Set<string>();
  let queries = 0;

  const plan = planOptions(opts);
  const total = times.length + 1;
  // Whose rate() the answers hold, so a replay reads young servers as the live profile did (young.ts).
  const backend = api.backend
    ? await api.backend().then(
        (b) => b.kind,
        () => undefined,
      )
    : undefined;
  for (const [i, t] of times.entries()) {
    opts.onProgress?.(`facts at ${new Date(t * 1000).toISOString()}`, i, total);
    const fleet = await buildFleetFacts(rec, {
      ...opts,
      at: t,
      onProgress: undefined,
      // The one-instance queries below are derived from the raw-series plan's answers.
      recordingRules: false,
    });
    queries += fleet.queries;
    for (const w of fleet.warnings) warnings.add(w);
    for (const f of fleet.facts) instances.add(f.identity.instance);
    for (const s of fleet.skipped) instances.add(s.instance);
  }

  // One-instance fact queries, derived from the fleet answers.
  const fleetQs = factQueries(plan);
  for (const instance of instances) {
    const mine = factQueries({ ...plan, selector: { ...plan.selector, ...instanceSelector(instance) } });
    mine.forEach((q, k) => {
      const recorded = rec.recordedInstant(fleetQs[k]!.expr);
      if (!recorded) return;
      for (const [time, a] of recorded) rec.addDerivedInstant(q.expr, time, restrict(a.data, instance));
    });
  }

  // Charts: fleet-wide range queries, split per instance (none for a single evaluation time).
  const step = opts.chartStep ?? Math.max(1, Math.round(spanSeconds / 240));
  const range: ChartRange = { start: end - spanSeconds, end, step, source: opts.source ?? "any" };
  opts.onProgress?.("chart series", times.length, total);
  // The instance page's charts and a rollout page's (canary vs control: per transaction, replication lag),
  // per instance too; the fleet table's own sparkline series (TREND_CHARTS) fleet-wide only, last.
  const defs = [...CHARTS, ...ROLLOUT_CHARTS];
  const fleetCharts = spanSeconds > 0 ? chartQueries(plan.selector, range, [...defs, ...TREND_CHARTS]) : [];
  for (const q of fleetCharts) {
    const a = await rec.queryRange(q.expr, { start: range.start, end: range.end, step });
    queries++;
    for (const w of a.warnings) warnings.add(w);
  }
  for (const instance of fleetCharts.length ? instances : []) {
    const mine = chartQueries({ ...plan.selector, ...instanceSelector(instance) }, range, defs);
    mine.forEach((q, k) => {
      const recorded = rec.recordedRange(fleetCharts[k]!.expr);
      if (!recorded) return;
      const data = recorded.data
        .filter((s) => s.labels.instance === instance)
        .map((s) => ({
          labels: s.labels,
          points: s.points.map(([t, v]) => [t, fromWire(v)] as const),
        }));
      rec.addDerivedRange(q.expr, { start: range.start, end: range.end, step }, data);
    });
  }
  opts.onProgress?.("done", total, total);

  const file = rec.toReplay({
    recordedFrom: opts.recordedFrom,
    ...(backend ? { backend } : {}),
    recordedAt: (opts.clock ?? (() => new Date()))().toISOString(),
    start: times[0]!,
    end,
    spanSeconds,
    everySeconds,
    window: plan.window,
    plan: {
      stepSeconds: plan.stepSeconds,
      rateWindow: plan.rateWindow,
      stats: [...plan.stats],
      source: plan.source,
      selector: plan.selector,
    },
    instances: [...instances].sort(),
    charts: fleetCharts.length ? { start: range.start, end: range.end, step } : null,
    tool: opts.tool,
    ...(opts.note ? { note: opts.note } : {}),
  });
  return { file, queries, warnings: [...warnings] };
}
