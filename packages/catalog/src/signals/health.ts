/** Health signals: exporter reachability, collectors, instrumentation, and replication. */
import { fallbackMetrics as F } from "../fallback-metrics.js";
import { metrics as M } from "../metrics.js";
import { instant, maxBy, vec, where } from "../promql.js";
import { classSelector } from "./component.js";
import { bothThreads, type DirectSpec, gaugeSignal, REPLICA } from "./signal.js";

export const directSpecs = {
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
      "The server's role, as the label `role`: replica when a replication channel is configured, else primary when a replica is connected, else standalone (untorn-exporter only: mysqld_exporter has no role); with the scrape label `cluster` where the targets carry one (the fleet's topology).",
    unit: "info",
    group: "health",
    metrics: ["replicationRole"],
    labels: ["role", "cluster"],
    windowed: false,
    untorn: (s) => where(maxBy(["role", "cluster"], instant(s, M.replicationRole.name)), "==", 1),
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
} as const satisfies Record<string, DirectSpec>;
