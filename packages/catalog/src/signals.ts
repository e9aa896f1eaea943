/**
 * Named signals: every PromQL expression the dashboards, alerts, CLI and web app use.
 *
 * A signal is built from components (one counter rate or gauge each). A component reads untorn-exporter's
 * series and, where one exists, has a fallback on mysqld_exporter / node_exporter series. Rendering:
 *
 *   signals.doublewrite_pages_per_second.expr({ selector: { instance: "db1" }, window: "5m" })
 *
 * - Every result has one series per `instance` (`sum by (instance)` / `max by (instance)`), plus `class`
 *   for per-file-class signals, so a fleet query is one request whatever the fleet size. The selector
 *   narrows it to one instance (or a regex, a cluster, ...); it is ANDed into every series selector.
 * - `window` is the rate() range (default 5m): a PromQL duration or a Grafana variable such as
 *   `$__rate_interval`. Gauge signals read the latest sample and ignore it.
 * - `offset` shifts every selector back in time (before/after comparisons).
 * - `source`: "untorn" (untorn-exporter only), "fallback" (other exporters only; throws when a signal
 *   has none) or "any" (default): per component, untorn-exporter's series where the instance has them,
 *   else the fallback's.
 * - `recorded: true` reads the recording rules of rules.ts in place of the raw rate where the signal or
 *   its components have one and the window is the rules' 5m (source "any" only): cheap fleet queries.
 * - `classes` restricts per-class signals to some file classes.
 */

import { FLAVOR_NAMES, FLAVORS, type Flavor } from "@untorn/vocabulary/words";
import {
  DBLWR_MUTEX_EVENTS,
  fallbackMetrics as F,
  type FallbackExporter,
  type FallbackMetricKey,
  FILE_EVENT_CLASSES,
  NODE_WHOLE_DISKS,
} from "./fallback-metrics.js";
import { FILE_CLASSES, type FileClass, metrics as M, type MetricKey } from "./metrics.js";
import {
  addPresent,
  binary,
  call,
  checkWindow,
  compareBool,
  instant,
  labelReplace,
  maxBy,
  nre,
  onlyWhere,
  orElse,
  range,
  ratio,
  re,
  renderMatchers,
  type Scope,
  type Selector,
  scale,
  sumBy,
  unlessWhere,
  type Vec,
  vec,
  type Window,
  where,
} from "./promql.js";

export type Source = "untorn" | "fallback" | "any";

export interface ExprOptions {
  readonly selector?: Selector;
  readonly window?: Window;
  readonly offset?: Window;
  readonly source?: Source;
  readonly recorded?: boolean;
  readonly classes?: readonly FileClass[];
}

/** Default rate() window, and the window every recording rule uses. */
export const DEFAULT_WINDOW = "5m";
export const RULE_WINDOW = "5m";

export interface SignalScope extends Scope {
  readonly classes: readonly FileClass[] | undefined;
}

export interface Component {
  readonly id: string;
  /** Labels the component's series carry besides `instance`. */
  readonly labels: readonly string[];
  /** Whether the window matters (rates) or not (gauges). */
  readonly windowed: boolean;
  readonly metrics: readonly MetricKey[];
  readonly untorn: (s: SignalScope) => Vec;
  readonly fallback?: {
    readonly metrics: readonly FallbackMetricKey[];
    readonly render: (s: SignalScope) => Vec;
  };
  /** Recording rule that stores this component at RULE_WINDOW with source "any". */
  readonly record?: string;
}

// ---- component helpers ----

const rateOf = (s: SignalScope, metric: string, labels: readonly string[] = [], ...extra: Selector[]): Vec =>
  sumBy(labels, `rate(${range(s, metric, ...extra)})`);

const gaugeOf = (s: SignalScope, metric: string, labels: readonly string[] = [], ...extra: Selector[]): Vec =>
  maxBy(labels, instant(s, metric, ...extra));

const classSelector = (s: SignalScope): Selector[] => (s.classes ? [{ class: re(s.classes.join("|")) }] : []);

const eventNames = (s: SignalScope): string[] =>
  Object.entries(FILE_EVENT_CLASSES)
    .filter(([, cls]) => !s.classes || s.classes.includes(cls))
    .map(([event]) => event);

/** mysqld_exporter file_events by event_name, relabelled to untorn's file classes. */
function fileEventsByClass(s: SignalScope, metric: string, modes: string): Vec {
  const events = eventNames(s);
  let v = vec(`rate(${range(s, metric, { mode: re(modes), event_name: re(events.join("|")) })})`);
  for (const event of events) {
    v = labelReplace(
      v,
      "class",
      FILE_EVENT_CLASSES[event as keyof typeof FILE_EVENT_CLASSES],
      "event_name",
      event,
    );
  }
  return sumBy(["class"], v.q);
}

/**
 * How far a gauge moved in a range: `max_over_time - min_over_time`, above 0 when it changed. Used
 * instead of changes(), which VictoriaMetrics' MetricsQL counts on a series' first sample (every new
 * series would read as a change there); this form reads 0 for one sample on both backends.
 */
const valueRange = (rangeSelector: string): string =>
  `max_over_time(${rangeSelector}) - min_over_time(${rangeSelector})`;

const nodeDisks: Selector = { device: nre(NODE_WHOLE_DISKS) };

const rec = (name: string): string => `instance:${name}:rate${RULE_WINDOW}`;
/**
 * A gauge recorded per instance (`max by (instance)` at every rule evaluation), so window statistics read
 * one recorded series per instance instead of a subquery over raw series.
 */
const recGauge = (name: string): string => `instance:${name}:max`;

function counter(
  id: string,
  metric: MetricKey,
  fallback: FallbackMetricKey | undefined,
  opts: { record?: string; extra?: Selector; fallbackExtra?: Selector } = {},
): Component {
  const extra = opts.extra ? [opts.extra] : [];
  const fbExtra = opts.fallbackExtra ? [opts.fallbackExtra] : extra;
  return {
    id,
    labels: [],
    windowed: true,
    metrics: [metric],
    untorn: (s) => rateOf(s, M[metric].name, [], ...extra),
    ...(fallback
      ? {
          fallback: {
            metrics: [fallback],
            render: (s: SignalScope) => rateOf(s, F[fallback].name, [], ...fbExtra),
          },
        }
      : {}),
    ...(opts.record ? { record: opts.record } : {}),
  };
}

function gauge(
  id: string,
  metric: MetricKey,
  fallback?: FallbackMetricKey,
  opts: { record?: string } = {},
): Component {
  return {
    id,
    labels: [],
    windowed: false,
    metrics: [metric],
    untorn: (s) => gaugeOf(s, M[metric].name),
    ...(fallback
      ? { fallback: { metrics: [fallback], render: (s: SignalScope) => gaugeOf(s, F[fallback].name) } }
      : {}),
    ...(opts.record ? { record: opts.record } : {}),
  };
}

/** Counter rate of an untorn-exporter metric with no fallback, split by `labels` (recorded for the fleet's window statistics). */
function untornCounter(
  id: string,
  metric: MetricKey,
  record: string,
  labels: readonly string[] = [],
): Component {
  return {
    id,
    labels,
    windowed: true,
    metrics: [metric],
    untorn: (s) => rateOf(s, M[metric].name, labels),
    record,
  };
}

function perClass(
  id: string,
  metric: MetricKey,
  fallback: FallbackMetricKey,
  mode: string,
  record: string,
): Component {
  return {
    id,
    labels: ["class"],
    windowed: true,
    metrics: [metric],
    untorn: (s) => rateOf(s, M[metric].name, ["class"], ...classSelector(s)),
    fallback: { metrics: [fallback], render: (s) => fileEventsByClass(s, F[fallback].name, mode) },
    record,
  };
}

/** Doublewrite class time (write + misc) where it is instrumented. */
const dblwrClassInstrumented = (s: SignalScope): Vec =>
  where(gaugeOf(s, M.fileIoInstrumented.name, [], { class: "doublewrite" }), "==", 1);

const writeAndMiscSeconds = (s: SignalScope, cls: Selector[]): Vec =>
  binary(rateOf(s, M.fileWriteSeconds.name, [], ...cls), "+", rateOf(s, M.fileMiscSeconds.name, [], ...cls));

// ---- components ----

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

function scopeOf(opts: ExprOptions): SignalScope {
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
const recordedVec = (s: SignalScope, record: string, labels: readonly string[]): Vec =>
  vec(instant(s, record), labels);

function canUseRecorded(opts: ExprOptions, s: SignalScope): boolean {
  return opts.recorded === true && (opts.source ?? "any") === "any" && s.window === RULE_WINDOW && !s.classes;
}

function renderComponent(c: Component, opts: ExprOptions, s: SignalScope): Vec | null {
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

// ---- signals ----

export type SignalUnit =
  | "pages/s"
  | "batches/s"
  | "ops/s"
  | "fsyncs/s"
  | "transactions/s"
  | "rows/s"
  | "waits/s"
  | "bytes/s"
  | "seconds/s"
  | "seconds"
  | "bytes"
  | "pages"
  | "pages/batch"
  | "fsyncs/transaction"
  | "ops/transaction"
  | "bytes/transaction"
  | "ratio"
  | "bool"
  | "count"
  | "info"
  | "events";

/**
 * Where a signal has data, machine-readable (a live check can tell "no data by design" from a bug).
 * Absent fields mean no requirement.
 */
export interface Needs {
  /** Flavors with the data, and the first version where it differs from "any". */
  readonly flavors?: readonly Flavor[];
  readonly minVersion?: Readonly<Partial<Record<Flavor, string>>>;
  /** performance_schema on (MariaDB: set at startup). */
  readonly performanceSchema?: true;
  /** Meaningful values need the doublewrite mutex instrument enabled at startup (series exist, at 0, without). */
  readonly mutexInstrument?: true;
  /** MySQL innodb_monitor_enable='module_dblwr'. */
  readonly innodbMetricsDblwr?: true;
  /** untorn-exporter beside the server (host.storage), or node_exporter for the fallback. */
  readonly hostStorage?: true;
  /** Linux 6.11+ atomic write attributes in sysfs. */
  readonly atomicWriteAttributes?: true;
  /** Returns series only when an event happened in the window (annotations). */
  readonly event?: true;
  /** Has series only for a replica (a server with a replication channel). */
  readonly replica?: true;
}

/** Human-readable form of Needs, e.g. "MySQL 8.0.20+, MariaDB; performance_schema on". */
export function describeNeeds(n: Needs): string {
  const parts: string[] = [];
  const flavors = n.flavors ?? (n.minVersion ? FLAVORS : []);
  if (flavors.length) {
    parts.push(
      flavors.map((f) => `${FLAVOR_NAMES[f]}${n.minVersion?.[f] ? ` ${n.minVersion[f]}+` : ""}`).join(", "),
    );
  }
  if (n.performanceSchema) parts.push("performance_schema on");
  if (n.mutexInstrument) parts.push("doublewrite mutex instrument enabled at startup for non-zero values");
  if (n.innodbMetricsDblwr) parts.push("innodb_monitor_enable='module_dblwr'");
  if (n.hostStorage) parts.push("untorn-exporter beside the server (or node_exporter for the fallback)");
  if (n.atomicWriteAttributes) parts.push("Linux 6.11+ atomic write attributes");
  if (n.event) parts.push("only when the event happens");
  if (n.replica) parts.push("replicas only");
  return parts.join("; ");
}

export type SignalGroup =
  | "throughput"
  | "doublewrite"
  | "file_io"
  | "efficiency"
  | "device"
  | "pressure"
  | "config"
  | "storage"
  | "health"
  | "events";

interface SignalSpec {
  readonly title: string;
  readonly description: string;
  readonly unit: SignalUnit;
  readonly group: SignalGroup;
  readonly needs?: Needs;
  /** Recording rule for the whole signal (evaluated after the component rules). */
  readonly record?: string;
  readonly build: (c: (k: ComponentKey) => Vec, s: SignalScope) => Vec;
}

export interface Signal {
  readonly id: string;
  readonly title: string;
  readonly description: string;
  readonly unit: SignalUnit;
  readonly group: SignalGroup;
  readonly needs: Needs;
  /** describeNeeds(needs): where the data exists; empty means everywhere. */
  readonly requires: string;
  readonly record: string | undefined;
  /** Result labels besides `instance`. */
  readonly labels: readonly string[];
  /** Whether `window` changes the result. */
  readonly windowed: boolean;
  readonly components: readonly ComponentKey[];
  /** untorn-exporter metrics read (directly or through components). */
  readonly metrics: readonly MetricKey[];
  /** Exporters the fallback form reads, or null when the signal has no fallback form. */
  readonly fallback: readonly FallbackExporter[] | null;
  expr(opts?: ExprOptions): string;
  /** The expression as a vector, for composing alert expressions. */
  vec(opts?: ExprOptions): Vec;
  /** What the signal's own recording rule stores: the signal over its recorded components. */
  ruleExpr(): string;
}

/** Series not built from components: info metrics and other one-off selectors. */
interface DirectSpec extends Omit<SignalSpec, "build"> {
  readonly metrics: readonly MetricKey[];
  readonly labels: readonly string[];
  readonly windowed: boolean;
  readonly untorn: (s: SignalScope) => Vec;
  readonly fallback?: {
    readonly metrics: readonly FallbackMetricKey[];
    readonly render: (s: SignalScope) => Vec;
  };
}

const exportersOf = (keys: readonly FallbackMetricKey[]): FallbackExporter[] => [
  ...new Set(keys.map((k) => F[k].exporter)),
];

function makeSignal(id: string, spec: SignalSpec): Signal {
  const probe = scopeOf({});
  const used: ComponentKey[] = [];
  const out = spec.build((k) => {
    if (!used.includes(k)) used.push(k);
    return components[k].untorn(probe);
  }, probe);
  const comps = used.map((k) => components[k] as Component);
  const hasFallback = comps.every((c) => c.fallback);
  const fromComponents = (opts: ExprOptions): Vec => {
    const s = scopeOf(opts);
    if (opts.source === "fallback" && !hasFallback) throw new Error(`signal ${id} has no fallback form`);
    return spec.build((k) => renderComponent(components[k], opts, s) as Vec, s);
  };
  const render = (opts: ExprOptions = {}): Vec => {
    const s = scopeOf(opts);
    if (spec.record && canUseRecorded(opts, s)) return recordedVec(s, spec.record, out.labels);
    return fromComponents(opts);
  };
  return {
    id,
    title: spec.title,
    description: spec.description,
    unit: spec.unit,
    group: spec.group,
    needs: spec.needs ?? {},
    requires: describeNeeds(spec.needs ?? {}),
    record: spec.record,
    labels: out.labels,
    windowed: comps.some((c) => c.windowed),
    components: used,
    metrics: [...new Set(comps.flatMap((c) => c.metrics))],
    fallback: hasFallback ? exportersOf(comps.flatMap((c) => c.fallback?.metrics ?? [])) : null,
    expr: (opts) => render(opts).q,
    vec: render,
    ruleExpr: () => fromComponents({ window: RULE_WINDOW, recorded: true }).q,
  };
}

function makeDirect(id: string, spec: DirectSpec): Signal {
  const render = (opts: ExprOptions = {}): Vec => {
    const s = scopeOf(opts);
    const source = opts.source ?? "any";
    if (source === "untorn" || (!spec.fallback && source === "any")) return spec.untorn(s);
    if (!spec.fallback) throw new Error(`signal ${id} has no fallback form`);
    if (source === "fallback") return spec.fallback.render(s);
    return orElse(spec.untorn(s), spec.fallback.render(s));
  };
  return {
    id,
    title: spec.title,
    description: spec.description,
    unit: spec.unit,
    group: spec.group,
    needs: spec.needs ?? {},
    requires: describeNeeds(spec.needs ?? {}),
    record: undefined,
    labels: spec.labels,
    windowed: spec.windowed,
    components: [],
    metrics: spec.metrics,
    fallback: spec.fallback ? exportersOf(spec.fallback.metrics) : null,
    expr: (opts) => render(opts).q,
    vec: render,
    ruleExpr: () => render({ window: RULE_WINDOW }).q,
  };
}

/** A gauge read as is (configuration, storage facts). */
const gaugeSignal = (
  metric: MetricKey,
  title: string,
  unit: SignalUnit,
  group: SignalGroup,
  description: string,
  fallback?: FallbackMetricKey,
  needs?: Needs,
): DirectSpec => ({
  title,
  description,
  unit,
  group,
  metrics: [metric],
  labels: [],
  windowed: false,
  untorn: (s) => gaugeOf(s, M[metric].name),
  ...(fallback
    ? { fallback: { metrics: [fallback], render: (s: SignalScope) => gaugeOf(s, F[fallback].name) } }
    : {}),
  ...(needs ? { needs } : {}),
});

/** An info metric: value 1, the facts in its labels. */
const infoSignal = (
  metric: MetricKey,
  title: string,
  group: SignalGroup,
  description: string,
  labels: readonly string[],
  needs?: Needs,
): DirectSpec => ({
  ...(needs ? { needs } : {}),
  title,
  description,
  unit: "info",
  group,
  metrics: [metric],
  labels,
  windowed: false,
  untorn: (s) => maxBy(labels, instant(s, M[metric].name)),
});

/**
 * Both series of a channel, I/O and SQL thread: `or` matches on the labels without the metric name, so
 * each side gets a `thread` label first or the SQL side would be dropped wherever the I/O side exists.
 */
const bothThreads = (io: string, sql: string): string =>
  `label_replace(${io}, "thread", "io", "", "") or label_replace(${sql}, "thread", "sql", "", "")`;

const PS: Needs = { performanceSchema: true };
const REPLICA: Needs = { replica: true };
const MUTEX: Needs = { performanceSchema: true, mutexInstrument: true };
const MYSQL_8020 = { mysql: "8.0.20", percona: "8.0.20" } as const;
const MYSQL_ONLY_8020: Needs = { flavors: ["mysql", "percona"], minVersion: MYSQL_8020 };
const DBLWR_CAPACITY: Needs = { minVersion: MYSQL_8020 };
const CHECKPOINT: Needs = { minVersion: { mysql: "8.0.30", percona: "8.0.30", mariadb: "10.5" } };
const HOST: Needs = { hostStorage: true };
const EVENT: Needs = { event: true };

const specs = {
  // ---- throughput ----
  transactions_per_second: {
    title: "Transactions/s",
    description:
      "COMMIT and ROLLBACK statements per second (Com_commit + Com_rollback). Autocommit statements are not counted: for autocommit workloads use row changes.",
    unit: "transactions/s",
    group: "throughput",
    build: (c) => c("transactions"),
  },
  row_changes_per_second: {
    title: "Row changes/s",
    description:
      "InnoDB rows inserted, updated and deleted per second (Innodb_rows_*); where the server does not report those (MariaDB 10.11), rows written, updated and deleted through the storage engine handler (Handler_write/update/delete), which also counts other engines.",
    unit: "rows/s",
    group: "throughput",
    build: (c) => c("rowChanges"),
  },

  // ---- doublewrite ----
  doublewrite_pages_per_second: {
    title: "Doublewrite pages/s",
    description:
      "Pages written to the doublewrite area per second (Innodb_dblwr_pages_written). MySQL 8.0.20+ adds a batch when its last page completes; single-page flushes are not counted (docs/reference/mysql.md §1.6).",
    unit: "pages/s",
    group: "doublewrite",
    build: (c) => c("dblwrPages"),
  },
  doublewrite_batches_per_second: {
    title: "Doublewrite batches/s",
    description:
      "Doublewrite writes per second (Innodb_dblwr_writes): batches on MySQL; doublewrite I/Os on MariaDB, one per batch unless it spans both ibdata1 blocks (docs/reference/mysql.md §1.6, docs/reference/mariadb.md §2.1).",
    unit: "batches/s",
    group: "doublewrite",
    build: (c) => c("dblwrWrites"),
  },
  data_pages_flushed_per_second: {
    title: "Data pages flushed/s",
    description:
      "Buffer pool pages written to their data files per second (Innodb_buffer_pool_pages_flushed): the page writes the doublewrite buffer protects.",
    unit: "pages/s",
    group: "doublewrite",
    build: (c) => c("pagesFlushed"),
  },
  doublewrite_pages_per_batch: {
    title: "Pages per doublewrite batch",
    description:
      "Average doublewrite batch size: doublewrite pages ÷ doublewrite writes. Capped by the batch capacity; stuck near it under load means batches are full (docs/reference/mysql.md §1.6).",
    unit: "pages/batch",
    group: "doublewrite",
    build: (c) => ratio(c("dblwrPages"), c("dblwrWrites")),
  },
  doublewrite_batch_capacity_pages: {
    title: "Doublewrite batch capacity",
    description:
      "Most pages one doublewrite batch holds: innodb_doublewrite_pages on MySQL 8.0.20+ (4 by default before 8.4, 128 from 8.4); 2 × FSP_EXTENT_SIZE on MariaDB (128 at 16 KiB pages). Absent on MySQL before 8.0.20.",
    unit: "pages",
    group: "doublewrite",
    needs: DBLWR_CAPACITY,
    build: (c) => c("batchCapacity"),
  },
  doublewrite_batch_fill: {
    title: "Doublewrite batch fill",
    description:
      "Pages per batch ÷ batch capacity (0-1). Near 1 under load: batches are full and a larger innodb_doublewrite_pages (MySQL 8.0.20-8.3) may help (docs/reference/mysql.md §1.4, docs/reference/published-results.md §9).",
    unit: "ratio",
    group: "doublewrite",
    needs: DBLWR_CAPACITY,
    build: (c) => ratio(ratio(c("dblwrPages"), c("dblwrWrites")), c("batchCapacity")),
  },
  doublewrite_amplification: {
    title: "Doublewrite amplification",
    description:
      "Doublewrite pages ÷ data pages flushed: about 1 with doublewrite on (every flushed page written twice), 0 with it off.",
    unit: "ratio",
    group: "doublewrite",
    build: (c) => ratio(c("dblwrPages"), c("pagesFlushed")),
  },
  doublewrite_write_bytes_share: {
    title: "Doublewrite share of write bytes",
    description:
      "Doublewrite pages × page size ÷ bytes InnoDB wrote to data files (Innodb_data_written, doublewrite included): about 0.5 with doublewrite on. MariaDB 10.5.7-10.11.2-era releases count a doublewrite page as 1 byte there (MDEV-31124, https://jira.mariadb.org/browse/MDEV-31124): untorn-exporter and mysqld_exporter both report the counter as the server does, so this panel can read above 1 on those releases; the advisor corrects it (docs/reference/status-counters.md §4, docs/reference/iops-metering.md §11).",
    unit: "ratio",
    group: "doublewrite",
    build: (c) => ratio(binary(c("dblwrPages"), "*", c("pageSize")), c("dataWrittenBytes")),
  },
  doublewrite_write_ops_share: {
    title: "Doublewrite share of write operations",
    description:
      "Doublewrite writes ÷ InnoDB data-file write operations (Innodb_data_writes counts one per doublewrite batch I/O, docs/reference/iops-metering.md §11): small, because a batch is one large sequential write (docs/reference/mysql.md §1.1).",
    unit: "ratio",
    group: "doublewrite",
    build: (c) => ratio(c("dblwrWrites"), c("dataWrites")),
  },
  doublewrite_io_wait_seconds_per_second: {
    title: "Doublewrite I/O wait",
    description:
      "Seconds per second spent writing and syncing the doublewrite area (performance_schema write + misc timers; ≈ threads waiting). MariaDB and MySQL < 8.0.20 have no doublewrite instrument: there the system tablespace (ibdata1) stands in, which also holds undo and dictionary pages (docs/reference/performance-schema.md §5.1, §5.3). The mysqld_exporter fallback has data on MySQL/Percona 8.0.20+ only: its file_events sum every data file together, so it has no ibdata1 stand-in.",
    unit: "seconds/s",
    group: "doublewrite",
    needs: PS,
    build: (c) => c("dblwrIoWaitSeconds"),
  },
  doublewrite_io_wait_share: {
    title: "Doublewrite share of file I/O wait",
    description:
      "Doublewrite I/O wait ÷ write + misc (≈fsync) wait over all instrumented file classes (InnoDB, binlog, relay log). Like the wait itself, the mysqld_exporter fallback has data on MySQL/Percona 8.0.20+ only.",
    unit: "ratio",
    group: "doublewrite",
    needs: PS,
    build: (c) => ratio(c("dblwrIoWaitSeconds"), c("fileIoWaitSeconds")),
  },
  doublewrite_mutex_waits_per_second: {
    title: "Doublewrite mutex waits/s",
    description:
      "Waits on the doublewrite mutex per second (dblwr_mutex on MySQL 8.0.20+, buf_dblwr_mutex on MariaDB and older MySQL). InnoDB mutex instruments are off by default (docs/reference/performance-schema.md §5.1): 0 unless enabled.",
    unit: "waits/s",
    group: "doublewrite",
    needs: MUTEX,
    build: (c) => c("dblwrMutexWaits"),
  },
  doublewrite_mutex_wait_seconds_per_second: {
    title: "Doublewrite mutex wait",
    description: "Seconds per second spent waiting on the doublewrite mutex (≈ threads waiting).",
    unit: "seconds/s",
    group: "doublewrite",
    needs: MUTEX,
    build: (c) => c("dblwrMutexWaitSeconds"),
  },
  doublewrite_wait_seconds_per_second: {
    title: "Doublewrite wait (I/O + mutex)",
    description:
      "Doublewrite I/O wait plus doublewrite mutex wait where the mutex is instrumented: the input of UntornDoublewriteWaitSpike.",
    unit: "seconds/s",
    group: "doublewrite",
    needs: PS,
    record: rec("untorn_doublewrite_wait_seconds"),
    build: (c) => addPresent(c("dblwrIoWaitSeconds"), c("dblwrMutexWaitSeconds")),
  },
  doublewrite_flush_wait_events_per_second: {
    title: "Doublewrite flush waits/s",
    description:
      "Threads per second that had to wait for a running doublewrite batch (INNODB_METRICS dblwr_flush_wait_events): a direct 'doublewrite is the bottleneck' signal. MySQL 8.0.20+, needs innodb_monitor_enable='module_dblwr' (docs/reference/status-counters.md §4).",
    unit: "waits/s",
    group: "doublewrite",
    needs: { flavors: ["mysql", "percona"], minVersion: MYSQL_8020, innodbMetricsDblwr: true },
    build: (c) => c("dblwrFlushWaitEvents"),
  },

  // ---- file I/O per class ----
  file_write_bytes_per_second: {
    title: "Write bytes/s by file class",
    description:
      "Bytes written per second per file class (performance_schema). On MariaDB doublewrite writes are under system_tablespace. The mysqld_exporter fallback cannot split ibdata1 from other data files.",
    unit: "bytes/s",
    group: "file_io",
    needs: PS,
    build: (c) => c("fileWriteBytes"),
  },
  file_writes_per_second: {
    title: "Write ops/s by file class",
    description: "Write operations per second per file class (performance_schema COUNT_WRITE).",
    unit: "ops/s",
    group: "file_io",
    needs: PS,
    build: (c) => c("fileWrites"),
  },
  file_write_latency_seconds: {
    title: "Write latency by file class",
    description: "Average time per write operation per file class (SUM_TIMER_WRITE ÷ COUNT_WRITE).",
    unit: "seconds",
    group: "file_io",
    needs: PS,
    build: (c) => ratio(c("fileWriteSeconds"), c("fileWrites")),
  },
  file_misc_ops_per_second: {
    title: "Misc (≈fsync) ops/s by file class",
    description:
      "Misc operations per second per file class (COUNT_MISC): mostly fsync for InnoDB files, but also open, close, stat: not an fsync count (docs/reference/performance-schema.md §5.2).",
    unit: "ops/s",
    group: "file_io",
    needs: PS,
    build: (c) => c("fileMisc"),
  },
  file_misc_latency_seconds: {
    title: "Misc (≈fsync) latency by file class",
    description:
      "Average time per misc operation per file class (SUM_TIMER_MISC ÷ COUNT_MISC): a proxy for fsync latency on InnoDB files, labelled misc because it also covers open/close/stat (docs/reference/performance-schema.md §5.2).",
    unit: "seconds",
    group: "file_io",
    needs: PS,
    build: (c) => ratio(c("fileMiscSeconds"), c("fileMisc")),
  },

  // ---- fsync and per-transaction efficiency ----
  fsyncs_per_second: {
    title: "fsyncs/s",
    description:
      "fsync()/fdatasync() calls InnoDB made per second (Innodb_data_fsyncs). With doublewrite on, MariaDB 10.11 issues about 10 per doublewrite batch (docs/reference/iops-metering.md §11).",
    unit: "fsyncs/s",
    group: "efficiency",
    build: (c) => c("dataFsyncs"),
  },
  fsyncs_per_transaction: {
    title: "fsyncs per transaction",
    description:
      "InnoDB fsyncs ÷ transactions: efficiency that changes even when throughput is demand-bound.",
    unit: "fsyncs/transaction",
    group: "efficiency",
    build: (c) => ratio(c("dataFsyncs"), c("transactions")),
  },
  innodb_write_ops_per_second: {
    title: "InnoDB write IOPS",
    description:
      "InnoDB data-file write operations per second (Innodb_data_writes, doublewrite writes included).",
    unit: "ops/s",
    group: "efficiency",
    build: (c) => c("dataWrites"),
  },
  write_ops_per_transaction: {
    title: "Write ops per transaction",
    description: "InnoDB data-file write operations ÷ transactions.",
    unit: "ops/transaction",
    group: "efficiency",
    build: (c) => ratio(c("dataWrites"), c("transactions")),
  },
  innodb_write_bytes_per_second: {
    title: "InnoDB write bytes/s",
    description:
      "Bytes InnoDB wrote to data files per second (Innodb_data_written, doublewrite included; MariaDB 10.5.1+ excludes redo; reported as the server counts it, so MariaDB releases with the MDEV-31124 undercount show doublewrite pages as 1 byte each here; the advisor corrects it, docs/reference/status-counters.md §4).",
    unit: "bytes/s",
    group: "efficiency",
    build: (c) => c("dataWrittenBytes"),
  },
  write_bytes_per_transaction: {
    title: "Write bytes per transaction",
    description:
      "InnoDB data-file bytes written ÷ transactions: roughly doubles with doublewrite on (docs/reference/iops-metering.md §11).",
    unit: "bytes/transaction",
    group: "efficiency",
    build: (c) => ratio(c("dataWrittenBytes"), c("transactions")),
  },
  redo_write_bytes_per_second: {
    title: "Redo bytes/s",
    description: "Bytes written to the redo log per second (Innodb_os_log_written).",
    unit: "bytes/s",
    group: "efficiency",
    build: (c) => c("redoWrittenBytes"),
  },

  // ---- device ----
  device_write_iops: {
    title: "Device write IOPS",
    description:
      "Writes completed per second by the datadir's block device. Fallback: all whole disks of the host (node_exporter cannot tell which holds the datadir).",
    unit: "ops/s",
    group: "device",
    needs: HOST,
    build: (c) => c("deviceWrites"),
  },
  device_write_bytes_per_second: {
    title: "Device write bytes/s",
    description: "Bytes written per second by the datadir's block device (fallback: all whole disks).",
    unit: "bytes/s",
    group: "device",
    needs: HOST,
    build: (c) => c("deviceWrittenBytes"),
  },
  device_utilisation: {
    title: "Device utilisation",
    description:
      "Share of time the datadir's device had I/O in flight (0-1; fallback: the busiest whole disk). Near 1 on a single disk means saturated; devices that serve requests in parallel (NVMe, cloud volumes) can be busy 100% of the time and still have headroom.",
    unit: "ratio",
    group: "device",
    needs: HOST,
    build: (c) => c("deviceBusy"),
  },
  device_doublewrite_bytes_share: {
    title: "Doublewrite share of device writes",
    description:
      "Doublewrite pages × page size ÷ bytes the device wrote. How much IOPS that is depends on how the storage meters I/O: a volume that counts each request barely notices a doublewrite batch, one that meters in 16 KiB units pays one I/O per page (docs/reference/iops-metering.md §11).",
    unit: "ratio",
    group: "device",
    needs: HOST,
    build: (c) => ratio(binary(c("dblwrPages"), "*", c("pageSize")), c("deviceWrittenBytes")),
  },
  device_doublewrite_write_ops_share: {
    title: "Doublewrite share of device write operations",
    description:
      "Doublewrite write requests ÷ write requests the datadir's device completed. A batch is one or two large requests, so this stays small even when the bytes share is near half; on storage that meters each request as one I/O, it plus the flushes doublewrite causes is the IOPS budget it takes (docs/reference/iops-metering.md §11). A request the block layer splits (max_sectors_kb) counts more than once on the device.",
    unit: "ratio",
    group: "device",
    needs: HOST,
    build: (c) => ratio(c("dblwrWrites"), c("deviceWrites")),
  },
  device_flushes_per_second: {
    title: "Device flushes/s",
    description:
      "Cache flush requests completed per second by the device (Linux 5.5+); fsyncs become flushes one for one (docs/reference/iops-metering.md §11).",
    unit: "ops/s",
    group: "device",
    needs: HOST,
    build: (c) => c("deviceFlushes"),
  },
  device_flush_latency_seconds: {
    title: "Device flush latency",
    description: "Average time per cache flush request on the device (Linux 5.5+).",
    unit: "seconds",
    group: "device",
    needs: HOST,
    build: (c) => ratio(c("deviceFlushSeconds"), c("deviceFlushes")),
  },

  // ---- pressure ----
  free_page_waits_per_second: {
    title: "Free-page waits/s",
    description:
      "Times per second a thread waited for a clean buffer pool page (Innodb_buffer_pool_wait_free): flushing cannot keep up, a write-bound symptom (docs/reference/status-counters.md §4, docs/reference/published-results.md §9).",
    unit: "waits/s",
    group: "pressure",
    build: (c) => c("freePageWaits"),
  },
  checkpoint_age_bytes: {
    title: "Checkpoint age",
    description:
      "Redo bytes not yet checkpointed: MariaDB 10.5+ Innodb_checkpoint_age; MySQL 8.0.30+ current LSN - checkpoint LSN.",
    unit: "bytes",
    group: "pressure",
    needs: CHECKPOINT,
    build: (c) => c("checkpointAge"),
  },
  checkpoint_age_ratio: {
    title: "Checkpoint age / capacity",
    description:
      "Checkpoint age ÷ the age at which InnoDB forces flushing (MariaDB Innodb_checkpoint_max_age; MySQL 8.0.30+ redo capacity). Near 1: flushing lags the redo log, writes stall.",
    unit: "ratio",
    group: "pressure",
    needs: CHECKPOINT,
    build: (c) => ratio(c("checkpointAge"), c("checkpointMaxAge")),
  },
} as const satisfies Record<string, SignalSpec>;

const directSpecs = {
  // ---- configuration ----
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

  // ---- storage ----
  storage_info: infoSignal(
    "storageInfo",
    "Datadir storage",
    "storage",
    "The datadir's device, whole disks, file system, mount point and options, model.",
    M.storageInfo.labels,
    HOST,
  ),
  fs_block_size_bytes: gaugeSignal(
    "storageFsBlockSize",
    "FS block size",
    "bytes",
    "storage",
    "File system block size.",
    undefined,
    HOST,
  ),
  fs_cluster_size_bytes: gaugeSignal(
    "storageFsClusterSize",
    "FS cluster size",
    "bytes",
    "storage",
    "ext4 bigalloc cluster size (16 KiB for atomic 16 KiB pages, docs/reference/atomic-storage.md §8.2).",
    undefined,
    HOST,
  ),
  logical_block_size_bytes: gaugeSignal(
    "storageLogicalBlockSize",
    "Logical block size",
    "bytes",
    "storage",
    "Device logical block size.",
    undefined,
    HOST,
  ),
  physical_block_size_bytes: gaugeSignal(
    "storagePhysicalBlockSize",
    "Physical block size",
    "bytes",
    "storage",
    "Device physical block size.",
    undefined,
    HOST,
  ),
  atomic_write_unit_max_bytes: gaugeSignal(
    "storageAtomicWriteUnitMax",
    "Atomic write unit max",
    "bytes",
    "storage",
    "Largest single atomic write the device offers (Linux 6.11+ sysfs); must be ≥ innodb_page_size (docs/reference/atomic-storage.md §8.5).",
    undefined,
    { hostStorage: true, atomicWriteAttributes: true },
  ),
  atomic_write_attributes_present: gaugeSignal(
    "storageAtomicWriteSupported",
    "Atomic write attributes",
    "bool",
    "storage",
    "1 when the kernel exposes atomic write limits; 0: unknown, not 'no' (docs/reference/atomic-storage.md §8.5).",
    undefined,
    HOST,
  ),
  write_cache_volatile: gaugeSignal(
    "storageWriteCache",
    "Volatile write cache",
    "bool",
    "storage",
    "1 for a write-back (volatile) device cache that needs flushes.",
    undefined,
    HOST,
  ),
  rotational: gaugeSignal(
    "storageRotational",
    "Rotational",
    "bool",
    "storage",
    "1 for spinning disks.",
    undefined,
    HOST,
  ),
  datadir_visible: gaugeSignal(
    "storageDatadirVisible",
    "Datadir visible",
    "bool",
    "storage",
    "1 when the exporter runs beside the server and sees its datadir (host storage facts available).",
  ),

  // ---- health ----
  mysql_up: gaugeSignal(
    "mysqlUp",
    "Database reachable",
    "bool",
    "health",
    "Last connection succeeded.",
    "mysqlUp",
  ),
  collector_success: {
    title: "Collector success",
    description: "1 when the collector finished without error in the last scrape.",
    unit: "bool",
    group: "health",
    metrics: ["collectorSuccess"],
    labels: ["collector"],
    windowed: false,
    untorn: (s) =>
      vec(`min by (instance, collector) (${instant(s, M.collectorSuccess.name)})`, ["collector"]),
  },
  collector_duration_seconds: {
    title: "Collector duration",
    description: "Seconds each collector took in the last scrape.",
    unit: "seconds",
    group: "health",
    metrics: ["collectorDuration"],
    labels: ["collector"],
    windowed: false,
    untorn: (s) => maxBy(["collector"], instant(s, M.collectorDuration.name)),
  },
  file_io_instrumented: {
    title: "File class instrumented",
    description: "1 when performance_schema times the file class.",
    unit: "bool",
    group: "health",
    metrics: ["fileIoInstrumented"],
    labels: ["class"],
    windowed: false,
    untorn: (s) => maxBy(["class"], instant(s, M.fileIoInstrumented.name, ...classSelector(s))),
  },
  dblwr_mutex_instrumented: {
    title: "Doublewrite mutex instrumented",
    description: "1 when the doublewrite mutex instrument is enabled and timed.",
    unit: "bool",
    group: "health",
    metrics: ["dblwrMutexInstrumented"],
    labels: [],
    windowed: false,
    untorn: (s) => maxBy([], instant(s, M.dblwrMutexInstrumented.name)),
  },
  innodb_metrics_dblwr_enabled: gaugeSignal(
    "innodbMetricsDblwrEnabled",
    "INNODB_METRICS dblwr module",
    "bool",
    "health",
    "1 when module_dblwr is enabled (MySQL 8.0.20+).",
  ),

  // ---- replication ----
  replication_role: {
    title: "Replication role",
    description:
      "The server's role, as the label `role`: replica when a replication channel is configured, else primary when a replica is connected, else standalone (untorn-exporter only: mysqld_exporter has no role).",
    unit: "info",
    group: "health",
    metrics: ["replicationRole"],
    labels: ["role"],
    windowed: false,
    untorn: (s) => where(maxBy(["role"], instant(s, M.replicationRole.name)), "==", 1),
  },
  replication_lag_seconds: {
    needs: REPLICA,
    title: "Replication lag",
    description:
      "Seconds_Behind_Source (Seconds_Behind_Master) of the server's most lagging channel. Absent on a server that is not a replica and while a replication thread is stopped: no data, never 0.",
    unit: "seconds",
    group: "health",
    metrics: ["replicationLagSeconds"],
    labels: [],
    windowed: false,
    untorn: (s) => maxBy([], instant(s, M.replicationLagSeconds.name)),
    fallback: { metrics: ["replicaLag"], render: (s) => maxBy([], instant(s, F.replicaLag.name)) },
  },
  replication_threads_running: {
    needs: REPLICA,
    title: "Replication threads running",
    description:
      "1 when the I/O and the SQL thread of every replication channel run, 0 when one of them does not (a receiver still connecting counts as not running). Absent on a server that is not a replica.",
    unit: "bool",
    group: "health",
    metrics: ["replicationIoThreadRunning", "replicationSqlThreadRunning"],
    labels: [],
    windowed: false,
    untorn: (s) =>
      vec(
        `min by (instance) (${instant(s, M.replicationIoThreadRunning.name)} * ${instant(s, M.replicationSqlThreadRunning.name)})`,
        [],
      ),
    fallback: {
      metrics: ["replicaIoRunning", "replicaSqlRunning"],
      render: (s) =>
        vec(
          `min by (instance) (${instant(s, F.replicaIoRunning.name)} * ${instant(s, F.replicaSqlRunning.name)})`,
          [],
        ),
    },
  },
  replication_io_thread_running: {
    needs: REPLICA,
    title: "Replication I/O threads running",
    description:
      "1 when the receiver (I/O) thread of every replication channel runs and is connected, 0 when one does not (stopped or still connecting). Absent on a server that is not a replica.",
    unit: "bool",
    group: "health",
    metrics: ["replicationIoThreadRunning"],
    labels: [],
    windowed: false,
    untorn: (s) => vec(`min by (instance) (${instant(s, M.replicationIoThreadRunning.name)})`, []),
    fallback: {
      metrics: ["replicaIoRunning"],
      render: (s) => vec(`min by (instance) (${instant(s, F.replicaIoRunning.name)})`, []),
    },
  },
  replication_sql_thread_running: {
    needs: REPLICA,
    title: "Replication SQL threads running",
    description:
      "1 when the applier (SQL) thread of every replication channel runs, 0 when one does not. Absent on a server that is not a replica.",
    unit: "bool",
    group: "health",
    metrics: ["replicationSqlThreadRunning"],
    labels: [],
    windowed: false,
    untorn: (s) => vec(`min by (instance) (${instant(s, M.replicationSqlThreadRunning.name)})`, []),
    fallback: {
      metrics: ["replicaSqlRunning"],
      render: (s) => vec(`min by (instance) (${instant(s, F.replicaSqlRunning.name)})`, []),
    },
  },
  replication_last_errno: {
    needs: REPLICA,
    title: "Replication error",
    description:
      "The largest Last_IO_Errno / Last_SQL_Errno over the server's replication channels: 0 when no channel reports an error, the server's error number otherwise (e.g. 1062 duplicate key). Absent on a server that is not a replica.",
    unit: "count",
    group: "health",
    metrics: ["replicationLastIoErrno", "replicationLastSqlErrno"],
    labels: [],
    windowed: false,
    untorn: (s) =>
      maxBy(
        [],
        bothThreads(instant(s, M.replicationLastIoErrno.name), instant(s, M.replicationLastSqlErrno.name)),
      ),
    fallback: {
      metrics: ["replicaLastIoErrno", "replicaLastSqlErrno"],
      render: (s) =>
        maxBy([], bothThreads(instant(s, F.replicaLastIoErrno.name), instant(s, F.replicaLastSqlErrno.name))),
    },
  },

  // ---- events (annotations) ----
  restarts: {
    title: "Restarts",
    needs: EVENT,
    description: "Server restarts in the window (uptime went down).",
    unit: "events",
    group: "events",
    metrics: ["uptime"],
    labels: [],
    windowed: true,
    untorn: (s) => where(sumBy([], `resets(${range(s, M.uptime.name)})`), ">", 0),
    fallback: {
      metrics: ["uptime"],
      render: (s) => where(sumBy([], `resets(${range(s, F.uptime.name)})`), ">", 0),
    },
  },
  doublewrite_mode_changes: {
    title: "Doublewrite mode changes",
    needs: EVENT,
    description: "innodb_doublewrite changed in the window.",
    unit: "events",
    group: "events",
    metrics: ["doublewriteMode"],
    labels: [],
    windowed: true,
    untorn: (s) => where(sumBy([], valueRange(range(s, M.doublewriteMode.name))), ">", 0),
    fallback: {
      metrics: ["doublewrite"],
      render: (s) => where(sumBy([], valueRange(range(s, F.doublewrite.name))), ">", 0),
    },
  },
} as const satisfies Record<string, DirectSpec>;

/** Atomic-write capability needs two components and a storage gauge; built by hand. */
const atomicWriteCapable: SignalSpec = {
  title: "Device atomic unit ≥ page size",
  description:
    "1 when the datadir device's atomic write unit is at least innodb_page_size, 0 when it is smaller, absent when the kernel does not say (pre-6.11). Necessary, not sufficient: O_DIRECT, file system allocation and alignment also decide (docs/reference/atomic-storage.md §8.5, §8.7).",
  unit: "bool",
  group: "storage",
  needs: { hostStorage: true, atomicWriteAttributes: true },
  build: (c) =>
    onlyWhere(
      compareBool(c("atomicUnitMax"), ">=", c("pageSize")),
      where(c("atomicAttributesPresent"), "==", 1),
    ),
};

type SpecId = keyof typeof specs | keyof typeof directSpecs | "atomic_write_capable";
export type SignalId = SpecId;

function buildAll(): Record<SignalId, Signal> {
  const out: Partial<Record<SignalId, Signal>> = {};
  for (const [id, spec] of Object.entries(specs)) out[id as SignalId] = makeSignal(id, spec as SignalSpec);
  out.atomic_write_capable = makeSignal("atomic_write_capable", atomicWriteCapable);
  for (const [id, spec] of Object.entries(directSpecs))
    out[id as SignalId] = makeDirect(id, spec as DirectSpec);
  return out as Record<SignalId, Signal>;
}

export const signals: Readonly<Record<SignalId, Signal>> = buildAll();

export const signalList: readonly Signal[] = Object.values(signals);

export function signal(id: SignalId): Signal {
  return signals[id];
}
