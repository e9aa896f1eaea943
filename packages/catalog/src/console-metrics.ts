/**
 * What the Untorn console exposes about its rollouts on its own `/metrics` (Prometheus text format),
 * as Argo Rollouts' controller does: name, type, HELP and labels, so the console, the alert and the
 * fleet dashboard's rollout row name each series in one place. Built fresh from the store per scrape.
 */

export type ConsoleMetricType = "gauge" | "histogram";

export interface ConsoleMetricDef {
  readonly name: string;
  readonly type: ConsoleMetricType;
  readonly help: string;
  readonly labels: readonly string[];
}

/** Seconds from a wave's bake start to its verdict: 5 min (a short canary bake) to 2 days. */
export const TIME_TO_VERDICT_BUCKETS = [300, 900, 1800, 3600, 7200, 14_400, 43_200, 86_400, 172_800] as const;

export const consoleMetrics = {
  rollouts: {
    name: "untorn_console_rollouts",
    type: "gauge",
    help: "Stored rollouts by status (active, paused, halted, completed, aborted, reverting, reverted).",
    labels: ["status"],
  },
  gateResults: {
    name: "untorn_console_rollout_gate_results",
    type: "gauge",
    help: "Gate decisions recorded in the stored rollouts' audit, by gate and outcome.",
    labels: ["gate", "outcome"],
  },
  bakeVerdicts: {
    name: "untorn_console_rollout_bake_verdicts",
    type: "gauge",
    help: "Waves of the stored rollouts whose bake was judged, by verdict (passed, failed, inconclusive).",
    labels: ["verdict"],
  },
  timeToVerdict: {
    name: "untorn_console_rollout_time_to_verdict_seconds",
    type: "histogram",
    help: "Seconds from a wave's bake start to its bake verdict, over the stored rollouts' judged waves.",
    labels: [],
  },
  waitingSince: {
    name: "untorn_console_rollout_waiting_since_timestamp_seconds",
    type: "gauge",
    help: "When a paused rollout began waiting for a person (Unix seconds), by reason: operator, inconclusive (a bake that could not tell), hook-failed.",
    labels: ["rollout", "title", "reason"],
  },
  scrapeSuccess: {
    name: "untorn_console_rollout_store_up",
    type: "gauge",
    help: "1 when the console read its rollouts from the store for this scrape, 0 when the store failed.",
    labels: [],
  },
} as const satisfies Record<string, ConsoleMetricDef>;
