/**
 * Every series untorn-exporter exposes: name, type, HELP text and label names.
 * The exporter builds its prom-client metrics from these definitions and the signals,
 * dashboards, alerts and the advisor refer to them by key, so a name lives in one place.
 * Naming: untorn_<subsystem>_<name>_<unit>[_total], base units (bytes, seconds).
 */

export type MetricType = "counter" | "gauge";

export type CollectorName =
  | "global_status"
  | "config"
  | "perf_schema.file_io"
  | "perf_schema.waits"
  | "innodb_metrics.dblwr"
  | "replication"
  | "host.storage"
  | "exporter";

export interface MetricDef {
  readonly name: string;
  readonly type: MetricType;
  readonly help: string;
  readonly labels: readonly string[];
  readonly collector: CollectorName;
}

const def = <const L extends readonly string[]>(
  collector: CollectorName,
  type: MetricType,
  name: string,
  help: string,
  labels: L,
): MetricDef & { labels: L } => ({ collector, type, name, help, labels });

const none = [] as const;

/** File classes of `perf_schema.file_io`, see docs/reference/performance-schema.md §5. */
export const FILE_CLASSES = [
  "doublewrite",
  "data",
  "system_tablespace",
  "redo",
  "undo",
  "temp",
  "binlog",
  "relay_log",
] as const;
export type FileClass = (typeof FILE_CLASSES)[number];

/** MariaDB GTID positions of `untorn_replication_gtid_sequence` (system variables gtid_<position>_pos). */
export const GTID_POSITIONS = ["binlog", "current", "slave"] as const;
export type GtidPosition = (typeof GTID_POSITIONS)[number];

export const metrics = {
  // ---- exporter ----
  mysqlUp: def(
    "exporter",
    "gauge",
    "untorn_mysql_up",
    "Whether the last connection to the server succeeded (1) or not (0).",
    none,
  ),
  collectorSuccess: def(
    "exporter",
    "gauge",
    "untorn_exporter_collector_success",
    "Whether the collector finished without error (1) or not (0) in this scrape.",
    ["collector"] as const,
  ),
  collectorDuration: def(
    "exporter",
    "gauge",
    "untorn_exporter_collector_duration_seconds",
    "Time the collector took in this scrape, in seconds.",
    ["collector"] as const,
  ),
  buildInfo: def(
    "exporter",
    "gauge",
    "untorn_exporter_build_info",
    "Always 1; labels carry the exporter version and the Node.js version.",
    ["version", "nodejs"] as const,
  ),
  scrapesTotal: def(
    "exporter",
    "counter",
    "untorn_exporter_scrapes_total",
    "Collections started by this exporter process (shared single-flight scrapes count once).",
    none,
  ),

  // ---- global_status: SHOW GLOBAL STATUS ----
  dblwrPagesWritten: def(
    "global_status",
    "counter",
    "untorn_innodb_dblwr_pages_written_total",
    "Pages written to the doublewrite area (Innodb_dblwr_pages_written).",
    none,
  ),
  dblwrWrites: def(
    "global_status",
    "counter",
    "untorn_innodb_dblwr_writes_total",
    "Doublewrite write operations (Innodb_dblwr_writes): batches on MySQL, doublewrite I/Os on MariaDB (a batch can be two).",
    none,
  ),
  dataWrites: def(
    "global_status",
    "counter",
    "untorn_innodb_data_writes_total",
    "InnoDB data file write operations, doublewrite included (Innodb_data_writes).",
    none,
  ),
  dataWrittenBytes: def(
    "global_status",
    "counter",
    "untorn_innodb_data_written_bytes_total",
    "Bytes InnoDB wrote to data files, doublewrite included (Innodb_data_written as reported; MariaDB 10.5.7-10.11.2 count a doublewrite page as 1 byte, MDEV-31124).",
    none,
  ),
  dataReads: def(
    "global_status",
    "counter",
    "untorn_innodb_data_reads_total",
    "InnoDB data file read operations (Innodb_data_reads).",
    none,
  ),
  dataReadBytes: def(
    "global_status",
    "counter",
    "untorn_innodb_data_read_bytes_total",
    "Bytes InnoDB read from data files (Innodb_data_read).",
    none,
  ),
  dataFsyncs: def(
    "global_status",
    "counter",
    "untorn_innodb_data_fsyncs_total",
    "fsync()/fdatasync() calls InnoDB made on its files (Innodb_data_fsyncs).",
    none,
  ),
  dataPendingFsyncs: def(
    "global_status",
    "gauge",
    "untorn_innodb_data_pending_fsyncs",
    "fsync() calls in progress right now (Innodb_data_pending_fsyncs).",
    none,
  ),
  pagesWritten: def(
    "global_status",
    "counter",
    "untorn_innodb_pages_written_total",
    "Pages written by InnoDB operations (Innodb_pages_written).",
    none,
  ),
  bufferPoolPagesFlushed: def(
    "global_status",
    "counter",
    "untorn_innodb_buffer_pool_pages_flushed_total",
    "Buffer pool pages flushed to their data files (Innodb_buffer_pool_pages_flushed).",
    none,
  ),
  bufferPoolWaitFree: def(
    "global_status",
    "counter",
    "untorn_innodb_buffer_pool_wait_free_total",
    "Times a thread had to wait for a clean buffer pool page (Innodb_buffer_pool_wait_free): a write-bound symptom.",
    none,
  ),
  bufferPoolPagesDirty: def(
    "global_status",
    "gauge",
    "untorn_innodb_buffer_pool_pages_dirty",
    "Dirty pages in the buffer pool (Innodb_buffer_pool_pages_dirty).",
    none,
  ),
  bufferPoolPagesTotal: def(
    "global_status",
    "gauge",
    "untorn_innodb_buffer_pool_pages",
    "Pages in the buffer pool (Innodb_buffer_pool_pages_total).",
    none,
  ),
  logWrites: def(
    "global_status",
    "counter",
    "untorn_innodb_log_writes_total",
    "Physical writes to the redo log (Innodb_log_writes).",
    none,
  ),
  logWriteRequests: def(
    "global_status",
    "counter",
    "untorn_innodb_log_write_requests_total",
    "Redo log write requests (Innodb_log_write_requests).",
    none,
  ),
  logWaits: def(
    "global_status",
    "counter",
    "untorn_innodb_log_waits_total",
    "Times the redo log buffer was too small and a thread waited for it to be flushed (Innodb_log_waits).",
    none,
  ),
  osLogWrittenBytes: def(
    "global_status",
    "counter",
    "untorn_innodb_os_log_written_bytes_total",
    "Bytes written to the redo log (Innodb_os_log_written).",
    none,
  ),
  osLogFsyncs: def(
    "global_status",
    "counter",
    "untorn_innodb_os_log_fsyncs_total",
    "fsync() calls on the redo log (Innodb_os_log_fsyncs; absent on MariaDB 10.8 and later).",
    none,
  ),
  rowOperations: def(
    "global_status",
    "counter",
    "untorn_innodb_row_operations_total",
    "Rows inserted, updated, deleted or read in InnoDB tables (Innodb_rows_*).",
    ["operation"] as const,
  ),
  commits: def(
    "global_status",
    "counter",
    "untorn_mysql_commits_total",
    "COMMIT statements (Com_commit); autocommit statements are not counted here, see handler commits.",
    none,
  ),
  rollbacks: def(
    "global_status",
    "counter",
    "untorn_mysql_rollbacks_total",
    "ROLLBACK statements (Com_rollback).",
    none,
  ),
  handlerCommits: def(
    "global_status",
    "counter",
    "untorn_mysql_handler_commits_total",
    "Storage engine commits, autocommit statements and internal commits included (Handler_commit).",
    none,
  ),
  handlerRowOperations: def(
    "global_status",
    "counter",
    "untorn_mysql_handler_row_operations_total",
    "Row writes, updates and deletes requested from storage engines (Handler_write, Handler_update, Handler_delete) by operation write, update, delete; stands in for Innodb_rows_*, which MariaDB 10.11 does not report.",
    ["operation"] as const,
  ),
  queries: def(
    "global_status",
    "counter",
    "untorn_mysql_queries_total",
    "Statements executed by the server (Queries).",
    none,
  ),
  uptime: def(
    "global_status",
    "gauge",
    "untorn_mysql_uptime_seconds",
    "Seconds since the server started (Uptime); a drop means a restart and a counter reset.",
    none,
  ),
  checkpointAgeBytes: def(
    "global_status",
    "gauge",
    "untorn_innodb_checkpoint_age_bytes",
    "Redo bytes not yet checkpointed: MariaDB Innodb_checkpoint_age; MySQL 8.0.30+ Innodb_redo_log_current_lsn - Innodb_redo_log_checkpoint_lsn.",
    none,
  ),
  checkpointMaxAgeBytes: def(
    "global_status",
    "gauge",
    "untorn_innodb_checkpoint_max_age_bytes",
    "Checkpoint age at which InnoDB forces flushing: MariaDB Innodb_checkpoint_max_age; MySQL 8.0.30+ Innodb_redo_log_capacity_resized (the redo capacity).",
    none,
  ),

  // ---- config: SHOW GLOBAL VARIABLES ----
  serverInfo: def(
    "config",
    "gauge",
    "untorn_server_info",
    "Always 1; flavor is mysql, mariadb or percona; managed is rds, aurora or none (best effort from version and variables).",
    ["flavor", "version", "version_comment", "managed"] as const,
  ),
  innodbConfigInfo: def(
    "config",
    "gauge",
    "untorn_innodb_config_info",
    "Always 1; labels carry the raw variable strings (empty when the server has no such variable).",
    [
      "doublewrite",
      "doublewrite_dir",
      "flush_method",
      "use_atomic_writes",
      "data_file_buffering",
      "data_file_write_through",
      "use_fdatasync",
      "page_size",
    ] as const,
  ),
  doublewriteMode: def(
    "config",
    "gauge",
    "untorn_innodb_doublewrite_mode",
    "1 for the current innodb_doublewrite mode, 0 for the others (TRUE maps to on, FALSE to off).",
    ["mode"] as const,
  ),
  doublewriteEnabled: def(
    "config",
    "gauge",
    "untorn_innodb_doublewrite_enabled",
    "1 when full page copies go through the doublewrite buffer (on, detect_and_recover, fast), 0 when they do not (off, detect_only).",
    none,
  ),
  pageSizeBytes: def("config", "gauge", "untorn_innodb_page_size_bytes", "innodb_page_size in bytes.", none),
  doublewritePages: def(
    "config",
    "gauge",
    "untorn_innodb_doublewrite_pages",
    "innodb_doublewrite_pages (MySQL 8.0.20+): pages per doublewrite batch segment.",
    none,
  ),
  doublewriteFiles: def(
    "config",
    "gauge",
    "untorn_innodb_doublewrite_files",
    "innodb_doublewrite_files (MySQL 8.0.20+).",
    none,
  ),
  bufferPoolSizeBytes: def(
    "config",
    "gauge",
    "untorn_innodb_buffer_pool_size_bytes",
    "innodb_buffer_pool_size in bytes.",
    none,
  ),
  bufferPoolInstances: def(
    "config",
    "gauge",
    "untorn_innodb_buffer_pool_instances",
    "innodb_buffer_pool_instances (absent on MariaDB 10.6 and later, where it is always 1).",
    none,
  ),
  writeIoThreads: def("config", "gauge", "untorn_innodb_write_io_threads", "innodb_write_io_threads.", none),
  ioCapacity: def(
    "config",
    "gauge",
    "untorn_innodb_io_capacity",
    "innodb_io_capacity (IOPS budget for background flushing).",
    none,
  ),
  ioCapacityMax: def("config", "gauge", "untorn_innodb_io_capacity_max", "innodb_io_capacity_max.", none),
  flushLogAtTrxCommit: def(
    "config",
    "gauge",
    "untorn_innodb_flush_log_at_trx_commit",
    "innodb_flush_log_at_trx_commit (0, 1 or 2).",
    none,
  ),
  useAtomicWrites: def(
    "config",
    "gauge",
    "untorn_innodb_use_atomic_writes",
    "MariaDB innodb_use_atomic_writes (1/0); only Fusion-io, Shannon and ScaleFlux devices honour it.",
    none,
  ),
  redoLogCapacityBytes: def(
    "config",
    "gauge",
    "untorn_innodb_redo_log_capacity_bytes",
    "Redo log size: innodb_redo_log_capacity (MySQL 8.0.30+) or innodb_log_file_size x innodb_log_files_in_group.",
    none,
  ),
  readOnly: def(
    "config",
    "gauge",
    "untorn_innodb_read_only",
    "innodb_read_only (1/0): a read-only server writes no pages and so no doublewrite.",
    none,
  ),
  perfSchemaEnabled: def(
    "config",
    "gauge",
    "untorn_perf_schema_enabled",
    "Whether performance_schema is on (1) or off (0); MariaDB ships it off and it can only be enabled at startup.",
    none,
  ),

  // ---- perf_schema.file_io: file_summary_by_event_name / file_summary_by_instance ----
  fileIoInstrumented: def(
    "perf_schema.file_io",
    "gauge",
    "untorn_perf_schema_file_io_instrumented",
    "1 when the file class has an enabled and timed instrument, 0 when it does not or performance_schema is off.",
    ["class"] as const,
  ),
  fileReads: def(
    "perf_schema.file_io",
    "counter",
    "untorn_perf_schema_file_reads_total",
    "Read operations per file class (COUNT_READ). On MariaDB doublewrite I/O is counted under system_tablespace.",
    ["class"] as const,
  ),
  fileWrites: def(
    "perf_schema.file_io",
    "counter",
    "untorn_perf_schema_file_writes_total",
    "Write operations per file class (COUNT_WRITE). On MariaDB doublewrite I/O is counted under system_tablespace.",
    ["class"] as const,
  ),
  fileMisc: def(
    "perf_schema.file_io",
    "counter",
    "untorn_perf_schema_file_misc_total",
    "Other file operations per file class (COUNT_MISC: mostly fsync for InnoDB files, also open/close/stat).",
    ["class"] as const,
  ),
  fileReadSeconds: def(
    "perf_schema.file_io",
    "counter",
    "untorn_perf_schema_file_read_seconds_total",
    "Time spent reading per file class (SUM_TIMER_READ), in seconds.",
    ["class"] as const,
  ),
  fileWriteSeconds: def(
    "perf_schema.file_io",
    "counter",
    "untorn_perf_schema_file_write_seconds_total",
    "Time spent writing per file class (SUM_TIMER_WRITE), in seconds.",
    ["class"] as const,
  ),
  fileMiscSeconds: def(
    "perf_schema.file_io",
    "counter",
    "untorn_perf_schema_file_misc_seconds_total",
    "Time spent in other file operations per file class (SUM_TIMER_MISC, mostly fsync), in seconds.",
    ["class"] as const,
  ),
  fileReadBytes: def(
    "perf_schema.file_io",
    "counter",
    "untorn_perf_schema_file_read_bytes_total",
    "Bytes read per file class (SUM_NUMBER_OF_BYTES_READ).",
    ["class"] as const,
  ),
  fileWriteBytes: def(
    "perf_schema.file_io",
    "counter",
    "untorn_perf_schema_file_write_bytes_total",
    "Bytes written per file class (SUM_NUMBER_OF_BYTES_WRITE).",
    ["class"] as const,
  ),

  // ---- perf_schema.waits: events_waits_summary_global_by_event_name ----
  dblwrMutexInstrumented: def(
    "perf_schema.waits",
    "gauge",
    "untorn_perf_schema_dblwr_mutex_instrumented",
    "1 when the doublewrite mutex instrument is enabled and timed, else 0 (InnoDB mutex instruments are off by default).",
    ["mutex"] as const,
  ),
  dblwrMutexWaits: def(
    "perf_schema.waits",
    "counter",
    "untorn_perf_schema_dblwr_mutex_waits_total",
    "Waits on the doublewrite mutex (dblwr_mutex on MySQL 8.0.20+, buf_dblwr_mutex on older MySQL and MariaDB).",
    ["mutex"] as const,
  ),
  dblwrMutexWaitSeconds: def(
    "perf_schema.waits",
    "counter",
    "untorn_perf_schema_dblwr_mutex_wait_seconds_total",
    "Time spent waiting on the doublewrite mutex, in seconds.",
    ["mutex"] as const,
  ),

  // ---- innodb_metrics.dblwr: information_schema.INNODB_METRICS subsystem dblwr (MySQL 8.0.20+) ----
  innodbMetricsDblwrEnabled: def(
    "innodb_metrics.dblwr",
    "gauge",
    "untorn_innodb_metrics_dblwr_enabled",
    "1 when the dblwr INNODB_METRICS module exists and is enabled (innodb_monitor_enable='module_dblwr'), else 0.",
    none,
  ),
  innodbMetricsDblwr: def(
    "innodb_metrics.dblwr",
    "counter",
    "untorn_innodb_metrics_dblwr_events_total",
    "INNODB_METRICS dblwr counters by name: async_requests, sync_requests, flush_requests, flush_wait_events (threads that waited for a running batch).",
    ["event"] as const,
  ),

  // ---- replication: SHOW REPLICA STATUS / SHOW [ALL] SLAVE[S] STATUS, processlist, gtid variables ----
  replicationRole: def(
    "replication",
    "gauge",
    "untorn_replication_role",
    "1 for the server's replication role, 0 for the others: replica when a replication channel is configured, else primary when a replica is connected (a binlog dump thread), else standalone.",
    ["role"] as const,
  ),
  replicationConnectedReplicas: def(
    "replication",
    "gauge",
    "untorn_replication_connected_replicas",
    "Replicas connected now: binlog dump threads in the process list (needs PROCESS to see other users' threads).",
    none,
  ),
  replicationLagSeconds: def(
    "replication",
    "gauge",
    "untorn_replication_lag_seconds",
    "Seconds_Behind_Source (Seconds_Behind_Master) per channel; absent while the SQL or I/O thread is stopped (the server reports NULL), never 0 for unknown.",
    ["channel"] as const,
  ),
  replicationIoThreadRunning: def(
    "replication",
    "gauge",
    "untorn_replication_io_thread_running",
    "1 when the channel's receiver (I/O) thread runs and is connected (Replica_IO_Running / Slave_IO_Running = Yes), else 0.",
    ["channel"] as const,
  ),
  replicationIoThreadConnecting: def(
    "replication",
    "gauge",
    "untorn_replication_io_thread_connecting",
    "1 when the channel's receiver (I/O) thread runs but is not connected to its source (Connecting), else 0.",
    ["channel"] as const,
  ),
  replicationSqlThreadRunning: def(
    "replication",
    "gauge",
    "untorn_replication_sql_thread_running",
    "1 when the channel's applier (SQL) thread runs (Replica_SQL_Running / Slave_SQL_Running = Yes), else 0.",
    ["channel"] as const,
  ),
  replicationLastIoErrno: def(
    "replication",
    "gauge",
    "untorn_replication_last_io_errno",
    "Last_IO_Errno of the channel: the last receiver error number, 0 when none.",
    ["channel"] as const,
  ),
  replicationLastSqlErrno: def(
    "replication",
    "gauge",
    "untorn_replication_last_sql_errno",
    "Last_SQL_Errno of the channel: the last applier error number, 0 when none.",
    ["channel"] as const,
  ),
  replicationSourceServerId: def(
    "replication",
    "gauge",
    "untorn_replication_source_server_id",
    "server_id of the channel's source (Source_Server_Id / Master_Server_Id); 0 before the first connection.",
    ["channel"] as const,
  ),
  replicationGtidSequence: def(
    "replication",
    "gauge",
    "untorn_replication_gtid_sequence",
    "MariaDB: sequence number per GTID replication domain of gtid_binlog_pos, gtid_current_pos and gtid_slave_pos (the server_id part is left out: it changes on every switchover).",
    ["domain_id", "position"] as const,
  ),
  replicationGtidExecutedTransactions: def(
    "replication",
    "gauge",
    "untorn_replication_gtid_executed_transactions",
    "MySQL with gtid_mode ON: transactions in gtid_executed, summed over every source UUID (the UUIDs are left out as labels).",
    none,
  ),
  replicationGtidRetrievedTransactions: def(
    "replication",
    "gauge",
    "untorn_replication_gtid_retrieved_transactions",
    "MySQL with gtid_mode ON: transactions in the channel's Retrieved_Gtid_Set (received from the source into the relay log, applied or not).",
    ["channel"] as const,
  ),

  // ---- host.storage: /proc/self/mountinfo, /sys/block, statfs, ext4 superblock ----
  storageDatadirVisible: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_datadir_visible",
    "1 when the server's datadir exists on this host's file systems (exporter beside the server), else 0.",
    none,
  ),
  storageInfo: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_info",
    "Always 1; the device and file system behind the datadir. disks lists the whole disks under partitions, device-mapper and loop devices (the backing file's disks).",
    ["device", "disks", "fstype", "mountpoint", "mount_options", "model"] as const,
  ),
  storageFsBlockSize: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_fs_block_size_bytes",
    "File system block size of the datadir's file system.",
    none,
  ),
  storageFsClusterSize: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_fs_cluster_size_bytes",
    "ext4 allocation cluster size (bigalloc); equals the block size without bigalloc. Absent when it cannot be read.",
    none,
  ),
  storageLogicalBlockSize: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_logical_block_size_bytes",
    "Logical block size of the datadir's block device (queue/logical_block_size).",
    none,
  ),
  storagePhysicalBlockSize: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_physical_block_size_bytes",
    "Physical block size of the datadir's block device (queue/physical_block_size).",
    none,
  ),
  storageAtomicWriteSupported: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_atomic_write_attributes_present",
    "1 when the kernel exposes queue/atomic_write_* (Linux 6.11+), 0 when it does not: then atomic limits are unknown, not zero.",
    none,
  ),
  storageAtomicWriteUnitMin: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_atomic_write_unit_min_bytes",
    "queue/atomic_write_unit_min_bytes; 0 means the device offers no atomic writes.",
    none,
  ),
  storageAtomicWriteUnitMax: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_atomic_write_unit_max_bytes",
    "queue/atomic_write_unit_max_bytes: the largest single atomic write; must be >= innodb_page_size to drop doublewrite.",
    none,
  ),
  storageAtomicWriteMax: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_atomic_write_max_bytes",
    "queue/atomic_write_max_bytes.",
    none,
  ),
  storageAtomicWriteBoundary: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_atomic_write_boundary_bytes",
    "queue/atomic_write_boundary_bytes; 0 means no boundary.",
    none,
  ),
  storageMaxIoBytes: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_max_io_bytes",
    "queue/max_sectors_kb x 1024: larger writes are split by the block layer, which can break page atomicity (docs/reference/atomic-storage.md §8.7).",
    none,
  ),
  storagePartitionStart: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_partition_start_bytes",
    "Start of the datadir's partition on its disk (start x 512); a multiple of the page size keeps pages aligned. Absent for whole disks.",
    none,
  ),
  storageWriteCache: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_write_cache_volatile",
    "1 when queue/write_cache says 'write back' (volatile cache, flushes needed), 0 for 'write through'.",
    none,
  ),
  storageRotational: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_rotational",
    "queue/rotational: 1 for spinning disks.",
    none,
  ),
  storageReads: def(
    "host.storage",
    "counter",
    "untorn_host_storage_reads_completed_total",
    "Reads completed by the datadir's device (/sys/block/.../stat field 1).",
    none,
  ),
  storageWrites: def(
    "host.storage",
    "counter",
    "untorn_host_storage_writes_completed_total",
    "Writes completed by the datadir's device (stat field 5): rate() gives write IOPS.",
    none,
  ),
  storageReadBytes: def(
    "host.storage",
    "counter",
    "untorn_host_storage_read_bytes_total",
    "Bytes read by the datadir's device (sectors x 512).",
    none,
  ),
  storageWrittenBytes: def(
    "host.storage",
    "counter",
    "untorn_host_storage_written_bytes_total",
    "Bytes written by the datadir's device (sectors x 512).",
    none,
  ),
  storageReadSeconds: def(
    "host.storage",
    "counter",
    "untorn_host_storage_read_seconds_total",
    "Time spent on reads by the datadir's device, in seconds.",
    none,
  ),
  storageWriteSeconds: def(
    "host.storage",
    "counter",
    "untorn_host_storage_write_seconds_total",
    "Time spent on writes by the datadir's device, in seconds.",
    none,
  ),
  storageIoSeconds: def(
    "host.storage",
    "counter",
    "untorn_host_storage_io_time_seconds_total",
    "Time the datadir's device had I/O in flight, in seconds: rate() gives utilisation (0-1).",
    none,
  ),
  storageIoInProgress: def(
    "host.storage",
    "gauge",
    "untorn_host_storage_io_in_progress",
    "I/Os in flight on the datadir's device right now.",
    none,
  ),
  storageFlushes: def(
    "host.storage",
    "counter",
    "untorn_host_storage_flushes_completed_total",
    "Flush (cache sync) requests completed by the datadir's device (stat field 16, Linux 5.5+).",
    none,
  ),
  storageFlushSeconds: def(
    "host.storage",
    "counter",
    "untorn_host_storage_flush_seconds_total",
    "Time spent on flush requests by the datadir's device, in seconds.",
    none,
  ),
} as const;

export type MetricKey = keyof typeof metrics;

/** All metric definitions as a list, in declaration order. */
export const metricList: readonly MetricDef[] = Object.values(metrics);
