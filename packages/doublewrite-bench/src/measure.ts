/** Per-run metrics from SHOW GLOBAL STATUS deltas, the sysbench summary and device counter deltas. */
import type { SysbenchResult } from "@untorn/testkit/sysbench";
import type { DiskCounters } from "./device.js";
import type { ServerInfo } from "./server-info.js";

/** The counters read before and after every run (docs/reference/status-counters.md §4, docs/reference/iops-metering.md §11). */
export const STATUS_COUNTERS = [
  "Innodb_data_writes",
  "Innodb_data_written",
  "Innodb_data_fsyncs",
  "Innodb_dblwr_pages_written",
  "Innodb_dblwr_writes",
  "Innodb_buffer_pool_pages_flushed",
  "Innodb_buffer_pool_wait_free",
  "Innodb_os_log_written",
  "Com_commit",
] as const;
export type StatusCounter = (typeof STATUS_COUNTERS)[number];
export type StatusSnapshot = Partial<Record<StatusCounter, number>>;

export function pickCounters(status: ReadonlyMap<string, string>): StatusSnapshot {
  const out: StatusSnapshot = {};
  for (const name of STATUS_COUNTERS) {
    const v = Number(status.get(name));
    if (status.has(name) && Number.isFinite(v)) out[name] = v;
  }
  return out;
}

export interface RunMetrics {
  transactions: number;
  /** Wall-clock seconds between the two status snapshots. */
  seconds: number;
  tps: number;
  latencyAvgMs: number;
  latencyP95Ms: number;
  /** Deadlocks and lock waits sysbench retried. */
  errors: number;
  /** Innodb_data_writes per transaction: data-file write requests, one per doublewrite batch I/O. */
  writeOpsPerTrx: number | null;
  /** Innodb_data_written per transaction (MDEV-31124 corrected), doublewrite included. */
  writeBytesPerTrx: number | null;
  fsyncsPerTrx: number | null;
  dblwrPagesPerTrx: number | null;
  pagesFlushedPerTrx: number | null;
  redoBytesPerTrx: number | null;
  innodbWriteOpsPerSec: number | null;
  freePageWaitsPerSec: number | null;
  /** Completed device write requests per transaction: what an IOPS-metered volume charges. */
  deviceWritesPerTrx: number | null;
  deviceWriteIops: number | null;
  deviceFlushesPerSec: number | null;
}

export interface RunSample {
  status: StatusSnapshot;
  disk: DiskCounters | undefined;
  /** Unix ms. */
  at: number;
}

export function runMetrics(
  before: RunSample,
  after: RunSample,
  sb: SysbenchResult,
  server: Pick<ServerInfo, "pageSize" | "mdev31124">,
): RunMetrics {
  const seconds = Math.max((after.at - before.at) / 1000, 1e-3);
  const trx = sb.transactions;
  const delta = (k: StatusCounter): number | null => {
    const a = before.status[k];
    const b = after.status[k];
    // A decrease means a restart or FLUSH STATUS during the run: no delta rather than a wrong one.
    return a === undefined || b === undefined || b < a ? null : b - a;
  };
  const perTrx = (v: number | null) => (v === null || trx <= 0 ? null : v / trx);
  const perSec = (v: number | null) => (v === null ? null : v / seconds);
  let written = delta("Innodb_data_written");
  const dblwrPages = delta("Innodb_dblwr_pages_written");
  // MDEV-31124: doublewrite pages were added as 1 byte instead of page size (docs/reference/status-counters.md §4).
  if (server.mdev31124 && written !== null && dblwrPages !== null)
    written += (server.pageSize - 1) * dblwrPages;
  const d = before.disk && after.disk ? after.disk : undefined;
  const diskWrites = d && before.disk ? d.writes - before.disk.writes : null;
  const diskFlushes =
    d?.flushes !== undefined && before.disk?.flushes !== undefined ? d.flushes - before.disk.flushes : null;
  return {
    transactions: trx,
    seconds,
    tps: sb.tps,
    latencyAvgMs: sb.latencyAvgMs,
    latencyP95Ms: sb.latencyP95Ms,
    errors: sb.errors,
    writeOpsPerTrx: perTrx(delta("Innodb_data_writes")),
    writeBytesPerTrx: perTrx(written),
    fsyncsPerTrx: perTrx(delta("Innodb_data_fsyncs")),
    dblwrPagesPerTrx: perTrx(dblwrPages),
    pagesFlushedPerTrx: perTrx(delta("Innodb_buffer_pool_pages_flushed")),
    redoBytesPerTrx: perTrx(delta("Innodb_os_log_written")),
    innodbWriteOpsPerSec: perSec(delta("Innodb_data_writes")),
    freePageWaitsPerSec: perSec(delta("Innodb_buffer_pool_wait_free")),
    deviceWritesPerTrx: perTrx(diskWrites),
    deviceWriteIops: perSec(diskWrites),
    deviceFlushesPerSec: perSec(diskFlushes),
  };
}
