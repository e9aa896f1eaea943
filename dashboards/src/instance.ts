/**
 * Instance deep dive (uid untorn-instance): the whole write path of one or a few instances, from
 * transactions to the device. One function per panel; each takes the scope so the rollout dashboard can
 * draw the same panel for its A and B sides.
 */

import type * as dashboard from "@grafana/grafana-foundation-sdk/dashboard";
import {
  buildDashboard,
  builtInAnnotations,
  clusterVariable,
  DASHBOARD_UIDS,
  datasourceVariable,
  describeQueries,
  eventAnnotation,
  instanceScope,
  instanceVariable,
  type PanelLike,
  type PanelScope,
  type QuerySpec,
  row,
  statPanel,
  timeseriesPanel,
  untornTagAnnotations,
  webappVariable,
} from "./house.js";

const INNODB_CLASSES = ["doublewrite", "data", "system_tablespace", "redo", "undo", "temp"] as const;

// ---- configuration and storage facts ----

export const serverStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Server",
      query: { signal: "server_info", legend: "{{flavor}} {{version}}" },
      showName: true,
      span: 6,
    },
    s,
  );
export const doublewriteModeStat = (s: PanelScope) =>
  statPanel(
    {
      title: "innodb_doublewrite",
      query: { signal: "doublewrite_mode", legend: "{{mode}}" },
      showName: true,
      span: 3,
    },
    s,
  );
export const flushMethodStat = (s: PanelScope) =>
  statPanel(
    {
      title: "innodb_flush_method",
      query: { signal: "innodb_config_info", legend: "{{flush_method}}" },
      showName: true,
      span: 3,
      description:
        "innodb_flush_method as the server reports it (empty on MariaDB 11.0+ where innodb_data_file_buffering replaces it). O_DIRECT matters for atomic writes (docs/reference/atomic-storage.md §8.7).",
    },
    s,
  );
export const pageSizeStat = (s: PanelScope) =>
  statPanel({ title: "Page size", query: { signal: "page_size_bytes" }, span: 3 }, s);
export const batchCapacityStat = (s: PanelScope) =>
  statPanel(
    { title: "Doublewrite batch capacity", query: { signal: "doublewrite_batch_capacity_pages" }, span: 3 },
    s,
  );
export const bufferPoolStat = (s: PanelScope) =>
  statPanel({ title: "Buffer pool", query: { signal: "buffer_pool_size_bytes" }, span: 3 }, s);
export const flushLogStat = (s: PanelScope) =>
  statPanel({ title: "flush_log_at_trx_commit", query: { signal: "flush_log_at_trx_commit" }, span: 3 }, s);
export const redoCapacityStat = (s: PanelScope) =>
  statPanel({ title: "Redo log capacity", query: { signal: "redo_log_capacity_bytes" }, span: 6 }, s);
export const ioCapacityStat = (s: PanelScope) =>
  statPanel({ title: "innodb_io_capacity", query: { signal: "io_capacity" }, span: 6 }, s);
export const perfSchemaStat = (s: PanelScope) =>
  statPanel(
    { title: "performance_schema", query: { signal: "perf_schema_enabled" }, yesNo: true, span: 6 },
    s,
  );
export const uptimeStat = (s: PanelScope) =>
  statPanel({ title: "Uptime", query: { signal: "uptime_seconds" }, span: 6 }, s);

export const storageStat = (s: PanelScope) =>
  statPanel(
    {
      title: "Datadir storage",
      query: { signal: "storage_info", legend: "{{fstype}} on {{device}} ({{disks}})" },
      showName: true,
      span: 6,
    },
    s,
  );
export const fsBlockStat = (s: PanelScope) =>
  statPanel({ title: "FS block size", query: { signal: "fs_block_size_bytes" }, span: 3 }, s);
export const fsClusterStat = (s: PanelScope) =>
  statPanel({ title: "FS cluster size", query: { signal: "fs_cluster_size_bytes" }, span: 3 }, s);
export const physicalBlockStat = (s: PanelScope) =>
  statPanel({ title: "Physical block size", query: { signal: "physical_block_size_bytes" }, span: 3 }, s);
export const atomicUnitStat = (s: PanelScope) =>
  statPanel({ title: "Atomic write unit max", query: { signal: "atomic_write_unit_max_bytes" }, span: 3 }, s);
export const atomicCapableStat = (s: PanelScope) =>
  statPanel(
    { title: "Atomic unit ≥ page size", query: { signal: "atomic_write_capable" }, yesNo: true, span: 3 },
    s,
  );
export const writeCacheStat = (s: PanelScope) =>
  statPanel(
    { title: "Volatile write cache", query: { signal: "write_cache_volatile" }, yesNo: true, span: 3 },
    s,
  );

// ---- write path ----

export const transactionsPanel = (s: PanelScope) =>
  timeseriesPanel({ title: "Transactions/s", queries: [{ signal: "transactions_per_second" }], span: 12 }, s);
export const rowChangesPanel = (s: PanelScope) =>
  timeseriesPanel({ title: "Row changes/s", queries: [{ signal: "row_changes_per_second" }], span: 12 }, s);

export const pagesFlushedVsDoublewritePanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Data pages flushed vs doublewrite pages",
      queries: [
        { signal: "data_pages_flushed_per_second", legend: "{{instance}} data pages flushed" },
        { signal: "doublewrite_pages_per_second", legend: "{{instance}} doublewrite pages" },
      ],
    },
    s,
  );
export const batchesPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Doublewrite batches/s", queries: [{ signal: "doublewrite_batches_per_second" }] },
    s,
  );
export const pagesPerBatchPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Pages per batch and capacity",
      queries: [
        { signal: "doublewrite_pages_per_batch", legend: "{{instance}} pages per batch" },
        { signal: "doublewrite_batch_capacity_pages", legend: "{{instance}} capacity" },
      ],
      min: 0,
    },
    s,
  );
export const batchFillPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Doublewrite batch fill", queries: [{ signal: "doublewrite_batch_fill" }], min: 0, max: 1 },
    s,
  );
export const amplificationPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Doublewrite pages per flushed data page",
      queries: [{ signal: "doublewrite_amplification" }],
      min: 0,
    },
    s,
  );
export const doublewriteSharesPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Doublewrite share of bytes, operations and I/O wait",
      queries: [
        { signal: "doublewrite_write_bytes_share", legend: "{{instance}} write bytes" },
        { signal: "doublewrite_write_ops_share", legend: "{{instance}} write ops" },
        { signal: "doublewrite_io_wait_share", legend: "{{instance}} file I/O wait" },
      ],
      min: 0,
    },
    s,
  );

export const writeBytesByClassPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Write bytes/s by file class",
      queries: [{ signal: "file_write_bytes_per_second" }],
      stack: true,
    },
    s,
  );
export const writeOpsByClassPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Write ops/s by file class", queries: [{ signal: "file_writes_per_second" }], stack: true },
    s,
  );
export const miscLatencyByClassPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Misc (≈fsync) latency by file class",
      queries: [{ signal: "file_misc_latency_seconds", options: { classes: INNODB_CLASSES } }],
    },
    s,
  );
export const writeLatencyByClassPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Write latency by file class", queries: [{ signal: "file_write_latency_seconds" }] },
    s,
  );
export const miscOpsByClassPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Misc (≈fsync) ops/s by file class", queries: [{ signal: "file_misc_ops_per_second" }] },
    s,
  );

export const fsyncsPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "fsyncs/s and device flushes/s",
      queries: [
        { signal: "fsyncs_per_second", legend: "{{instance}} InnoDB fsyncs" },
        { signal: "device_flushes_per_second", legend: "{{instance}} device flushes" },
      ],
    },
    s,
  );
export const fsyncsPerTxPanel = (s: PanelScope) =>
  timeseriesPanel({ title: "fsyncs per transaction", queries: [{ signal: "fsyncs_per_transaction" }] }, s);
export const writeOpsPerTxPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Write ops per transaction", queries: [{ signal: "write_ops_per_transaction" }], span: 12 },
    s,
  );
export const bytesPerTxPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Write bytes per transaction", queries: [{ signal: "write_bytes_per_transaction" }], span: 12 },
    s,
  );
export const innodbWritesPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "InnoDB write IOPS and bytes/s",
      queries: [
        { signal: "innodb_write_ops_per_second", legend: "{{instance}} write ops" },
        { signal: "innodb_write_bytes_per_second", legend: "{{instance}} bytes" },
      ],
      rightAxis: { signal: "innodb_write_bytes_per_second", unit: "binBps" },
    },
    s,
  );
export const redoBytesPanel = (s: PanelScope) =>
  timeseriesPanel({ title: "Redo bytes/s", queries: [{ signal: "redo_write_bytes_per_second" }] }, s);

export const deviceIopsVsUtilisationPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Device write IOPS vs utilisation",
      queries: [
        { signal: "device_write_iops", legend: "{{instance}} write IOPS" },
        { signal: "device_utilisation", legend: "{{instance}} utilisation" },
      ],
      rightAxis: { signal: "device_utilisation", unit: "percentunit" },
      span: 12,
    },
    s,
  );
export const deviceBytesPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Device write bytes/s", queries: [{ signal: "device_write_bytes_per_second" }], span: 12 },
    s,
  );
/**
 * The device's share, with InnoDB's own share beside it: where other instances or processes write most of
 * the device's bytes, the device share reads as if doublewrite cost nothing, and the console and the CLI
 * show the InnoDB share instead (marked †). The panel draws both so the fallback is there to read.
 */
const deviceShareQueries = [
  { signal: "device_doublewrite_bytes_share", legend: "{{instance}} bytes" },
  { signal: "device_doublewrite_write_ops_share", legend: "{{instance}} write operations" },
  { signal: "doublewrite_write_bytes_share", legend: "{{instance}} of InnoDB's write bytes" },
] as const satisfies readonly QuerySpec[];
export const deviceDoublewriteSharePanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Doublewrite share of device writes",
      queries: deviceShareQueries,
      description: describeQueries(
        deviceShareQueries,
        `A shared device: when InnoDB's data and redo bytes are under half of the bytes the device wrote (other instances, their exporters, Prometheus or any other process wrote the rest), the device shares read as if doublewrite cost nothing; read "of InnoDB's write bytes" instead, as the console and the CLI do (marked †).`,
      ),
      min: 0,
      span: 12,
    },
    s,
  );
export const deviceFlushLatencyPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Device flush latency",
      queries: [{ signal: "device_flush_latency_seconds" }],
      span: 12,
    },
    s,
  );

export const freePageWaitsPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Free-page waits/s", queries: [{ signal: "free_page_waits_per_second" }], span: 12 },
    s,
  );
export const checkpointAgePanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Checkpoint age / capacity",
      queries: [{ signal: "checkpoint_age_ratio" }],
      min: 0,
      max: 1,
      span: 12,
    },
    s,
  );
export const doublewriteWaitPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Doublewrite wait (I/O and mutex)",
      queries: [
        { signal: "doublewrite_io_wait_seconds_per_second", legend: "{{instance}} I/O" },
        { signal: "doublewrite_mutex_wait_seconds_per_second", legend: "{{instance}} mutex" },
      ],
      span: 12,
    },
    s,
  );
export const doublewriteWaitEventsPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Doublewrite mutex waits/s and flush waits/s",
      queries: [
        { signal: "doublewrite_mutex_waits_per_second", legend: "{{instance}} mutex waits" },
        { signal: "doublewrite_flush_wait_events_per_second", legend: "{{instance}} flush waits (MySQL)" },
      ],
      span: 12,
    },
    s,
  );

export const collectorSuccessPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Collector success",
      queries: [{ signal: "collector_success" }],
      min: 0,
      max: 1,
      unit: "none",
      span: 12,
    },
    s,
  );
export const collectorDurationPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Collector duration", queries: [{ signal: "collector_duration_seconds" }], span: 12 },
    s,
  );

export const replicationLagPanel = (s: PanelScope) =>
  timeseriesPanel(
    { title: "Replication lag", queries: [{ signal: "replication_lag_seconds" }], min: 0, span: 12 },
    s,
  );
export const replicationThreadsPanel = (s: PanelScope) =>
  timeseriesPanel(
    {
      title: "Replication threads running and last error",
      queries: [
        { signal: "replication_threads_running", legend: "{{instance}} threads running" },
        { signal: "replication_last_errno", legend: "{{instance}} last error number" },
      ],
      rightAxis: { signal: "replication_last_errno", unit: "none" },
      min: 0,
      span: 12,
    },
    s,
  );

/** The whole instance dashboard as a list of panels. */
export function instancePanels(s: PanelScope): PanelLike[] {
  return [
    row("Configuration"),
    serverStat(s),
    doublewriteModeStat(s),
    flushMethodStat(s),
    pageSizeStat(s),
    batchCapacityStat(s),
    bufferPoolStat(s),
    flushLogStat(s),
    redoCapacityStat(s),
    ioCapacityStat(s),
    perfSchemaStat(s),
    uptimeStat(s),
    row("Storage"),
    storageStat(s),
    fsBlockStat(s),
    fsClusterStat(s),
    physicalBlockStat(s),
    atomicUnitStat(s),
    atomicCapableStat(s),
    writeCacheStat(s),
    row("Throughput"),
    transactionsPanel(s),
    rowChangesPanel(s),
    row("Doublewrite"),
    pagesFlushedVsDoublewritePanel(s),
    batchesPanel(s),
    pagesPerBatchPanel(s),
    batchFillPanel(s),
    amplificationPanel(s),
    doublewriteSharesPanel(s),
    row("File I/O by class"),
    writeBytesByClassPanel(s),
    writeOpsByClassPanel(s),
    miscOpsByClassPanel(s),
    miscLatencyByClassPanel(s),
    writeLatencyByClassPanel(s),
    redoBytesPanel(s),
    row("fsync and efficiency"),
    fsyncsPanel(s),
    fsyncsPerTxPanel(s),
    innodbWritesPanel(s),
    writeOpsPerTxPanel(s),
    bytesPerTxPanel(s),
    row("Device"),
    deviceIopsVsUtilisationPanel(s),
    deviceBytesPanel(s),
    deviceDoublewriteSharePanel(s),
    deviceFlushLatencyPanel(s),
    row("Pressure and waits"),
    freePageWaitsPanel(s),
    checkpointAgePanel(s),
    doublewriteWaitPanel(s),
    doublewriteWaitEventsPanel(s),
    row("Replication"),
    replicationLagPanel(s),
    replicationThreadsPanel(s),
    row("Exporter"),
    collectorSuccessPanel(s),
    collectorDurationPanel(s),
  ];
}

export function instanceDashboard(): dashboard.Dashboard {
  const s = instanceScope();
  return buildDashboard({
    uid: DASHBOARD_UIDS.instance,
    title: "Untorn / Instance",
    description:
      "The write path of an instance: transactions, data pages flushed vs doublewrite pages, batches and fill, bytes and IOPS per file class, misc (≈fsync) latency, device IOPS and utilisation, free-page waits, checkpoint age and doublewrite waits.",
    variables: [datasourceVariable(), clusterVariable(), instanceVariable(), webappVariable()],
    annotations: [
      builtInAnnotations(),
      untornTagAnnotations(),
      eventAnnotation("restarts", s, "red"),
      eventAnnotation("doublewrite_mode_changes", s, "orange"),
    ],
    panels: instancePanels(s),
  });
}
