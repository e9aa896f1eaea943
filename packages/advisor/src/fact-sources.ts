/**
 * Where each InstanceFacts field comes from, for the app-layer facts builder: the untorn-exporter
 * metric (catalog name), or the store's fleet metadata when no exporter can see it. The PromQL lives in
 * @untorn/catalog (signals); this table only names the series and how the window statistic is taken.
 * docs/advisor.md's mapping table is generated from it (npm run gen:schema -w @untorn/advisor).
 */

import type { FactPath } from "./facts.js";

export type FactSourceKind = "exporter" | "store" | "query";

export interface FactSource {
  /** Dotted path in InstanceFacts; `*` stands for a file class. */
  readonly field: FactPath;
  readonly kind: FactSourceKind;
  /** untorn-exporter metric name (without label matchers), or null. */
  readonly metric: string | null;
  /** How the value is taken: label, gauge last value, counter rate over the window... */
  readonly how: string;
}

const RATE = "counter: window rate as avg, per-step rates for p50/p95/p99/max";
const GAUGE = "gauge: window avg, p50/p95/p99/max over steps";
const LAST = "gauge: last value in the window";

const x = (field: FactPath, metric: string, how: string): FactSource => ({
  field,
  kind: "exporter",
  metric,
  how,
});
const store = (field: FactPath, how: string): FactSource => ({ field, kind: "store", metric: null, how });
const query = (field: FactPath, how: string): FactSource => ({ field, kind: "query", metric: null, how });

export const FACT_SOURCES: readonly FactSource[] = [
  query("schemaVersion", "always 1"),
  query("identity.instance", "the instance label of the series (host:port or /probe target)"),
  x(
    "identity.cluster",
    "untorn_replication_role",
    "the scrape label cluster of its series; fleet metadata overrides",
  ),
  x(
    "identity.role",
    "untorn_replication_role",
    "label role (replica status, connected replicas); fleet metadata overrides",
  ),
  store("identity.labels", "fleet metadata"),
  x("server.flavor", "untorn_server_info", "label flavor"),
  x("server.version", "untorn_server_info", "label version"),
  x("server.versionComment", "untorn_server_info", "label version_comment"),
  x(
    "platform.managed",
    "untorn_server_info",
    "label managed (rds, aurora, none); alibaba-rds and other from the store",
  ),
  store("platform.cloud", "fleet metadata"),
  store("platform.instanceClass", "fleet metadata or cloud API"),
  store("platform.rdsOptimizedWrites", "DB parameter group rds.optimized_writes (not visible from SQL)"),
  store("platform.rdsStorageConfigUpgradeNeeded", "RDS console/API: storage configuration upgrade available"),
  store("platform.alibaba16kAtomicWrite", "ApsaraDB console/API"),
  x("config.doublewrite", "untorn_innodb_doublewrite_mode", "label mode of the series whose value is 1"),
  x("config.doublewriteRaw", "untorn_innodb_config_info", "label doublewrite"),
  x("config.doublewritePages", "untorn_innodb_doublewrite_pages", LAST),
  x("config.doublewriteFiles", "untorn_innodb_doublewrite_files", LAST),
  x("config.pageSizeBytes", "untorn_innodb_page_size_bytes", LAST),
  x("config.flushMethod", "untorn_innodb_config_info", "label flush_method (empty = null)"),
  x(
    "config.dataFileBuffering",
    "untorn_innodb_config_info",
    "label data_file_buffering ON/OFF (empty = null)",
  ),
  x("config.dataFileWriteThrough", "untorn_innodb_config_info", "label data_file_write_through ON/OFF"),
  x("config.useAtomicWrites", "untorn_innodb_use_atomic_writes", LAST),
  x("config.useFdatasync", "untorn_innodb_config_info", "label use_fdatasync ON/OFF"),
  x("config.writeIoThreads", "untorn_innodb_write_io_threads", LAST),
  x("config.bufferPoolSizeBytes", "untorn_innodb_buffer_pool_size_bytes", LAST),
  x("config.bufferPoolInstances", "untorn_innodb_buffer_pool_instances", LAST),
  x("config.ioCapacity", "untorn_innodb_io_capacity", LAST),
  x("config.ioCapacityMax", "untorn_innodb_io_capacity_max", LAST),
  x("config.flushLogAtTrxCommit", "untorn_innodb_flush_log_at_trx_commit", LAST),
  x("config.redoLogCapacityBytes", "untorn_innodb_redo_log_capacity_bytes", LAST),
  x("config.perfSchemaEnabled", "untorn_perf_schema_enabled", LAST),
  store("config.readOnly", "innodb_read_only (not exported yet)"),
  x("storage.datadirVisible", "untorn_host_storage_datadir_visible", LAST),
  x("storage.device", "untorn_host_storage_info", "label device"),
  x("storage.disks", "untorn_host_storage_info", "label disks, split on commas"),
  x("storage.model", "untorn_host_storage_info", "label model"),
  x("storage.fsType", "untorn_host_storage_info", "label fstype, lower case"),
  x("storage.mountOptions", "untorn_host_storage_info", "label mount_options, split on commas"),
  store(
    "storage.layers",
    "derived from untorn_host_storage_info device vs disks (partition, dm-*), refined by fleet metadata",
  ),
  x("storage.fsBlockSizeBytes", "untorn_host_storage_fs_block_size_bytes", LAST),
  x("storage.fsClusterSizeBytes", "untorn_host_storage_fs_cluster_size_bytes", `${LAST} (absent = null)`),
  store("storage.zfsRecordsizeBytes", "zfs get recordsize (not exported yet)"),
  store("storage.btrfsNodatacow", "lsattr / mount options (not exported yet)"),
  x("storage.logicalBlockSizeBytes", "untorn_host_storage_logical_block_size_bytes", LAST),
  x("storage.physicalBlockSizeBytes", "untorn_host_storage_physical_block_size_bytes", LAST),
  store("storage.maxIoBytes", "queue/max_sectors_kb x 1024 (not exported yet)"),
  store("storage.dataOffsetAlignmentBytes", "partition start x 512 and LVM pe_start (not exported yet)"),
  x("storage.rotational", "untorn_host_storage_rotational", LAST),
  x("storage.writeCacheVolatile", "untorn_host_storage_write_cache_volatile", LAST),
  x(
    "storage.atomicWrite.attributesPresent",
    "untorn_host_storage_atomic_write_attributes_present",
    `${LAST}; 0 means the limits below are unknown, not zero`,
  ),
  x("storage.atomicWrite.unitMinBytes", "untorn_host_storage_atomic_write_unit_min_bytes", LAST),
  x("storage.atomicWrite.unitMaxBytes", "untorn_host_storage_atomic_write_unit_max_bytes", LAST),
  x("storage.atomicWrite.maxBytes", "untorn_host_storage_atomic_write_max_bytes", LAST),
  x("storage.atomicWrite.boundaryBytes", "untorn_host_storage_atomic_write_boundary_bytes", LAST),
  store("storage.tornWriteProtection", "operator declaration or a probe (nvme id-ns NTWPU on AWS Nitro)"),
  store(
    "storage.systemTablespaceSameFilesystem",
    "compare the mounts of innodb_data_home_dir and the datadir",
  ),
  store(
    "storage.limits",
    "volume type: provisioned IOPS, throughput, metering unit; metered=false for local disks",
  ),
  query("workload.windowSeconds", "the query window"),
  query("workload.stepSeconds", "the query step"),
  query("workload.end", "the query end time"),
  x("workload.restarts", "untorn_mysql_uptime_seconds", "number of drops in the window"),
  x("workload.gapRatio", "untorn_mysql_up", "share of steps without a sample"),
  x(
    "workload.observedSeconds",
    "untorn_mysql_uptime_seconds",
    "uptime, when the server started inside the window and nothing restarted",
  ),
  x("workload.rates.dblwrPagesWritten", "untorn_innodb_dblwr_pages_written_total", RATE),
  x("workload.rates.dblwrWrites", "untorn_innodb_dblwr_writes_total", RATE),
  x("workload.rates.dataWrites", "untorn_innodb_data_writes_total", RATE),
  x("workload.rates.dataWrittenBytes", "untorn_innodb_data_written_bytes_total", RATE),
  x("workload.rates.dataReads", "untorn_innodb_data_reads_total", RATE),
  x("workload.rates.dataReadBytes", "untorn_innodb_data_read_bytes_total", RATE),
  x("workload.rates.dataFsyncs", "untorn_innodb_data_fsyncs_total", RATE),
  x("workload.rates.pagesWritten", "untorn_innodb_pages_written_total", RATE),
  x("workload.rates.bufferPoolPagesFlushed", "untorn_innodb_buffer_pool_pages_flushed_total", RATE),
  x("workload.rates.bufferPoolWaitFree", "untorn_innodb_buffer_pool_wait_free_total", RATE),
  x("workload.rates.logWrites", "untorn_innodb_log_writes_total", RATE),
  x("workload.rates.logWaits", "untorn_innodb_log_waits_total", RATE),
  x("workload.rates.osLogWrittenBytes", "untorn_innodb_os_log_written_bytes_total", RATE),
  x("workload.rates.osLogFsyncs", "untorn_innodb_os_log_fsyncs_total", `${RATE}; absent on MariaDB 10.8+`),
  x("workload.rates.commits", "untorn_mysql_commits_total", `${RATE}, plus untorn_mysql_rollbacks_total`),
  x("workload.rates.handlerCommits", "untorn_mysql_handler_commits_total", RATE),
  x("workload.rates.queries", "untorn_mysql_queries_total", RATE),
  x("workload.rates.rowsInserted", "untorn_innodb_row_operations_total", `operation="inserted"; ${RATE}`),
  x("workload.rates.rowsUpdated", "untorn_innodb_row_operations_total", `operation="updated"; ${RATE}`),
  x("workload.rates.rowsDeleted", "untorn_innodb_row_operations_total", `operation="deleted"; ${RATE}`),
  x("workload.rates.rowsRead", "untorn_innodb_row_operations_total", `operation="read"; ${RATE}`),
  x(
    "workload.rates.dblwrFlushWaitEvents",
    "untorn_innodb_metrics_dblwr_events_total",
    `event="flush_wait_events"; ${RATE}; null unless untorn_innodb_metrics_dblwr_enabled is 1`,
  ),
  x(
    "workload.rates.dblwrMutexWaitSeconds",
    "untorn_perf_schema_dblwr_mutex_wait_seconds_total",
    `${RATE}; null unless untorn_perf_schema_dblwr_mutex_instrumented is 1`,
  ),
  x("workload.gauges.checkpointAgeBytes", "untorn_innodb_checkpoint_age_bytes", GAUGE),
  x("workload.gauges.checkpointMaxAgeBytes", "untorn_innodb_checkpoint_max_age_bytes", GAUGE),
  x("workload.gauges.dirtyPages", "untorn_innodb_buffer_pool_pages_dirty", GAUGE),
  x("workload.gauges.bufferPoolPages", "untorn_innodb_buffer_pool_pages", GAUGE),
  x("workload.gauges.pendingFsyncs", "untorn_innodb_data_pending_fsyncs", GAUGE),
  x(
    "workload.fileIo.*.writesPerSecond",
    "untorn_perf_schema_file_writes_total",
    `class label; ${RATE}; a class is present only when untorn_perf_schema_file_io_instrumented is 1`,
  ),
  x(
    "workload.fileIo.*.writeBytesPerSecond",
    "untorn_perf_schema_file_write_bytes_total",
    `class label; ${RATE}`,
  ),
  x(
    "workload.fileIo.*.writeSecondsPerSecond",
    "untorn_perf_schema_file_write_seconds_total",
    `class label; ${RATE}`,
  ),
  x("workload.fileIo.*.miscPerSecond", "untorn_perf_schema_file_misc_total", `class label; ${RATE}`),
  x(
    "workload.fileIo.*.miscSecondsPerSecond",
    "untorn_perf_schema_file_misc_seconds_total",
    `class label; ${RATE}`,
  ),
  x("workload.device.readIops", "untorn_host_storage_reads_completed_total", RATE),
  x("workload.device.writeIops", "untorn_host_storage_writes_completed_total", RATE),
  x("workload.device.readBytesPerSecond", "untorn_host_storage_read_bytes_total", RATE),
  x("workload.device.writeBytesPerSecond", "untorn_host_storage_written_bytes_total", RATE),
  x("workload.device.utilisationRatio", "untorn_host_storage_io_time_seconds_total", RATE),
  x("workload.device.readSecondsPerSecond", "untorn_host_storage_read_seconds_total", RATE),
  x("workload.device.writeSecondsPerSecond", "untorn_host_storage_write_seconds_total", RATE),
  x("workload.device.flushesPerSecond", "untorn_host_storage_flushes_completed_total", RATE),
  x("workload.device.flushSecondsPerSecond", "untorn_host_storage_flush_seconds_total", RATE),
  x("workload.device.ioInProgress", "untorn_host_storage_io_in_progress", GAUGE),
];

/** The mapping as a Markdown table (for docs/advisor.md). */
export function factSourcesMarkdown(): string {
  const rows = FACT_SOURCES.map(
    (s) =>
      `| \`${s.field}\` | ${s.metric ? `\`${s.metric}\`` : s.kind === "store" ? "store (fleet metadata)" : "the query"} | ${s.how} |`,
  );
  return ["| Fact field | Source | How |", "|---|---|---|", ...rows].join("\n");
}
