/**
 * Named PromQL over the console's own /metrics (console-metrics.ts): the signal kind for series that
 * describe the console's rollouts, not a database instance. They carry no per-database `instance` (the
 * scrape's `instance` names the console), so they are not `signals.ts` signals and take no window: every
 * console metric is a gauge over what the store holds.
 *
 * Consoles that share one store (two consoles on one PostgreSQL, docs/web.md) expose the same rollouts,
 * so every signal aggregates with `max` (or counts distinct rollouts), never `sum`: two consoles scraped
 * side by side are not twice the rollouts.
 */
import { consoleMetrics as C, type ConsoleMetricDef } from "./console-metrics.js";
import { renderMatchers, type Selector } from "./promql.js";

export type ConsoleSignalUnit = "rollouts" | "decisions" | "waves" | "seconds" | "bool";

export interface ConsoleExprOptions {
  /** Matchers ANDed into every series selector (e.g. the console's `job`). */
  readonly selector?: Selector;
  /** For the time-to-verdict signal: the quantile, 0 < q < 1 (default 0.5). */
  readonly quantile?: number;
}

export interface ConsoleSignal {
  readonly id: ConsoleSignalId;
  readonly title: string;
  readonly description: string;
  readonly unit: ConsoleSignalUnit;
  /** The console metrics it reads: their names are the only series names in `expr`. */
  readonly metrics: readonly ConsoleMetricDef[];
  /** Labels of the result (none: one series). */
  readonly labels: readonly string[];
  expr(opts?: ConsoleExprOptions): string;
}

interface Spec {
  readonly title: string;
  readonly description: string;
  readonly unit: ConsoleSignalUnit;
  readonly metrics: readonly ConsoleMetricDef[];
  readonly labels: readonly string[];
  readonly render: (sel: (m: ConsoleMetricDef, suffix?: string) => string, o: ConsoleExprOptions) => string;
}

const W = C.waitingSince;

const specs = {
  console_rollouts_by_status: {
    title: "Rollouts by status",
    description:
      "Stored rollouts in each state (active, paused, halted, completed, aborted, reverting, reverted).",
    unit: "rollouts",
    metrics: [C.rollouts],
    labels: ["status"],
    render: (sel) => `max by (status) (${sel(C.rollouts)})`,
  },
  console_gate_results: {
    title: "Gate outcomes",
    description:
      "Gate decisions in the stored rollouts' audit by gate (pre-wave, step, bake, revert) and outcome (pass, fail, inconclusive, no-data, waiting); combinations that never happened are left out.",
    unit: "decisions",
    metrics: [C.gateResults],
    labels: ["gate", "outcome"],
    render: (sel) => `max by (gate, outcome) (${sel(C.gateResults)}) > 0`,
  },
  console_bake_verdicts: {
    title: "Bake verdicts",
    description:
      "Waves of the stored rollouts whose bake was judged, by verdict: passed, failed, inconclusive.",
    unit: "waves",
    metrics: [C.bakeVerdicts],
    labels: ["verdict"],
    render: (sel) => `max by (verdict) (${sel(C.bakeVerdicts)})`,
  },
  console_time_to_verdict_seconds: {
    title: "Time to a bake verdict",
    description:
      "Quantile of the seconds from a wave's bake start to its verdict, over every judged wave the store holds (a gauge histogram: read as it is, not rated). Linear within a bucket (5 min to 2 days), as histogram_quantile interpolates; nothing before the first judged wave.",
    unit: "seconds",
    metrics: [C.timeToVerdict],
    labels: [],
    render: (sel, o) =>
      `histogram_quantile(${quantileOf(o)}, max by (le) (${sel(C.timeToVerdict, "_bucket")}))`,
  },
  console_rollouts_waiting: {
    title: "Rollouts waiting for a person",
    description:
      "Paused rollouts waiting for a person (an operator's pause, an inconclusive bake, a failed hook); 0 when none waits and the console read its store, nothing when it did not.",
    unit: "rollouts",
    metrics: [W, C.scrapeSuccess],
    labels: [],
    render: (sel) => `count(max by (rollout) (${sel(W)})) or max(${sel(C.scrapeSuccess)} == 1) * 0`,
  },
  console_rollout_waiting_seconds: {
    title: "Waiting for a person",
    description:
      "Seconds each paused rollout has waited for a person, with its id, title and why it waits (operator, inconclusive, hook-failed). UntornRolloutWaitingTooLong fires past 4 h.",
    unit: "seconds",
    metrics: [W],
    labels: ["rollout", "title", "reason"],
    render: (sel) => `max by (rollout, title, reason) (time() - ${sel(W)})`,
  },
  console_longest_wait_seconds: {
    title: "Longest wait for a person",
    description: "Seconds the longest-waiting paused rollout has waited for a person.",
    unit: "seconds",
    metrics: [W],
    labels: [],
    render: (sel) => `max(time() - ${sel(W)})`,
  },
  console_store_up: {
    title: "Console reads its store",
    description:
      "1 when every scraped console read its rollouts from the store on its last scrape, 0 when one could not: the other rollout panels are then blind for it.",
    unit: "bool",
    metrics: [C.scrapeSuccess],
    labels: [],
    render: (sel) => `min(${sel(C.scrapeSuccess)})`,
  },
} as const satisfies Record<string, Spec>;

export type ConsoleSignalId = keyof typeof specs;

function quantileOf(o: ConsoleExprOptions): number {
  const q = o.quantile ?? 0.5;
  if (!(q > 0 && q < 1)) throw new RangeError(`quantile must be between 0 and 1, got ${q}`);
  return q;
}

function build(id: ConsoleSignalId, spec: Spec): ConsoleSignal {
  return {
    id,
    title: spec.title,
    description: spec.description,
    unit: spec.unit,
    metrics: spec.metrics,
    labels: spec.labels,
    expr: (opts = {}) => {
      const m = renderMatchers(opts.selector ?? {});
      return spec.render((def, suffix = "") => `${def.name}${suffix}${m ? `{${m}}` : ""}`, opts);
    },
  };
}

export const consoleSignals: Readonly<Record<ConsoleSignalId, ConsoleSignal>> = Object.fromEntries(
  (Object.entries(specs) as [ConsoleSignalId, Spec][]).map(([id, spec]) => [id, build(id, spec)]),
) as Record<ConsoleSignalId, ConsoleSignal>;

export const consoleSignalList: readonly ConsoleSignal[] = Object.values(consoleSignals);

export const isConsoleSignalId = (id: string): id is ConsoleSignalId => Object.hasOwn(specs, id);
