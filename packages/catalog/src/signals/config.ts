/** Configuration signals: server identity, doublewrite mode and the InnoDB settings, read as they are. */
import { fallbackMetrics as F } from "../fallback-metrics.js";
import { metrics as M } from "../metrics.js";
import { instant, labelReplace, maxBy, vec, where } from "../promql.js";
import { gaugeOf } from "./component.js";
import { type DirectSpec, gaugeSignal, infoSignal, MYSQL_ONLY_8020 } from "./signal.js";

export const directSpecs = {
  server_info: {
    title: "Server",
    description:
      "Flavor (mysql, mariadb, percona), version and managed service (rds, aurora, none) as labels. Fallback from mysql_version_info: flavor from the version strings, managed unknown.",
    unit: "info",
    group: "config",
    metrics: ["serverInfo"],
    labels: ["flavor", "version", "managed"],
    windowed: false,
    untorn: (s) => maxBy(["flavor", "version", "managed"], instant(s, M.serverInfo.name)),
    fallback: {
      metrics: ["versionInfo"],
      render: (s) => {
        let v = vec(instant(s, F.versionInfo.name));
        v = labelReplace(v, "flavor", "mysql", "version", ".*");
        v = labelReplace(v, "flavor", "percona", "version_comment", "(?i).*percona.*");
        v = labelReplace(v, "flavor", "mariadb", "version", "(?i).*mariadb.*");
        v = labelReplace(v, "managed", "unknown", "", "");
        return maxBy(["flavor", "version", "managed"], v.q);
      },
    },
  },
  doublewrite_mode: {
    title: "Doublewrite mode",
    description:
      "innodb_doublewrite as label `mode`: on, off, detect_and_recover, detect_only (MySQL 8.0.30+), fast (MariaDB 11.0.6+). The mysqld_exporter fallback only knows on and off (docs/reference/mysqld-exporter.md §7.2).",
    unit: "info",
    group: "config",
    metrics: ["doublewriteMode"],
    labels: ["mode"],
    windowed: false,
    untorn: (s) => maxBy(["mode"], `${instant(s, M.doublewriteMode.name)} == 1`),
    fallback: {
      metrics: ["doublewrite"],
      render: (s) =>
        vec(
          `${labelReplace(where(gaugeOf(s, F.doublewrite.name), "==", 1), "mode", "on", "", "").q} or ${
            labelReplace(
              vec(`(${where(gaugeOf(s, F.doublewrite.name), "==", 0).q}) + 1`),
              "mode",
              "off",
              "",
              "",
            ).q
          }`,
          ["mode"],
          false,
        ),
    },
  },
  innodb_config_info: infoSignal(
    "innodbConfigInfo",
    "InnoDB configuration",
    "config",
    "Raw variable strings mysqld_exporter drops: doublewrite, doublewrite_dir, flush_method, use_atomic_writes, data_file_buffering, data_file_write_through, use_fdatasync, page_size.",
    M.innodbConfigInfo.labels,
  ),
  doublewrite_enabled: gaugeSignal(
    "doublewriteEnabled",
    "Doublewrite enabled",
    "bool",
    "config",
    "1 when full page copies go through the doublewrite buffer (on, detect_and_recover, fast), 0 when not (off, detect_only). Fallback: innodb_doublewrite 1/0, absent for DETECT_* and fast.",
    "doublewrite",
  ),
  page_size_bytes: gaugeSignal(
    "pageSizeBytes",
    "Page size",
    "bytes",
    "config",
    "innodb_page_size.",
    "pageSize",
  ),
  doublewrite_pages_setting: gaugeSignal(
    "doublewritePages",
    "innodb_doublewrite_pages",
    "pages",
    "config",
    "innodb_doublewrite_pages (MySQL 8.0.20+): 4 by default before 8.4, 128 from 8.4 (docs/reference/mysql.md §1.4).",
    "doublewritePages",
    MYSQL_ONLY_8020,
  ),
  doublewrite_files: gaugeSignal(
    "doublewriteFiles",
    "innodb_doublewrite_files",
    "count",
    "config",
    "innodb_doublewrite_files (MySQL 8.0.20+).",
    undefined,
    MYSQL_ONLY_8020,
  ),
  buffer_pool_size_bytes: gaugeSignal(
    "bufferPoolSizeBytes",
    "Buffer pool size",
    "bytes",
    "config",
    "innodb_buffer_pool_size.",
    "bufferPoolSize",
  ),
  buffer_pool_instances: gaugeSignal(
    "bufferPoolInstances",
    "Buffer pool instances",
    "count",
    "config",
    "innodb_buffer_pool_instances (absent on MariaDB 10.6 and later, where it is always 1).",
  ),
  flush_log_at_trx_commit: gaugeSignal(
    "flushLogAtTrxCommit",
    "flush_log_at_trx_commit",
    "count",
    "config",
    "innodb_flush_log_at_trx_commit: 1 syncs redo at every commit, which hides doublewrite's extra fsyncs (docs/reference/iops-metering.md §11).",
    "flushLogAtTrxCommit",
  ),
  io_capacity: gaugeSignal(
    "ioCapacity",
    "innodb_io_capacity",
    "ops/s",
    "config",
    "innodb_io_capacity.",
    "ioCapacity",
  ),
  io_capacity_max: gaugeSignal(
    "ioCapacityMax",
    "innodb_io_capacity_max",
    "ops/s",
    "config",
    "innodb_io_capacity_max.",
  ),
  write_io_threads: gaugeSignal(
    "writeIoThreads",
    "Write I/O threads",
    "count",
    "config",
    "innodb_write_io_threads.",
  ),
  redo_log_capacity_bytes: gaugeSignal(
    "redoLogCapacityBytes",
    "Redo log capacity",
    "bytes",
    "config",
    "innodb_redo_log_capacity, or log file size × files.",
  ),
  use_atomic_writes: gaugeSignal(
    "useAtomicWrites",
    "innodb_use_atomic_writes",
    "bool",
    "config",
    "MariaDB innodb_use_atomic_writes; only Fusion-io, Shannon and ScaleFlux devices honour it (docs/reference/mariadb.md §2.3).",
    undefined,
    { flavors: ["mariadb"] },
  ),
  perf_schema_enabled: gaugeSignal(
    "perfSchemaEnabled",
    "performance_schema",
    "bool",
    "config",
    "Whether performance_schema is on; MariaDB ships it off and enables it only at startup (docs/reference/performance-schema.md §5.1).",
    "perfSchema",
  ),
  uptime_seconds: gaugeSignal(
    "uptime",
    "Uptime",
    "seconds",
    "config",
    "Seconds since the server started.",
    "uptime",
  ),
} as const satisfies Record<string, DirectSpec>;
