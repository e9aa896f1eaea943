// The vocabulary of metrics, without zod: compare's analysis (and its worker threads) loads this, not
// the schema.
/**
 * What a metric measures. `workload` metrics describe the offered load (statement or transaction mix
 * rates, replication stream bytes/s): they are never judged, they feed the workload-parity check.
 */
export const METRIC_KINDS = ["throughput", "latency", "efficiency", "wait", "workload"] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];

export const DIRECTIONS = ["higher_is_better", "lower_is_better", "neutral"] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Direction used when a metric does not state one. */
export const DEFAULT_DIRECTION: Record<MetricKind, Direction> = {
  throughput: "higher_is_better",
  latency: "lower_is_better",
  // Efficiency metrics are costs per unit of work (bytes, write ops, fsyncs per transaction).
  efficiency: "lower_is_better",
  wait: "lower_is_better",
  workload: "neutral",
};
