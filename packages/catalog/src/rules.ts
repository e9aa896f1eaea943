/**
 * Prometheus recording rules: the expensive fleet-wide rates (source "any", RULE_WINDOW) and the
 * day-long baselines UntornDoublewriteWaitSpike compares against. Names follow level:metric:operations.
 * Plain objects in the Prometheus rule-file shape; dashboards/ writes them as YAML.
 */

import { metrics as M } from "./metrics.js";
import { renderMatchers } from "./promql.js";
import {
  type Component,
  type ComponentKey,
  componentExpr,
  components,
  type Needs,
  RULE_WINDOW,
  type Signal,
  signalList,
  signals,
} from "./signals.js";

export interface RecordingRule {
  readonly record: string;
  readonly expr: string;
  /** What the rule stores, for the generated file's comments and docs/metrics.md. */
  readonly help: string;
  /** Where the rule has data (the needs of the signal it stores). */
  readonly needs: Needs;
  /** History the rule needs before it returns anything (baselines), as a PromQL duration. */
  readonly minHistory?: string;
}

export interface RuleGroup<R> {
  readonly name: string;
  readonly rules: readonly R[];
}

/** The wait rate the spike alert reads, recorded from the doublewrite_wait_seconds_per_second signal. */
export const DOUBLEWRITE_WAIT_RECORD = signals.doublewrite_wait_seconds_per_second.record as string;

/** A day of history ending an hour ago, so a developing spike does not raise its own baseline. */
export const BASELINE = {
  window: "1d",
  exclude: "1h",
  /** Only instances with history older than this get a baseline: at least 6 h before the excluded hour. */
  minHistoryOffset: "7h",
} as const;

export const DOUBLEWRITE_WAIT_BASELINE_AVG = `${DOUBLEWRITE_WAIT_RECORD}_avg${BASELINE.window}`;
export const DOUBLEWRITE_WAIT_BASELINE_STDDEV = `${DOUBLEWRITE_WAIT_RECORD}_stddev${BASELINE.window}`;

/** The signal that is exactly one component, for the rule's help text and needs. */
function signalOf(key: ComponentKey): Signal | undefined {
  return signalList.find((sig) => sig.components.length === 1 && sig.components[0] === key && !sig.record);
}

/** What a component rule stores, for its help: the signal's title, else the metric's HELP text. */
function describeComponent(key: ComponentKey): { what: string; needs: Needs } {
  const s = signalOf(key);
  if (s) return { what: `${s.title} (${s.unit})`, needs: s.needs };
  const c: Component = components[key];
  const help = c.metrics.map((m) => M[m].help.replace(/\.$/, "")).join("; ");
  const collectors = new Set(c.metrics.map((m) => M[m].collector));
  const needs: Needs = collectors.has("host.storage") ? { hostStorage: true } : {};
  return { what: c.labels.length ? `${help}, by ${c.labels.join(", ")}` : help, needs };
}

const componentRules: RecordingRule[] = (Object.keys(components) as ComponentKey[]).flatMap((key) => {
  const c: Component = components[key];
  if (!c.record) return [];
  const { what, needs } = describeComponent(key);
  const form = c.windowed ? `${RULE_WINDOW} rate` : "latest value (max by instance)";
  const source = c.fallback ? "untorn-exporter or its fallback" : "untorn-exporter only";
  return [
    {
      record: c.record,
      expr: componentExpr(key, { window: RULE_WINDOW }),
      help: `${what}, ${form}, ${source}.`,
      needs,
    },
  ];
});

const signalRules: RecordingRule[] = signalList.flatMap((s) =>
  s.record
    ? [
        {
          record: s.record,
          // Reads the component rules above it: Prometheus evaluates a group's rules in order.
          expr: s.ruleExpr(),
          help: `${s.title} (${s.unit}), ${RULE_WINDOW} rate.`,
          needs: s.needs,
        },
      ]
    : [],
);

const baselineOf = (fn: "avg" | "stddev", record: string): string =>
  `${fn}_over_time(${record}[${BASELINE.window}] offset ${BASELINE.exclude}) and on(instance) present_over_time(${record}[${BASELINE.window}] offset ${BASELINE.minHistoryOffset})`;

const waitNeeds = signals.doublewrite_wait_seconds_per_second.needs;

const baselineRules: RecordingRule[] = [
  {
    record: DOUBLEWRITE_WAIT_BASELINE_AVG,
    expr: baselineOf("avg", DOUBLEWRITE_WAIT_RECORD),
    help: `Mean doublewrite wait over ${BASELINE.window} ending ${BASELINE.exclude} ago; absent until there is history older than ${BASELINE.minHistoryOffset}.`,
    needs: waitNeeds,
    minHistory: BASELINE.minHistoryOffset,
  },
  {
    record: DOUBLEWRITE_WAIT_BASELINE_STDDEV,
    expr: baselineOf("stddev", DOUBLEWRITE_WAIT_RECORD),
    help: `Standard deviation of the doublewrite wait over the same ${BASELINE.window}.`,
    needs: waitNeeds,
    minHistory: BASELINE.minHistoryOffset,
  },
];

export const recordingRuleGroups: readonly RuleGroup<RecordingRule>[] = [
  { name: "untorn.rates", rules: [...componentRules, ...signalRules] },
  { name: "untorn.baselines", rules: baselineRules },
];

export const recordingRules: readonly RecordingRule[] = recordingRuleGroups.flatMap((g) => g.rules);

export const recordingRuleNames: readonly string[] = recordingRules.map((r) => r.record);

// ---- reading the recorded series instead of raw ones ----

/**
 * The recorded series the loaded-rules check reads: the redo write rate every instance has, from
 * untorn-exporter or mysqld_exporter (source "any"). It is one of the rules added when every window
 * statistic of the fleet profile became recorded, so a rule file from before (rates for 12 statistics
 * only, with the transaction rate) reads as not loaded rather than leaving statistics empty.
 */
export const RULES_PROBE_RECORD = components.redoWrittenBytes.record as string;

/** Label that tells the probe's two answers apart. */
export const RULES_PROBE_LABEL = "untorn_probe";

/**
 * One cheap request that tells whether the recording rules are loaded and cover a window ending at the
 * evaluation time: the number of instances with a recorded transaction rate now (`now`) and at the
 * window's start (`start`, within the 5 min lookback). Both above 0: the recorded per-instance series can
 * stand in for rates recomputed from raw series. Only `instance` survives the rules' `sum by (instance)`,
 * so a selector on other labels cannot be applied to recorded series.
 */
export function recordingRulesProbe(window: string, instance?: string): string {
  const sel = instance === undefined ? "" : `{${renderMatchers({ instance })}}`;
  const at = (offset: string) =>
    `label_replace(count(${RULES_PROBE_RECORD}${sel}${offset}), "${RULES_PROBE_LABEL}", "${offset ? "start" : "now"}", "", "")`;
  return `${at("")} or ${at(` offset ${window}`)}`;
}
