/**
 * Series of other exporters that signals fall back on when untorn-exporter is not scraped for an
 * instance. Names are from docs/reference/mysqld-exporter.md §7.2 (prometheus/mysqld_exporter; the collectors used here
 * are the same in Debian's 0.14.0 and in 0.20.0) and from node_exporter's diskstats collector.
 * The `instance` label must name the database the same way on every job (see docs/metrics.md).
 */

export type FallbackExporter = "mysqld_exporter" | "node_exporter";

export interface FallbackMetric {
  readonly name: string;
  readonly exporter: FallbackExporter;
  /** The flag that enables the collector, when it is off by default. */
  readonly collector: string;
  readonly note: string;
}

const m = (exporter: FallbackExporter, collector: string, name: string, note: string): FallbackMetric => ({
  name,
  exporter,
  collector,
  note,
});

const status = "--collect.global_status (default on)";
const variables = "--collect.global_variables (default on)";
const fileEvents = "--collect.perf_schema.file_events";
const waits = "--collect.perf_schema.eventswaits";
const diskstats = "diskstats (default on)";
// SHOW ALL SLAVES STATUS / SHOW SLAVE STATUS, every numeric column as mysql_slave_status_<column in
// lower case> with labels master_host, master_uuid, channel_name, connection_name; Yes/No → 1/0
// (prometheus/mysqld_exporter collector/slave_status.go). On MySQL 8.4, which has no SHOW SLAVE STATUS,
// 0.14 collects nothing.
const slaveStatus = "--collect.slave_status (default on)";

export const fallbackMetrics = {
  mysqlUp: m("mysqld_exporter", "always", "mysql_up", "1 when the exporter reached the server."),
  versionInfo: m(
    "mysqld_exporter",
    variables,
    "mysql_version_info",
    "Labels version, version_comment, innodb_version.",
  ),
  uptime: m("mysqld_exporter", status, "mysql_global_status_uptime", "Uptime (untyped)."),
  dblwrPagesWritten: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_dblwr_pages_written",
    "Innodb_dblwr_pages_written (untyped counter).",
  ),
  dblwrWrites: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_dblwr_writes",
    "Innodb_dblwr_writes (untyped counter).",
  ),
  bufferPoolPageChanges: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_buffer_pool_page_changes_total",
    'Innodb_buffer_pool_pages_flushed is {operation="flushed"}.',
  ),
  bufferPoolWaitFree: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_buffer_pool_wait_free",
    "Innodb_buffer_pool_wait_free (untyped counter).",
  ),
  dataWrites: m("mysqld_exporter", status, "mysql_global_status_innodb_data_writes", "Innodb_data_writes."),
  dataWritten: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_data_written",
    "Innodb_data_written, bytes (MDEV-31124 undercount on some MariaDB releases).",
  ),
  dataFsyncs: m("mysqld_exporter", status, "mysql_global_status_innodb_data_fsyncs", "Innodb_data_fsyncs."),
  osLogWritten: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_os_log_written",
    "Innodb_os_log_written, bytes.",
  ),
  commands: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_commands_total",
    'Com_* by {command}; Com_commit is {command="commit"}.',
  ),
  handlers: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_handlers_total",
    'Handler_* by {handler}; Handler_write is {handler="write"}.',
  ),
  rowOps: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_row_ops_total",
    "Innodb_rows_* by {operation}.",
  ),
  checkpointAge: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_checkpoint_age",
    "MariaDB 10.5+ Innodb_checkpoint_age, bytes.",
  ),
  checkpointMaxAge: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_checkpoint_max_age",
    "MariaDB 10.5+ Innodb_checkpoint_max_age, bytes.",
  ),
  redoCurrentLsn: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_redo_log_current_lsn",
    "MySQL 8.0.30+.",
  ),
  redoCheckpointLsn: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_redo_log_checkpoint_lsn",
    "MySQL 8.0.30+.",
  ),
  redoCapacityResized: m(
    "mysqld_exporter",
    status,
    "mysql_global_status_innodb_redo_log_capacity_resized",
    "MySQL 8.0.30+ redo capacity, bytes.",
  ),
  doublewrite: m(
    "mysqld_exporter",
    variables,
    "mysql_global_variables_innodb_doublewrite",
    "1/0 only: DETECT_ONLY, DETECT_AND_RECOVER, TRUE, FALSE and fast produce no series (docs/reference/mysqld-exporter.md §7.2).",
  ),
  doublewritePages: m(
    "mysqld_exporter",
    variables,
    "mysql_global_variables_innodb_doublewrite_pages",
    "MySQL 8.0.20+.",
  ),
  pageSize: m("mysqld_exporter", variables, "mysql_global_variables_innodb_page_size", "Bytes."),
  bufferPoolSize: m("mysqld_exporter", variables, "mysql_global_variables_innodb_buffer_pool_size", "Bytes."),
  flushLogAtTrxCommit: m(
    "mysqld_exporter",
    variables,
    "mysql_global_variables_innodb_flush_log_at_trx_commit",
    "0, 1 or 2.",
  ),
  ioCapacity: m("mysqld_exporter", variables, "mysql_global_variables_innodb_io_capacity", "IOPS."),
  perfSchema: m(
    "mysqld_exporter",
    variables,
    "mysql_global_variables_performance_schema",
    "1 when performance_schema is on.",
  ),
  fileEvents: m(
    "mysqld_exporter",
    fileEvents,
    "mysql_perf_schema_file_events_total",
    "Operations by {event_name, mode} with mode read, write, misc.",
  ),
  fileEventsSeconds: m(
    "mysqld_exporter",
    fileEvents,
    "mysql_perf_schema_file_events_seconds_total",
    "Seconds by {event_name, mode}.",
  ),
  fileEventsBytes: m(
    "mysqld_exporter",
    fileEvents,
    "mysql_perf_schema_file_events_bytes_total",
    "Bytes by {event_name, mode} with mode read, write.",
  ),
  eventsWaits: m("mysqld_exporter", waits, "mysql_perf_schema_events_waits_total", "Waits by {event_name}."),
  eventsWaitsSeconds: m(
    "mysqld_exporter",
    waits,
    "mysql_perf_schema_events_waits_seconds_total",
    "Wait seconds by {event_name}.",
  ),
  dblwrFlushWaitEvents: m(
    "mysqld_exporter",
    "--collect.info_schema.innodb_metrics, with innodb_monitor_enable='module_dblwr'",
    "mysql_info_schema_innodb_metrics_dblwr_dblwr_flush_wait_events_total",
    "MySQL 8.0.20+ only.",
  ),
  replicaLag: m(
    "mysqld_exporter",
    slaveStatus,
    "mysql_slave_status_seconds_behind_master",
    "Seconds_Behind_Master per channel; absent while a thread is stopped (NULL is skipped).",
  ),
  replicaIoRunning: m(
    "mysqld_exporter",
    slaveStatus,
    "mysql_slave_status_slave_io_running",
    "Slave_IO_Running: 1 for Yes, 0 for No and Connecting.",
  ),
  replicaSqlRunning: m(
    "mysqld_exporter",
    slaveStatus,
    "mysql_slave_status_slave_sql_running",
    "Slave_SQL_Running: 1 for Yes, 0 for No.",
  ),
  replicaLastSqlErrno: m(
    "mysqld_exporter",
    slaveStatus,
    "mysql_slave_status_last_sql_errno",
    "Last_SQL_Errno per channel.",
  ),
  replicaLastIoErrno: m(
    "mysqld_exporter",
    slaveStatus,
    "mysql_slave_status_last_io_errno",
    "Last_IO_Errno per channel.",
  ),
  diskWrites: m(
    "node_exporter",
    diskstats,
    "node_disk_writes_completed_total",
    "Writes completed by {device}.",
  ),
  diskWrittenBytes: m(
    "node_exporter",
    diskstats,
    "node_disk_written_bytes_total",
    "Bytes written by {device}.",
  ),
  diskIoTime: m(
    "node_exporter",
    diskstats,
    "node_disk_io_time_seconds_total",
    "Seconds with I/O in flight by {device}; rate() is utilisation.",
  ),
  diskFlushes: m(
    "node_exporter",
    diskstats,
    "node_disk_flush_requests_total",
    "Flush requests by {device} (Linux 5.5+).",
  ),
  diskFlushSeconds: m(
    "node_exporter",
    diskstats,
    "node_disk_flush_requests_time_seconds_total",
    "Flush seconds by {device} (Linux 5.5+).",
  ),
} as const;

export type FallbackMetricKey = keyof typeof fallbackMetrics;

export const fallbackMetricList: readonly FallbackMetric[] = Object.values(fallbackMetrics);

/**
 * node_exporter reports every block device; the fallback sums whole disks and skips stacked devices
 * (device-mapper, md) so a write is not counted twice. It cannot tell which disk holds the datadir:
 * untorn-exporter's host.storage collector can.
 */
export const NODE_WHOLE_DISKS = "dm-.*|md.*|loop.*|ram.*|zram.*|sr.*|nbd.*";

/** performance_schema file instruments and the untorn file class each maps to (docs/reference/performance-schema.md §5.1). */
export const FILE_EVENT_CLASSES = {
  "wait/io/file/innodb/innodb_dblwr_file": "doublewrite",
  "wait/io/file/innodb/innodb_data_file": "data",
  "wait/io/file/innodb/innodb_log_file": "redo",
  "wait/io/file/innodb/innodb_temp_file": "temp",
  "wait/io/file/sql/binlog": "binlog",
  "wait/io/file/sql/relaylog": "relay_log",
} as const;

/** Doublewrite mutex instruments: MySQL 8.0.20+ and older MySQL/MariaDB (docs/reference/performance-schema.md §5.1). */
export const DBLWR_MUTEX_EVENTS = "wait/synch/mutex/innodb/(buf_)?dblwr_mutex";
