/**
 * Builds a @untorn/compare input from Prometheus: one range query per signal and window (chunked to
 * stay under Prometheus's 11,000 points per series), treated and control instances in the same query,
 * and the restarts found in the uptime signal.
 */
import { re, type Selector } from "@untorn/catalog/promql";
import { signals } from "@untorn/catalog/signals";
import {
  type ComparisonInputJson,
  type MetricSpec,
  type Options,
  toCompactWindow,
  type Window,
} from "@untorn/compare/input";
import { mapLimit, type PromQueryApi } from "@untorn/fleet/api";
import type { CompareMetric } from "./metrics.js";
import type { TimeRange } from "./time-range.js";

/** Prometheus refuses range queries over 11,000 points per series. */
export const MAX_POINTS_PER_QUERY = 10_000;

export interface FetchPlan {
  readonly instance: string;
  readonly controls: readonly string[];
  readonly before: TimeRange;
  readonly after: TimeRange;
  /** Seconds between points. */
  readonly step: number;
  /** rate() window, a PromQL duration. */
  readonly rateWindow: string;
  readonly metrics: readonly CompareMetric[];
  /** Seconds excluded after a restart: restarts this long before a window still matter. */
  readonly warmupSeconds: number;
  readonly options?: Partial<Options>;
  readonly seed?: number;
}

export interface FetchResult {
  readonly input: ComparisonInputJson;
  /** Metrics no instance had any series for (left out of the input), with the signal's requirements. */
  readonly absent: readonly { metric: string; requires: string }[];
  /** Instances with no series at all. */
  readonly silent: readonly string[];
  readonly warnings: readonly string[];
  readonly queries: number;
}

const escapeRegex = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");

/** Aligned chunks of at most MAX_POINTS_PER_QUERY points covering [start, end]. */
export function chunkRange(range: TimeRange, step: number): TimeRange[] {
  const out: TimeRange[] = [];
  const span = step * (MAX_POINTS_PER_QUERY - 1);
  for (let s = range.start; s <= range.end; s += span + step) {
    out.push({ start: s, end: Math.min(s + span, range.end) });
  }
  return out;
}

async function rangeSeries(
  api: PromQueryApi,
  expr: string,
  range: TimeRange,
  step: number,
  warnings: Set<string>,
): Promise<Map<string, { t: number[]; v: (number | null)[] }>> {
  const out = new Map<string, { t: number[]; v: (number | null)[] }>();
  for (const chunk of chunkRange(range, step)) {
    const answer = await api.queryRange(expr, { ...chunk, step });
    for (const w of answer.warnings) warnings.add(w);
    for (const s of answer.data) {
      const instance = s.labels["instance"];
      if (instance === undefined) continue;
      let dst = out.get(instance);
      if (!dst) {
        dst = { t: [], v: [] };
        out.set(instance, dst);
      }
      for (const [t, v] of s.points) {
        dst.t.push(t);
        dst.v.push(Number.isFinite(v) ? v : null);
      }
    }
  }
  return out;
}

/**
 * Restart times from uptime samples: each sample says the server started at t − uptime. Samples of one
 * run agree within a few seconds (scrape timing, whole-second uptime); a new start time is a restart.
 */
export function restartsFromUptime(t: readonly number[], uptime: readonly (number | null)[]): number[] {
  const starts: number[] = [];
  for (let i = 0; i < t.length; i++) {
    const u = uptime[i];
    if (u === null || u === undefined) continue;
    const started = Math.round(t[i]! - u);
    const last = starts[starts.length - 1];
    if (last === undefined || Math.abs(started - last) > 5) starts.push(started);
  }
  return starts;
}

export async function fetchComparisonInput(api: PromQueryApi, plan: FetchPlan): Promise<FetchResult> {
  const ids = [plan.instance, ...plan.controls];
  const selector: Selector = { instance: re(ids.map(escapeRegex).join("|")) };
  const warnings = new Set<string>();
  let queries = 0;
  const seen = new Set<string>();

  const series = new Map<string, Record<string, { before: Window; after: Window }>>(
    ids.map((id) => [id, {}]),
  );
  const metrics: MetricSpec[] = [];
  const absent: { metric: string; requires: string }[] = [];
  // Queries run a few at a time (PromClient caps its own concurrency too); results keep the metric order.
  const answers = await mapLimit(plan.metrics, 4, async (m) => {
    const expr = signals[m.signal].expr({ selector, window: plan.rateWindow });
    const before = await rangeSeries(api, expr, plan.before, plan.step, warnings);
    const after = await rangeSeries(api, expr, plan.after, plan.step, warnings);
    return { m, before, after };
  });
  for (const { m, before, after } of answers) {
    const signal = signals[m.signal];
    queries += chunkRange(plan.before, plan.step).length + chunkRange(plan.after, plan.step).length;
    if (before.size === 0 && after.size === 0) {
      absent.push({ metric: m.signal, requires: signal.requires });
      continue;
    }
    metrics.push({ id: m.signal, kind: m.kind, unit: m.unit, description: signal.title });
    for (const id of ids) {
      const b = before.get(id);
      const a = after.get(id);
      if (b || a) seen.add(id);
      // Range queries answer on the step grid: the compact form ({ start, step, v }) where they did.
      series.get(id)![m.signal] = {
        before: toCompactWindow(b ?? { t: [], v: [] }, plan.step),
        after: toCompactWindow(a ?? { t: [], v: [] }, plan.step),
      };
    }
  }

  // Restarts up to warmupSeconds before each window still cool the buffer pool inside it.
  const uptimeExpr = signals.uptime_seconds.expr({ selector });
  const restarts = new Map<string, Set<number>>(ids.map((id) => [id, new Set()]));
  for (const w of [plan.before, plan.after]) {
    const span = { start: w.start - plan.warmupSeconds, end: w.end };
    const up = await rangeSeries(api, uptimeExpr, span, plan.step, warnings);
    queries += chunkRange(span, plan.step).length;
    for (const [id, s] of up) {
      for (const r of restartsFromUptime(s.t, s.v)) {
        // The first sample's start time is a restart only when it falls inside the span.
        if (r >= span.start && r <= span.end) restarts.get(id)?.add(r);
      }
    }
  }

  const input: ComparisonInputJson = {
    ...(plan.seed !== undefined ? { seed: plan.seed } : {}),
    windows: { before: { ...plan.before }, after: { ...plan.after } },
    metrics: metrics.length
      ? metrics
      : plan.metrics.map((m) => ({ id: m.signal, kind: m.kind, unit: m.unit })),
    instances: ids.map((id, i) => ({
      id,
      role: i === 0 ? "treated" : "control",
      restarts: [...restarts.get(id)!].sort((a, b) => a - b),
      series: series.get(id)!,
    })),
    options: { warmupSeconds: plan.warmupSeconds, ...plan.options },
  };
  return {
    input,
    absent,
    silent: ids.filter((id) => !seen.has(id)),
    warnings: [...warnings],
    queries,
  };
}
