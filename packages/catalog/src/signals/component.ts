/**
 * Rendering options, the component model and the builders components are made of (one counter rate or
 * gauge each, with its mysqld_exporter / node_exporter fallback).
 */
import {
  fallbackMetrics as F,
  type FallbackMetricKey,
  FILE_EVENT_CLASSES,
  NODE_WHOLE_DISKS,
} from "../fallback-metrics.js";
import { type FileClass, metrics as M, type MetricKey } from "../metrics.js";
import {
  binary,
  instant,
  labelReplace,
  maxBy,
  nre,
  range,
  re,
  type Scope,
  type Selector,
  sumBy,
  type Vec,
  vec,
  type Window,
  where,
} from "../promql.js";

export type Source = "untorn" | "fallback" | "any";

export interface ExprOptions {
  readonly selector?: Selector;
  readonly window?: Window;
  readonly offset?: Window;
  readonly source?: Source;
  readonly recorded?: boolean;
  readonly classes?: readonly FileClass[];
}

/** Default rate() window, and the window every recording rule uses. */
export const DEFAULT_WINDOW = "5m";
export const RULE_WINDOW = "5m";

export interface SignalScope extends Scope {
  readonly classes: readonly FileClass[] | undefined;
}

export interface Component {
  readonly id: string;
  /** Labels the component's series carry besides `instance`. */
  readonly labels: readonly string[];
  /** Whether the window matters (rates) or not (gauges). */
  readonly windowed: boolean;
  readonly metrics: readonly MetricKey[];
  readonly untorn: (s: SignalScope) => Vec;
  readonly fallback?: {
    readonly metrics: readonly FallbackMetricKey[];
    readonly render: (s: SignalScope) => Vec;
  };
  /** Recording rule that stores this component at RULE_WINDOW with source "any". */
  readonly record?: string;
}

export const rateOf = (
  s: SignalScope,
  metric: string,
  labels: readonly string[] = [],
  ...extra: Selector[]
): Vec => sumBy(labels, `rate(${range(s, metric, ...extra)})`);

export const gaugeOf = (
  s: SignalScope,
  metric: string,
  labels: readonly string[] = [],
  ...extra: Selector[]
): Vec => maxBy(labels, instant(s, metric, ...extra));

export const classSelector = (s: SignalScope): Selector[] =>
  s.classes ? [{ class: re(s.classes.join("|")) }] : [];

const eventNames = (s: SignalScope): string[] =>
  Object.entries(FILE_EVENT_CLASSES)
    .filter(([, cls]) => !s.classes || s.classes.includes(cls))
    .map(([event]) => event);

/** mysqld_exporter file_events by event_name, relabelled to untorn's file classes. */
function fileEventsByClass(s: SignalScope, metric: string, modes: string): Vec {
  const events = eventNames(s);
  let v = vec(`rate(${range(s, metric, { mode: re(modes), event_name: re(events.join("|")) })})`);
  for (const event of events) {
    v = labelReplace(
      v,
      "class",
      FILE_EVENT_CLASSES[event as keyof typeof FILE_EVENT_CLASSES],
      "event_name",
      event,
    );
  }
  return sumBy(["class"], v.q);
}

/**
 * How far a gauge moved in a range: `max_over_time - min_over_time`, above 0 when it changed. Used
 * instead of changes(), which VictoriaMetrics' MetricsQL counts on a series' first sample (every new
 * series would read as a change there); this form reads 0 for one sample on both backends.
 */
export const valueRange = (rangeSelector: string): string =>
  `max_over_time(${rangeSelector}) - min_over_time(${rangeSelector})`;

export const nodeDisks: Selector = { device: nre(NODE_WHOLE_DISKS) };

export const rec = (name: string): string => `instance:${name}:rate${RULE_WINDOW}`;
/**
 * A gauge recorded per instance (`max by (instance)` at every rule evaluation), so window statistics read
 * one recorded series per instance instead of a subquery over raw series.
 */
export const recGauge = (name: string): string => `instance:${name}:max`;

export function counter(
  id: string,
  metric: MetricKey,
  fallback: FallbackMetricKey | undefined,
  opts: { record?: string; extra?: Selector; fallbackExtra?: Selector } = {},
): Component {
  const extra = opts.extra ? [opts.extra] : [];
  const fbExtra = opts.fallbackExtra ? [opts.fallbackExtra] : extra;
  return {
    id,
    labels: [],
    windowed: true,
    metrics: [metric],
    untorn: (s) => rateOf(s, M[metric].name, [], ...extra),
    ...(fallback
      ? {
          fallback: {
            metrics: [fallback],
            render: (s: SignalScope) => rateOf(s, F[fallback].name, [], ...fbExtra),
          },
        }
      : {}),
    ...(opts.record ? { record: opts.record } : {}),
  };
}

export function gauge(
  id: string,
  metric: MetricKey,
  fallback?: FallbackMetricKey,
  opts: { record?: string } = {},
): Component {
  return {
    id,
    labels: [],
    windowed: false,
    metrics: [metric],
    untorn: (s) => gaugeOf(s, M[metric].name),
    ...(fallback
      ? { fallback: { metrics: [fallback], render: (s: SignalScope) => gaugeOf(s, F[fallback].name) } }
      : {}),
    ...(opts.record ? { record: opts.record } : {}),
  };
}

/** Counter rate of an untorn-exporter metric with no fallback, split by `labels` (recorded for the fleet's window statistics). */
export function untornCounter(
  id: string,
  metric: MetricKey,
  record: string,
  labels: readonly string[] = [],
): Component {
  return {
    id,
    labels,
    windowed: true,
    metrics: [metric],
    untorn: (s) => rateOf(s, M[metric].name, labels),
    record,
  };
}

export function perClass(
  id: string,
  metric: MetricKey,
  fallback: FallbackMetricKey,
  mode: string,
  record: string,
): Component {
  return {
    id,
    labels: ["class"],
    windowed: true,
    metrics: [metric],
    untorn: (s) => rateOf(s, M[metric].name, ["class"], ...classSelector(s)),
    fallback: { metrics: [fallback], render: (s) => fileEventsByClass(s, F[fallback].name, mode) },
    record,
  };
}

/** Doublewrite class time (write + misc) where it is instrumented. */
export const dblwrClassInstrumented = (s: SignalScope): Vec =>
  where(gaugeOf(s, M.fileIoInstrumented.name, [], { class: "doublewrite" }), "==", 1);

export const writeAndMiscSeconds = (s: SignalScope, cls: Selector[]): Vec =>
  binary(rateOf(s, M.fileWriteSeconds.name, [], ...cls), "+", rateOf(s, M.fileMiscSeconds.name, [], ...cls));
