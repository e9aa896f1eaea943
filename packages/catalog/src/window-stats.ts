/**
 * Window statistics around signal and component expressions: PromQL's *_over_time functions over a
 * subquery (or over a recorded series directly), a label that tags each statistic or fact so several
 * travel in one request, and their union. Also the window-quality queries of the fleet's facts (steps
 * sampled, steps in the window). Nothing here depends on the fleet size.
 */
import { fallbackMetrics as F } from "./fallback-metrics.js";
import { metrics as M } from "./metrics.js";
import { durationMs, labelReplace, maxBy, orElse, range, type Selector, type Vec, vec } from "./promql.js";

/** Label that carries the statistic (avg, p50, ...) of a bundled window query. */
export const STAT_LABEL = "untorn_stat";
/** Label that carries the fact id of a bundled instant query. */
export const FACT_LABEL = "untorn_fact";

export const STATS = ["avg", "p50", "p95", "p99", "max"] as const;
export type Stat = (typeof STATS)[number];

const QUANTILE: Partial<Record<Stat, number>> = { p50: 0.5, p95: 0.95, p99: 0.99 };

const paren = (v: Vec) => (v.atomic ? v.q : `(${v.q})`);

/** `(v)[range:step]`: v evaluated every `step` over `range` before the evaluation time. */
export const subquery = (v: Vec, range: string, step: string): string => `(${v.q})[${range}:${step}]`;

/** `fn([arg, ](v)[range:step])`, e.g. quantile_over_time(0.95, (rate(...))[1h:2m]). */
export function overTime(fn: string, v: Vec, range: string, step: string, arg?: number): Vec {
  const args = arg === undefined ? "" : `${arg}, `;
  return vec(`${fn}(${args}${subquery(v, range, step)})`, v.labels);
}

/** Adds a constant label to every series of v (label_replace with an empty source). */
export const tag = (v: Vec, label: string, value: string): Vec => labelReplace(v, label, value, "", "");

/** `a or b or c`: every series of every operand (their tag labels keep them apart). */
export function union(vs: readonly Vec[]): Vec {
  if (vs.length === 0) throw new Error("union of nothing");
  if (vs.length === 1) return vs[0]!;
  return vec(vs.map(paren).join(" or "), vs[0]!.labels, false);
}

/**
 * One request for several statistics of a quantity over a window, tagged by STAT_LABEL.
 * - counters: `avg` is `whole` (the rate over the whole window, restarts handled by rate()); the quantiles
 *   and max are over `perStep` (a short-window rate) evaluated every `step`.
 * - gauges: every statistic, avg included, is over the per-step values.
 */
export function windowStats(
  kind: "rate" | "gauge",
  whole: Vec,
  perStep: Vec,
  stats: readonly Stat[],
  window: string,
  step: string,
): Vec {
  const parts = stats.map((s) => {
    let v: Vec;
    if (s === "avg") v = kind === "rate" ? whole : overTime("avg_over_time", perStep, window, step);
    else if (s === "max") v = overTime("max_over_time", perStep, window, step);
    else v = overTime("quantile_over_time", perStep, window, step, QUANTILE[s]);
    return tag(v, STAT_LABEL, s);
  });
  return union(parts);
}

/** A plain series selector (`name{...}`), which takes a range directly: `name{...}[1h]`. */
const PLAIN_SELECTOR = /^[a-zA-Z_:][a-zA-Z0-9_:]*(\{[^{}]*\})?$/;

/** `fn([arg, ]v[range])` over a plain selector, or over a subquery `(v)[range:step]` otherwise. */
function overRecorded(fn: string, v: Vec, range: string, step: string, arg?: number): Vec {
  if (!PLAIN_SELECTOR.test(v.q)) return overTime(fn, v, range, step, arg);
  const args = arg === undefined ? "" : `${arg}, `;
  return vec(`${fn}(${args}${v.q}[${range}])`, v.labels);
}

/**
 * The statistics of a rate from its recorded per-instance series (recording rules at their own rate
 * window): the average over `avgRange` (the window less the rule's rate window, so the averaged rates
 * cover the window), the quantiles and max over the window, every recorded sample counted. No rate() and
 * no subquery over raw series: the cost is reading one recorded series per instance.
 */
export function recordedWindowStats(
  perStep: Vec,
  stats: readonly Stat[],
  window: string,
  avgRange: string,
  step: string,
): Vec {
  return union(stats.map((s) => tag(recordedWindowStat(perStep, s, window, avgRange, step), STAT_LABEL, s)));
}

/** One statistic of recordedWindowStats, untagged: what the window recording rules store. */
export function recordedWindowStat(
  perStep: Vec,
  stat: Stat,
  window: string,
  avgRange: string,
  step: string,
): Vec {
  return stat === "avg"
    ? overRecorded("avg_over_time", perStep, avgRange, step)
    : stat === "max"
      ? overRecorded("max_over_time", perStep, window, step)
      : overRecorded("quantile_over_time", perStep, window, step, QUANTILE[stat]);
}

/**
 * The range the average of a recorded rate (at its rule's rate window) is taken over: the window less the
 * rule's own rate window, so the rates averaged cover the window and no more (the whole window when it is
 * not longer). In seconds, e.g. "3300s" for 1h and 5m.
 */
export function recordedAvgRange(window: string, ruleWindow: string): string {
  const w = durationMs(window) / 1000;
  const r = durationMs(ruleWindow) / 1000;
  return w > r ? `${w - r}s` : window;
}

/**
 * A plain selector `name{matchers}` split into its name and its matcher block (with braces, "" when
 * none); null for anything else.
 */
export function plainSelector(q: string): { name: string; matchers: string } | null {
  if (!PLAIN_SELECTOR.test(q)) return null;
  const i = q.indexOf("{");
  return i < 0 ? { name: q, matchers: "" } : { name: q.slice(0, i), matchers: q.slice(i) };
}

/**
 * Steps in the window where the server reported: its uptime had a sample within the per-step rate window
 * (so gaps shorter than that window are not seen). Source "any" counts either exporter's uptime.
 */
export function sampledSteps(
  o: { readonly selector: Selector; readonly source: "any" | "untorn" },
  rateWindow: string,
  window: string,
  step: string,
): Vec {
  const scope = { selector: o.selector, window: rateWindow, offset: undefined };
  const last = (name: string) => maxBy([], `last_over_time(${range(scope, name)})`);
  const present =
    o.source === "untorn" ? last(M.uptime.name) : orElse(last(M.uptime.name), last(F.uptime.name));
  return overTime("count_over_time", present, window, step);
}

/**
 * The number of subquery steps in the window, counted by Prometheus itself, so a ratio to it does not
 * depend on the backend's range boundary rules.
 */
export const stepCount = (window: string, step: string): Vec =>
  overTime("count_over_time", vec("vector(1)", []), window, step);
