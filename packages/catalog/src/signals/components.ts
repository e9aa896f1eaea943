/**
 * Every component (one counter rate or gauge, untorn-exporter's series with its fallback), and how one is
 * rendered for a scope.
 */
import { DBLWR_MUTEX_EVENTS, fallbackMetrics as F, FILE_EVENT_CLASSES } from "../fallback-metrics.js";
import { FILE_CLASSES, metrics as M } from "../metrics.js";
import {
  binary,
  call,
  checkWindow,
  instant,
  maxBy,
  onlyWhere,
  orElse,
  range,
  re,
  renderMatchers,
  type Selector,
  scale,
  unlessWhere,
  type Vec,
  vec,
  where,
} from "../promql.js";
import {
  type Component,
  counter,
  DEFAULT_WINDOW,
  dblwrClassInstrumented,
  type ExprOptions,
  gauge,
  gaugeOf,
  nodeDisks,
  perClass,
  RULE_WINDOW,
  rateOf,
  rec,
  recGauge,
  type SignalScope,
  untornCounter,
  writeAndMiscSeconds,
} from "./component.js";

export const components = {
  dblwrPages: counter("dblwr_pages", "dblwrPagesWritten", "dblwrPagesWritten", {
    record: rec("untorn_doublewrite_pages"),
  }),
  dblwrWrites: counter("dblwr_writes", "dblwrWrites", "dblwrWrites", {
    record: rec("untorn_doublewrite_writes"),
  }),
  pagesFlushed: counter("pages_flushed", "bufferPoolPagesFlushed", "bufferPoolPageChanges", {
    record: rec("untorn_pages_flushed"),
    fallbackExtra: { operation: "flushed" },
  }),
  dataWrites: counter("data_writes", "dataWrites", "dataWrites", {
    record: rec("untorn_innodb_data_writes"),
  }),
  dataWrittenBytes: counter("data_written_bytes", "dataWrittenBytes", "dataWritten", {
    record: rec("untorn_innodb_data_written_bytes"),
  }),
  dataFsyncs: counter("data_fsyncs", "dataFsyncs", "dataFsyncs", {
    record: rec("untorn_innodb_data_fsyncs"),
  }),
  redoWrittenBytes: counter("redo_written_bytes", "osLogWrittenBytes", "osLogWritten", {
    record: rec("untorn_redo_written_bytes"),
  }),
  freePageWaits: counter("free_page_waits", "bufferPoolWaitFree", "bufferPoolWaitFree", {
    record: rec("untorn_free_page_waits"),
  }),
  rowChanges: {
    id: "row_changes",
    labels: [],
    windowed: true,
    metrics: ["rowOperations", "handlerRowOperations"],
    // Innodb_rows_*, or the server's Handler_write/update/delete where the server has no Innodb_rows_*
    // (the MariaDB 10.11 recording in exporters/untorn-exporter/testdata has none).
    untorn: (s) =>
      orElse(
        rateOf(s, M.rowOperations.name, [], { operation: re("inserted|updated|deleted") }),
        rateOf(s, M.handlerRowOperations.name, [], { operation: re("write|update|delete") }),
      ),
    fallback: {
      metrics: ["rowOps", "handlers"],
      render: (s) =>
        orElse(
          rateOf(s, F.rowOps.name, [], { operation: re("inserted|updated|deleted") }),
          rateOf(s, F.handlers.name, [], { handler: re("write|update|delete") }),
        ),
    },
    record: rec("untorn_row_changes"),
  } satisfies Component,
  transactions: {
    id: "transactions",
    labels: [],
    windowed: true,
    metrics: ["commits", "rollbacks"],
    // COMMIT + ROLLBACK statements, as mysqld-mixin's transaction rate; autocommit statements are not
    // counted (use row changes for autocommit workloads).
    untorn: (s) => binary(rateOf(s, M.commits.name), "+", rateOf(s, M.rollbacks.name)),
    fallback: {
      metrics: ["commands"],
      render: (s) => rateOf(s, F.commands.name, [], { command: re("commit|rollback") }),
    },
    record: rec("untorn_transactions"),
  } satisfies Component,

  fileWriteBytes: perClass(
    "file_write_bytes",
    "fileWriteBytes",
    "fileEventsBytes",
    "write",
    rec("untorn_file_write_bytes"),
  ),
  fileWrites: perClass("file_writes", "fileWrites", "fileEvents", "write", rec("untorn_file_writes")),
  fileWriteSeconds: perClass(
    "file_write_seconds",
    "fileWriteSeconds",
    "fileEventsSeconds",
    "write",
    rec("untorn_file_write_seconds"),
  ),
  fileMisc: perClass("file_misc", "fileMisc", "fileEvents", "misc", rec("untorn_file_misc")),
  fileMiscSeconds: perClass(
    "file_misc_seconds",
    "fileMiscSeconds",
    "fileEventsSeconds",
    "misc",
    rec("untorn_file_misc_seconds"),
  ),

  dblwrIoWaitSeconds: {
    id: "dblwr_io_wait_seconds",
    labels: [],
    windowed: true,
    metrics: ["fileWriteSeconds", "fileMiscSeconds", "fileIoInstrumented"],
    // MySQL 8.0.20+ times doublewrite file I/O under its own instrument. MariaDB and MySQL < 8.0.20 keep
    // the doublewrite area in ibdata1, so the system tablespace class is the (contaminated) proxy
    // there (docs/reference/mariadb.md §2.1, docs/reference/performance-schema.md §5.1, §5.3).
    untorn: (s) =>
      orElse(
        onlyWhere(writeAndMiscSeconds(s, [{ class: "doublewrite" }]), dblwrClassInstrumented(s)),
        unlessWhere(writeAndMiscSeconds(s, [{ class: "system_tablespace" }]), dblwrClassInstrumented(s)),
      ),
    fallback: {
      metrics: ["fileEventsSeconds"],
      render: (s) =>
        rateOf(s, F.fileEventsSeconds.name, [], {
          event_name: "wait/io/file/innodb/innodb_dblwr_file",
          mode: re("write|misc"),
        }),
    },
    record: rec("untorn_doublewrite_io_wait_seconds"),
  } satisfies Component,
  fileIoWaitSeconds: {
    id: "file_io_wait_seconds",
    labels: [],
    windowed: true,
    metrics: ["fileWriteSeconds", "fileMiscSeconds"],
    untorn: (s) => writeAndMiscSeconds(s, []),
    fallback: {
      metrics: ["fileEventsSeconds"],
      render: (s) =>
        rateOf(s, F.fileEventsSeconds.name, [], {
          event_name: re(Object.keys(FILE_EVENT_CLASSES).join("|")),
          mode: re("write|misc"),
        }),
    },
    record: rec("untorn_file_io_wait_seconds"),
  } satisfies Component,
  dblwrMutexWaitSeconds: {
    id: "dblwr_mutex_wait_seconds",
    labels: [],
    windowed: true,
    metrics: ["dblwrMutexWaitSeconds"],
    untorn: (s) => rateOf(s, M.dblwrMutexWaitSeconds.name),
    fallback: {
      metrics: ["eventsWaitsSeconds"],
      render: (s) => rateOf(s, F.eventsWaitsSeconds.name, [], { event_name: re(DBLWR_MUTEX_EVENTS) }),
    },
    record: rec("untorn_doublewrite_mutex_wait_seconds"),
  } satisfies Component,
  dblwrMutexWaits: {
    id: "dblwr_mutex_waits",
    labels: [],
    windowed: true,
    metrics: ["dblwrMutexWaits"],
    untorn: (s) => rateOf(s, M.dblwrMutexWaits.name),
    fallback: {
      metrics: ["eventsWaits"],
      render: (s) => rateOf(s, F.eventsWaits.name, [], { event_name: re(DBLWR_MUTEX_EVENTS) }),
    },
  } satisfies Component,
  dblwrFlushWaitEvents: counter("dblwr_flush_wait_events", "innodbMetricsDblwr", "dblwrFlushWaitEvents", {
    extra: { event: "flush_wait_events" },
    fallbackExtra: {},
    record: rec("untorn_doublewrite_flush_wait_events"),
  }),

  deviceWrites: {
    id: "device_writes",
    labels: [],
    windowed: true,
    metrics: ["storageWrites"],
    untorn: (s) => rateOf(s, M.storageWrites.name),
    fallback: { metrics: ["diskWrites"], render: (s) => rateOf(s, F.diskWrites.name, [], nodeDisks) },
    record: rec("untorn_device_writes"),
  } satisfies Component,
  deviceWrittenBytes: {
    id: "device_written_bytes",
    labels: [],
    windowed: true,
    metrics: ["storageWrittenBytes"],
    untorn: (s) => rateOf(s, M.storageWrittenBytes.name),
    fallback: {
      metrics: ["diskWrittenBytes"],
      render: (s) => rateOf(s, F.diskWrittenBytes.name, [], nodeDisks),
    },
    record: rec("untorn_device_written_bytes"),
  } satisfies Component,
  deviceBusy: {
    id: "device_busy",
    labels: [],
    windowed: true,
    metrics: ["storageIoSeconds"],
    // Busiest whole disk for the fallback: utilisation does not add up across disks.
    untorn: (s) => maxBy([], `rate(${range(s, M.storageIoSeconds.name)})`),
    fallback: {
      metrics: ["diskIoTime"],
      render: (s) => maxBy([], `rate(${range(s, F.diskIoTime.name, nodeDisks)})`),
    },
    record: rec("untorn_device_utilisation"),
  } satisfies Component,
  deviceFlushes: {
    id: "device_flushes",
    labels: [],
    windowed: true,
    metrics: ["storageFlushes"],
    untorn: (s) => rateOf(s, M.storageFlushes.name),
    fallback: { metrics: ["diskFlushes"], render: (s) => rateOf(s, F.diskFlushes.name, [], nodeDisks) },
    record: rec("untorn_device_flushes"),
  } satisfies Component,
  deviceFlushSeconds: {
    id: "device_flush_seconds",
    labels: [],
    windowed: true,
    metrics: ["storageFlushSeconds"],
    untorn: (s) => rateOf(s, M.storageFlushSeconds.name),
    fallback: {
      metrics: ["diskFlushSeconds"],
      render: (s) => rateOf(s, F.diskFlushSeconds.name, [], nodeDisks),
    },
    record: rec("untorn_device_flush_seconds"),
  } satisfies Component,

  checkpointAge: {
    id: "checkpoint_age",
    labels: [],
    windowed: false,
    metrics: ["checkpointAgeBytes"],
    untorn: (s) => gaugeOf(s, M.checkpointAgeBytes.name),
    fallback: {
      metrics: ["checkpointAge", "redoCurrentLsn", "redoCheckpointLsn"],
      // MariaDB 10.5+ reports the age; MySQL 8.0.30+ reports the two LSNs (docs/reference/status-counters.md §4).
      render: (s) =>
        orElse(
          gaugeOf(s, F.checkpointAge.name),
          binary(gaugeOf(s, F.redoCurrentLsn.name), "-", gaugeOf(s, F.redoCheckpointLsn.name)),
        ),
    },
    record: recGauge("untorn_checkpoint_age_bytes"),
  } satisfies Component,
  checkpointMaxAge: {
    id: "checkpoint_max_age",
    labels: [],
    windowed: false,
    metrics: ["checkpointMaxAgeBytes"],
    untorn: (s) => gaugeOf(s, M.checkpointMaxAgeBytes.name),
    fallback: {
      metrics: ["checkpointMaxAge", "redoCapacityResized"],
      render: (s) => orElse(gaugeOf(s, F.checkpointMaxAge.name), gaugeOf(s, F.redoCapacityResized.name)),
    },
    record: recGauge("untorn_checkpoint_max_age_bytes"),
  } satisfies Component,
  pageSize: gauge("page_size", "pageSizeBytes", "pageSize"),
  batchCapacity: {
    id: "batch_capacity",
    labels: [],
    windowed: false,
    metrics: ["doublewritePages", "pageSizeBytes", "serverInfo"],
    // MySQL 8.0.20+: innodb_doublewrite_pages (docs/reference/mysql.md §1.6). MariaDB: one batch fills both ibdata1
    // blocks of FSP_EXTENT_SIZE pages, 2 x max(64, 1 MiB / page size) = 128 at 16 KiB (docs/reference/mariadb.md §2.1;
    // maria-src buf0dblwr.cc add_to_batch, buf_size = 2 * block_size). MySQL < 8.0.20: unknown, absent.
    untorn: (s) =>
      orElse(
        where(gaugeOf(s, M.doublewritePages.name), ">", 0),
        onlyWhere(
          mariadbCapacity(gaugeOf(s, M.pageSizeBytes.name)),
          gaugeOf(s, M.serverInfo.name, [], { flavor: "mariadb" }),
        ),
      ),
    fallback: {
      metrics: ["doublewritePages", "pageSize", "versionInfo"],
      render: (s) =>
        orElse(
          where(gaugeOf(s, F.doublewritePages.name), ">", 0),
          onlyWhere(
            mariadbCapacity(gaugeOf(s, F.pageSize.name)),
            gaugeOf(s, F.versionInfo.name, [], { version: re(".*MariaDB.*") }),
          ),
        ),
    },
  } satisfies Component,
  doublewriteEnabled: gauge("doublewrite_enabled", "doublewriteEnabled", "doublewrite"),
  uptime: gauge("uptime", "uptime", "uptime"),
  mysqlUp: gauge("mysql_up", "mysqlUp", "mysqlUp"),
  atomicUnitMax: gauge("atomic_write_unit_max", "storageAtomicWriteUnitMax"),
  atomicAttributesPresent: gauge("atomic_write_attributes_present", "storageAtomicWriteSupported"),
  rotational: gauge("rotational", "storageRotational"),

  // untorn-exporter only (no fallback yet): recorded for the fleet profile's window statistics.
  dataReads: untornCounter("data_reads", "dataReads", rec("untorn_innodb_data_reads")),
  dataReadBytes: untornCounter("data_read_bytes", "dataReadBytes", rec("untorn_innodb_data_read_bytes")),
  pagesWritten: untornCounter("pages_written", "pagesWritten", rec("untorn_pages_written")),
  logWrites: untornCounter("log_writes", "logWrites", rec("untorn_log_writes")),
  logWaits: untornCounter("log_waits", "logWaits", rec("untorn_log_waits")),
  osLogFsyncs: untornCounter("os_log_fsyncs", "osLogFsyncs", rec("untorn_os_log_fsyncs")),
  handlerCommits: untornCounter("handler_commits", "handlerCommits", rec("untorn_handler_commits")),
  queries: untornCounter("queries", "queries", rec("untorn_queries")),
  rowOperations: untornCounter("row_operations", "rowOperations", rec("untorn_row_operations"), [
    "operation",
  ]),
  deviceReads: untornCounter("device_reads", "storageReads", rec("untorn_device_reads")),
  deviceReadBytes: untornCounter("device_read_bytes", "storageReadBytes", rec("untorn_device_read_bytes")),
  deviceReadSeconds: untornCounter(
    "device_read_seconds",
    "storageReadSeconds",
    rec("untorn_device_read_seconds"),
  ),
  deviceWriteSeconds: untornCounter(
    "device_write_seconds",
    "storageWriteSeconds",
    rec("untorn_device_write_seconds"),
  ),
  dirtyPages: gauge("dirty_pages", "bufferPoolPagesDirty", undefined, {
    record: recGauge("untorn_buffer_pool_dirty_pages"),
  }),
  bufferPoolPages: gauge("buffer_pool_pages", "bufferPoolPagesTotal", undefined, {
    record: recGauge("untorn_buffer_pool_pages"),
  }),
  pendingFsyncs: gauge("pending_fsyncs", "dataPendingFsyncs", undefined, {
    record: recGauge("untorn_pending_fsyncs"),
  }),
  deviceIoInProgress: gauge("device_io_in_progress", "storageIoInProgress", undefined, {
    record: recGauge("untorn_device_io_in_progress"),
  }),
} as const satisfies Record<string, Component>;

function mariadbCapacity(pageSize: Vec): Vec {
  return scale(call("clamp_min", vec(`1048576 / ${pageSize.q}`, pageSize.labels, false), 64), 2);
}

export type ComponentKey = keyof typeof components;

/** Series every scraped instance has, from either exporter: for instance lists and Grafana variables. */
export const PRESENCE_METRICS: readonly string[] = [M.mysqlUp.name, F.mysqlUp.name];

/** `{__name__=~"untorn_mysql_up|mysql_up", <selector>}`: one series per instance and exporter. */
export function presenceSelector(selector: Selector = {}): string {
  return `{${renderMatchers({ __name__: re(PRESENCE_METRICS.join("|")) }, selector)}}`;
}
export const componentList: readonly Component[] = Object.values(components);

// ---- rendering ----

export function scopeOf(opts: ExprOptions): SignalScope {
  for (const cls of opts.classes ?? []) {
    if (!FILE_CLASSES.includes(cls)) throw new Error(`unknown file class ${cls}`);
  }
  return {
    selector: opts.selector ?? {},
    window: checkWindow(opts.window ?? DEFAULT_WINDOW),
    offset: opts.offset === undefined ? undefined : checkWindow(opts.offset),
    classes: opts.classes,
  };
}

/** The recorded series of a rule, read with the scope's selector and offset. */
export const recordedVec = (s: SignalScope, record: string, labels: readonly string[]): Vec =>
  vec(instant(s, record), labels);

export function canUseRecorded(opts: ExprOptions, s: SignalScope): boolean {
  return opts.recorded === true && (opts.source ?? "any") === "any" && s.window === RULE_WINDOW && !s.classes;
}

export function renderComponent(c: Component, opts: ExprOptions, s: SignalScope): Vec | null {
  if (c.record && canUseRecorded(opts, s)) return recordedVec(s, c.record, c.labels);
  const source = opts.source ?? "any";
  if (source === "untorn") return c.untorn(s);
  if (!c.fallback) return source === "fallback" ? null : c.untorn(s);
  if (source === "fallback") return c.fallback.render(s);
  return orElse(c.untorn(s), c.fallback.render(s));
}

/** One component rendered on its own (recording rules store components this way). */
export function componentExpr(key: ComponentKey, opts: ExprOptions = {}): string {
  const c: Component = components[key];
  const v = renderComponent(c, opts, scopeOf(opts));
  if (!v) throw new Error(`component ${c.id} has no ${opts.source} form`);
  return v.q;
}
