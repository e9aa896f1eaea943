/**
 * Prometheus recording rules: the expensive fleet-wide rates (source "any", RULE_WINDOW) and the
 * day-long baselines UntornDoublewriteWaitSpike compares against. Names follow level:metric:operations.
 * Plain objects in the Prometheus rule-file shape; dashboards/ writes them as YAML.
 */

import { metrics as M } from "./metrics.js";
import { renderMatchers, type Vec, vec } from "./promql.js";
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
import {
  plainSelector,
  recordedAvgRange,
  recordedWindowStat,
  STAT_LABEL,
  type Stat,
  tag,
  union,
} from "./window-stats.js";

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
  /** Evaluation interval of the group, as a PromQL duration; the global one when absent. */
  readonly interval?: string;
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

// ---- window statistics of the per-instance series (the fleet profile's default window) ----

/**
 * The window the product reads by default (the CLI's and the web console's), and the one the
 * untorn.window group records statistics over.
 */
export const DEFAULT_FLEET_WINDOW = "1h";

/**
 * What untorn.window records: the fleet profile's default window and statistics (the advisor reads the
 * average and the p95). A profile over another window, or asking other statistics, reads the
 * per-instance rates instead.
 */
export const RECORDED_WINDOW = {
  window: DEFAULT_FLEET_WINDOW,
  stats: ["avg", "p95"] as const satisfies readonly Stat[],
  /**
   * Evaluation interval of the group: an instant read of its series is a statistic as of the group's last
   * evaluation, at most this old (plus the evaluation's own lag). One minute in a one-hour window moves
   * the average by at most 1/60 of the change; each evaluation reads every sample of the window again.
   */
  interval: "1m",
} as const;

/** The recorded series of a window statistic of a per-instance series: `<record>_<stat>_<window>`. */
export const windowRecord = (record: string, stat: Stat, window: string = RECORDED_WINDOW.window): string =>
  `${record}_${stat}_${window}`;

const rateRecords = new Set<string>([
  ...(Object.values(components) as Component[]).flatMap((c) => (c.record && c.windowed ? [c.record] : [])),
  ...signalRules.map((r) => r.record),
]);

const windowRules: RecordingRule[] = [...componentRules, ...signalRules].flatMap((r) => {
  const kind = rateRecords.has(r.record) ? "rate" : "gauge";
  const { window } = RECORDED_WINDOW;
  const avgRange = kind === "rate" ? recordedAvgRange(window, RULE_WINDOW) : window;
  const perStep = vec(r.record, []);
  return RECORDED_WINDOW.stats.map((stat) => ({
    record: windowRecord(r.record, stat),
    // The expressions the fleet profile sends when it reads the per-instance series itself.
    expr: recordedWindowStat(perStep, stat, window, avgRange, RULE_WINDOW).q,
    help:
      stat === "avg"
        ? `Average over the last ${window} of ${r.record}${kind === "rate" ? ` (its ${RULE_WINDOW} rates over the last ${window} less ${RULE_WINDOW}, which together cover ${window})` : ""}.`
        : `${stat} over the last ${window} of ${r.record}, every recorded value counted.`,
    needs: r.needs,
  }));
});

export const recordingRuleGroups: readonly RuleGroup<RecordingRule>[] = [
  { name: "untorn.rates", rules: [...componentRules, ...signalRules] },
  // After untorn.rates: it reads that group's series.
  { name: "untorn.window", interval: RECORDED_WINDOW.interval, rules: windowRules },
  { name: "untorn.baselines", rules: baselineRules },
];

/** The series untorn.window records. */
export const windowRuleNames: ReadonlySet<string> = new Set(windowRules.map((r) => r.record));

/**
 * The window statistics of a per-instance series read from untorn.window's series: for a plain selector
 * of a recorded series (`record{matchers}`), the union of its statistics' series with the same matchers,
 * each tagged with STAT_LABEL. null when the window or a statistic is not recorded, or `perStep` is not a
 * plain selector of a recorded series.
 */
export function windowRecordedStats(perStep: Vec, stats: readonly Stat[], window: string): Vec | null {
  if (window !== RECORDED_WINDOW.window) return null;
  const sel = plainSelector(perStep.q);
  if (!sel) return null;
  const names = stats.map((s) => windowRecord(sel.name, s));
  if (!names.every((n) => windowRuleNames.has(n))) return null;
  return union(stats.map((s, i) => tag(vec(`${names[i]}${sel.matchers}`, perStep.labels), STAT_LABEL, s)));
}

/** Whether untorn.window records every statistic asked over the window (its series are read then). */
export const windowRecorded = (window: string, stats: readonly Stat[]): boolean =>
  window === RECORDED_WINDOW.window &&
  stats.every((s) => (RECORDED_WINDOW.stats as readonly Stat[]).includes(s));

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
 * The window statistic the probe looks for: the last rule of untorn.window for the probe's series, so it
 * is there once the group has been evaluated in full, and a rule file without the group reads as such.
 */
export const WINDOW_PROBE_RECORD = windowRecord(
  RULES_PROBE_RECORD,
  RECORDED_WINDOW.stats[RECORDED_WINDOW.stats.length - 1]!,
);

/**
 * One cheap request that tells whether the recording rules are loaded and cover a window ending at the
 * evaluation time: the number of instances with a recorded redo write rate now (`now`) and at the
 * window's start (`start`, within the 5 min lookback), and with untorn.window's statistic now (`window`).
 * `now` and `start` above 0: the recorded per-instance series can stand in for rates recomputed from raw
 * series; `window` too: the recorded window statistics can stand in for those. Only `instance` survives
 * the rules' `sum by (instance)`, so a selector on other labels cannot be applied to recorded series.
 */
export function recordingRulesProbe(window: string, instance?: string): string {
  const sel = instance === undefined ? "" : `{${renderMatchers({ instance })}}`;
  const count = (record: string, offset: string, value: string) =>
    `label_replace(count(${record}${sel}${offset}), "${RULES_PROBE_LABEL}", "${value}", "", "")`;
  return [
    count(RULES_PROBE_RECORD, "", "now"),
    count(RULES_PROBE_RECORD, ` offset ${window}`, "start"),
    count(WINDOW_PROBE_RECORD, "", "window"),
  ].join(" or ");
}
