/**
 * Replication state for the pre-wave gate, from the catalog's replication signals: untorn-exporter's
 * replication collector, or mysqld_exporter's slave_status collector as the fallback. One query per
 * signal for every instance at once. An instance without replication series (a primary, a standalone
 * server, or nothing collects it) is left out, which observe() reports as null: no data, never healthy.
 */
import { oneOf } from "@untorn/catalog/promql";
import { type SignalId, signal } from "@untorn/catalog/signals";
import type { PromQueryApi } from "@untorn/fleet/api";
import type { Replication } from "@untorn/rollout/observations";

/**
 * Replication state per replica (lag, I/O and SQL threads). Injectable; the default,
 * `prometheusReplication` below, reads the catalog's replication signals. An instance
 * nothing reports on is null, which the pre-wave gate does not count as healthy.
 */
export type ReplicationSource = (
  api: PromQueryApi,
  instances: readonly string[],
  at: number,
) => Promise<ReadonlyMap<string, Replication | null>>;

export const prometheusReplication: ReplicationSource = async (api, instances, at) => {
  const out = new Map<string, Replication>();
  if (instances.length === 0) return out;
  const read = async (id: SignalId): Promise<Map<string, number>> => {
    const expr = signal(id).expr({ selector: { instance: oneOf(instances) } });
    const answer = await api.queryVector(expr, { time: at });
    const values = new Map<string, number>();
    for (const s of answer.data) {
      const i = s.labels["instance"];
      if (i !== undefined && Number.isFinite(s.value) && !values.has(i)) values.set(i, s.value);
    }
    return values;
  };
  const [io, sql, lag] = await Promise.all([
    read("replication_io_thread_running"),
    read("replication_sql_thread_running"),
    read("replication_lag_seconds"),
  ]);
  for (const i of instances) {
    if (!io.has(i) && !sql.has(i)) continue;
    const l = lag.get(i);
    out.set(i, {
      ioRunning: io.has(i) ? io.get(i) === 1 : null,
      sqlRunning: sql.has(i) ? sql.get(i) === 1 : null,
      // Absent while a thread is stopped: unknown, not 0.
      lagSeconds: l === undefined ? null : Math.max(0, l),
    });
  }
  return out;
};
