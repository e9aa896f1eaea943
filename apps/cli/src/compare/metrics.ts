import type { SignalId } from "@untorn/catalog/signals";
import type { MetricKind } from "@untorn/compare/input";

/** A catalog signal compared before/after, with the kind that decides how it is judged. */
export interface CompareMetric {
  readonly signal: SignalId;
  readonly kind: MetricKind;
  readonly unit: string;
  /** Left out of the default set. */
  readonly optIn?: true;
}

/**
 * What `untorn compare` reads from Prometheus. Throughput shows a gain only on a saturated instance;
 * the per-transaction costs show it on any (docs/reference/published-results.md §9, docs/reference/iops-metering.md §11). Rates that rise
 * with load (free-page waits/s, device IOPS) are opt-in: on a closed-loop benchmark more throughput
 * raises them even when each transaction got cheaper.
 */
export const COMPARE_METRICS: readonly CompareMetric[] = [
  { signal: "transactions_per_second", kind: "throughput", unit: "1/s" },
  { signal: "row_changes_per_second", kind: "throughput", unit: "rows/s" },
  { signal: "write_ops_per_transaction", kind: "efficiency", unit: "ops" },
  { signal: "write_bytes_per_transaction", kind: "efficiency", unit: "bytes" },
  { signal: "fsyncs_per_transaction", kind: "efficiency", unit: "fsyncs" },
  // MariaDB and MySQL < 8.0.20: ibdata1 time stands in (catalog); absent without performance_schema.
  { signal: "doublewrite_io_wait_seconds_per_second", kind: "wait", unit: "s/s" },
  { signal: "free_page_waits_per_second", kind: "wait", unit: "1/s", optIn: true },
  { signal: "device_write_iops", kind: "efficiency", unit: "ops/s", optIn: true },
  { signal: "device_flushes_per_second", kind: "efficiency", unit: "ops/s", optIn: true },
];

/** Resolves `--metrics a,b`; unknown ids are an error naming the known ones. */
export function selectMetrics(list: readonly string[] | undefined): CompareMetric[] {
  if (!list || list.length === 0) return COMPARE_METRICS.filter((m) => !m.optIn);
  const out: CompareMetric[] = [];
  for (const id of list) {
    const m = COMPARE_METRICS.find((x) => x.signal === id);
    if (!m) {
      throw new RangeError(
        `unknown metric ${JSON.stringify(id)}; known: ${COMPARE_METRICS.map((x) => x.signal).join(", ")}`,
      );
    }
    if (!out.includes(m)) out.push(m);
  }
  return out;
}
