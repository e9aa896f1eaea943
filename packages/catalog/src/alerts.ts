/**
 * Alert definitions: one source for the Prometheus alerting rules and the Grafana-managed alert rules
 * (dashboards/ renders both). Every threshold is a named constant with the reason for its value; the
 * expressions are built from those constants and from signals, never retyped.
 * Every expression returns only firing series, with values >= 0 (Grafana's condition relies on it).
 */

import { consoleMetrics as C } from "./console-metrics.js";
import { type FileClass, metrics as M } from "./metrics.js";
import { binary, compare, INSTANCE, onlyWhere, scale, unlessWhere, type Vec, vec, where } from "./promql.js";
import {
  BASELINE,
  DOUBLEWRITE_WAIT_BASELINE_AVG,
  DOUBLEWRITE_WAIT_BASELINE_STDDEV,
  DOUBLEWRITE_WAIT_RECORD,
} from "./rules.js";
import { RULE_WINDOW, type SignalId, signals } from "./signals.js";

export type Severity = "critical" | "warning";

export interface Threshold {
  readonly value: number;
  readonly unit: string;
  readonly reason: string;
  /** For a lookback: the PromQL duration as the expression (or its recording rules) uses it. */
  readonly range?: string;
}

export interface AlertRule {
  /** PascalCase, prefixed Untorn. */
  readonly name: string;
  readonly severity: Severity;
  readonly expr: string;
  readonly for: string;
  /** Prometheus templates: $labels.<name> and $value. */
  readonly summary: string;
  readonly description: string;
  /** Anchor in docs/runbook.md. */
  readonly runbook: string;
  readonly thresholds: Readonly<Record<string, Threshold>>;
  /** Why `for` has its value. */
  readonly forReason: string;
  readonly signals: readonly SignalId[];
  readonly recordingRules: readonly string[];
}

/** Where runbook links point; change it here and regenerate when the docs move. */
export const RUNBOOK_URL = "https://github.com/untorn/untorn/blob/main/docs/runbook.md";

export const runbookUrl = (a: AlertRule): string => `${RUNBOOK_URL}#${a.runbook}`;

/** Target label that marks an instance's storage as verified atomic by a human (see docs/runbook.md). */
export const ATOMIC_VERIFIED_LABEL = "untorn_atomic_storage";

// ---- thresholds ----

export const thresholds = {
  waitSpike: {
    floor: {
      value: 0.1,
      unit: "s/s",
      reason:
        "Below 0.1 s of doublewrite wait per second (a tenth of one thread's time) the cost is too small to act on, however far it is above a quiet instance's usual level.",
    },
    ratio: {
      value: 3,
      unit: "× baseline mean",
      reason:
        "Three times the instance's own mean over the previous day: ordinary swings of a write workload stay under it, and on a very steady instance (deviation near 0) it keeps a tiny blip from counting as many deviations.",
    },
    sigmas: {
      value: 3,
      unit: "standard deviations",
      reason:
        "Mean + 3 standard deviations of the previous day: on a noisy instance, three times the mean can be normal; three deviations above it is not.",
    },
    minUptime: {
      value: 1800,
      unit: "s",
      reason: "Skip the 30 min after a restart: warm-up and crash-recovery flushing produce expected bursts.",
    },
    baselineWindow: {
      value: 1,
      unit: "d of baseline",
      range: BASELINE.window,
      reason:
        "A whole day, so the baseline holds the instance's busy and quiet hours alike (batch jobs, backups). A rise that lasts for hours becomes part of it: the alert flags changes of regime, and a level that stays high is fsync latency's or the dashboards' to show.",
    },
    baselineExclude: {
      value: 1,
      unit: "h before now left out",
      range: BASELINE.exclude,
      reason: "The last hour stays out of the baseline, so a developing spike does not raise its own bar.",
    },
  },
  fsyncLatency: {
    flash: {
      value: 0.01,
      unit: "s",
      reason:
        "Flash and cloud block volumes complete a cache flush in about a millisecond or less when healthy; a 10 ms average means flushes queue behind writes or the device is degraded, and commits and doublewrite batches wait for them.",
    },
    rotational: {
      value: 0.05,
      unit: "s",
      reason:
        "A spinning disk needs about a rotation per flush (4-8 ms at 15000-7200 rpm) plus seeks; 50 ms means a deep queue.",
    },
    minOps: {
      value: 1,
      unit: "ops/s",
      reason:
        "COUNT_MISC also counts open, close and stat (docs/reference/performance-schema.md §5.2): under one misc operation per second, a few slow opens are not an fsync problem.",
    },
  },
  collector: {
    successRatio: {
      value: 0.5,
      unit: "of scrapes",
      reason:
        "A collector that fails more than half its scrapes over 15 min leaves its panels and alerts blind; occasional timeouts under load stay below this.",
    },
    window: {
      value: 15,
      unit: "min averaged",
      range: "15m",
      reason:
        "60 scrapes at a 15 s interval: one slow scrape moves the average by under 2%, a collector that keeps timing out moves it past half.",
    },
  },
  exporterDown: {
    window: {
      value: 10,
      unit: "min of scrapes counted",
      range: "10m",
      reason:
        "The failed scrapes of the last 10 min go in the description: enough to tell an outage (40 failures at 15 s) from a blip.",
    },
    memory: {
      value: 1,
      unit: "d",
      range: "1d",
      reason:
        "Only targets that served untorn-exporter metrics within the last day: a decommissioned exporter stops alerting after a day instead of forever.",
    },
  },
  databaseUnreachable: {
    window: {
      value: 10,
      unit: "min of connection attempts",
      range: "10m",
      reason:
        "A switchover or restart drops connections for under a minute; the share of failures over 10 min tells that from an outage, and the last attempt must have failed too.",
    },
  },
  rolloutWaiting: {
    limit: {
      value: 14_400,
      unit: "s waiting for a person",
      reason:
        "Four hours: past a working half-day, a paused rollout (an operator's pause, a bake that could not tell, a failed hook) holds its canary in a changed state beside a control that has drifted, and its judgement grows stale; an inconclusive bake is meant to be decided the day it pauses.",
    },
  },
} as const satisfies Record<string, Record<string, Threshold>>;

const T = thresholds;

/** File classes whose misc (≈fsync) latency matters for the write path. */
export const FSYNC_CLASSES: readonly FileClass[] = ["doublewrite", "data", "system_tablespace", "redo"];

// ---- expressions ----

const recorded = (name: string, labels: readonly string[] = []): Vec => vec(name, labels);

function waitSpikeExpr(): string {
  const x = recorded(DOUBLEWRITE_WAIT_RECORD);
  const avg = recorded(DOUBLEWRITE_WAIT_BASELINE_AVG);
  const sd = recorded(DOUBLEWRITE_WAIT_BASELINE_STDDEV);
  const uptime = signals.uptime_seconds.vec();
  let e = where(x, ">", T.waitSpike.floor.value);
  e = onlyWhere(e, compare(x, ">", scale(avg, T.waitSpike.ratio.value)));
  e = onlyWhere(e, compare(x, ">", binary(avg, "+", scale(sd, T.waitSpike.sigmas.value))));
  e = onlyWhere(e, where(uptime, ">", T.waitSpike.minUptime.value));
  return e.q;
}

function doublewriteOffExpr(): string {
  const off = where(signals.doublewrite_enabled.vec(), "==", 0);
  // (0 × 1) + page size: the value is innodb_page_size, the mode comes along as a label.
  const withMode = binary(off, "*", signals.doublewrite_mode.vec());
  const value = binary(withMode, "+", signals.page_size_bytes.vec());
  const capable = where(signals.atomic_write_capable.vec(), "==", 1);
  const managed = vec(`${M.serverInfo.name}{managed=~"rds|aurora"}`);
  const cow = vec(`${M.storageInfo.name}{fstype="zfs"}`);
  const verified = vec(`{__name__=~"${M.mysqlUp.name}|mysql_up", ${ATOMIC_VERIFIED_LABEL}="verified"}`);
  let e = unlessWhere(value, capable);
  e = unlessWhere(e, managed);
  e = unlessWhere(e, cow);
  e = unlessWhere(e, verified);
  return e.q;
}

function fsyncLatencyExpr(): string {
  const opts = { classes: FSYNC_CLASSES, window: RULE_WINDOW };
  const lat = signals.file_misc_latency_seconds.vec(opts);
  const ops = signals.file_misc_ops_per_second.vec(opts);
  const rotational = where(signals.rotational.vec(), "==", 1);
  const flash = unlessWhere(where(lat, ">", T.fsyncLatency.flash.value), rotational);
  const disk = onlyWhere(where(lat, ">", T.fsyncLatency.rotational.value), rotational);
  const busy = where(ops, ">", T.fsyncLatency.minOps.value);
  return `((${flash.q}) or (${disk.q})) and on(${INSTANCE}, class) (${busy.q})`;
}

function exporterDownExpr(): string {
  // Failed scrapes in the last 10 min, for targets down now that served untorn-exporter metrics in the
  // last day (whatever their job is called).
  const w = T.exporterDown.window.range;
  return `(count_over_time(up[${w}]) - sum_over_time(up[${w}])) and on(${INSTANCE}, job) (up == 0) and on(${INSTANCE}, job) last_over_time(${M.buildInfo.name}[${T.exporterDown.memory.range}])`;
}

function databaseUnreachableExpr(): string {
  // Share of failed connections over 10 min, for instances whose last connection failed.
  const failed = vec(
    `1 - max by (${INSTANCE}) (avg_over_time(${M.mysqlUp.name}[${T.databaseUnreachable.window.range}]))`,
    [],
    false,
  );
  return onlyWhere(failed, where(signals.mysql_up.vec({ source: "untorn" }), "==", 0)).q;
}

function collectorFailingExpr(): string {
  const success = vec(
    `min by (${INSTANCE}, collector) (avg_over_time(${M.collectorSuccess.name}[${T.collector.window.range}]))`,
    ["collector"],
  );
  const unreachable = where(signals.mysql_up.vec({ source: "untorn" }), "==", 0);
  return unlessWhere(where(success, "<", T.collector.successRatio.value), unreachable).q;
}

function rolloutWaitingExpr(): string {
  // Seconds since the paused rollout began waiting (the console's own /metrics).
  return `time() - ${C.waitingSince.name} > ${T.rolloutWaiting.limit.value}`;
}

export const alertRules: readonly AlertRule[] = [
  {
    name: "UntornDoublewriteWaitSpike",
    severity: "warning",
    expr: waitSpikeExpr(),
    for: "15m",
    forReason:
      "A batch flush or checkpoint burst lasts seconds to a few minutes; 15 min of raised waits is a change of regime worth a look.",
    summary: "Doublewrite waits on {{ $labels.instance }} are far above its usual level",
    description: `Threads on {{ $labels.instance }} spend {{ $value | humanize }}s per second waiting on doublewrite I/O (and the doublewrite mutex where instrumented): more than ${T.waitSpike.ratio.value}× its mean and ${T.waitSpike.sigmas.value} standard deviations above it over the ${BASELINE.window} ending ${BASELINE.exclude} ago, above the ${T.waitSpike.floor.value} s/s floor, for 15 minutes.`,
    runbook: "untorndoublewritewaitspike",
    thresholds: T.waitSpike,
    signals: ["doublewrite_wait_seconds_per_second", "uptime_seconds"],
    recordingRules: [
      DOUBLEWRITE_WAIT_RECORD,
      DOUBLEWRITE_WAIT_BASELINE_AVG,
      DOUBLEWRITE_WAIT_BASELINE_STDDEV,
    ],
  },
  {
    name: "UntornDoublewriteOffUnverifiedStorage",
    severity: "critical",
    expr: doublewriteOffExpr(),
    for: "15m",
    forReason:
      "A configuration state, not an event: 15 min skips the first scrapes after a restart, before storage facts are in.",
    summary:
      "Doublewrite is {{ $labels.mode }} on {{ $labels.instance }}, on storage not known to write pages atomically",
    description:
      "innodb_doublewrite is {{ $labels.mode }} on {{ $labels.instance }}, so its {{ $value }}-byte pages are written once, and its storage is not known to write that size atomically (device atomic unit smaller or unknown; not RDS/Aurora, not ZFS, not marked verified). A page torn by a crash is then unrecoverable.",
    runbook: "untorndoublewriteoffunverifiedstorage",
    thresholds: {},
    signals: ["doublewrite_enabled", "doublewrite_mode", "page_size_bytes", "atomic_write_capable"],
    recordingRules: [],
  },
  {
    name: "UntornFsyncLatencyHigh",
    severity: "warning",
    expr: fsyncLatencyExpr(),
    for: "15m",
    forReason:
      "Short flush stalls (a checkpoint, a backup starting) pass within minutes; 15 min is sustained.",
    summary: "Slow misc (≈fsync) on {{ $labels.class }} files of {{ $labels.instance }}",
    description: `Misc (≈fsync) operations on {{ $labels.class }} files of {{ $labels.instance }} take {{ $value | humanizeDuration }} on average (threshold ${T.fsyncLatency.flash.value * 1000} ms on flash, ${T.fsyncLatency.rotational.value * 1000} ms on rotational disks) for 15 minutes.`,
    runbook: "untornfsynclatencyhigh",
    thresholds: T.fsyncLatency,
    signals: ["file_misc_latency_seconds", "file_misc_ops_per_second", "rotational"],
    recordingRules: [],
  },
  {
    name: "UntornExporterDown",
    severity: "warning",
    expr: exporterDownExpr(),
    for: "5m",
    forReason: "Several missed scrapes in a row; a restart of the exporter itself takes seconds.",
    summary: "untorn-exporter target {{ $labels.instance }} ({{ $labels.job }}) is down",
    description:
      "Prometheus failed {{ $value }} scrapes of untorn-exporter for {{ $labels.instance }} (job {{ $labels.job }}) in the last 10 minutes and the last one failed: doublewrite panels and alerts for it are blind.",
    runbook: "untornexporterdown",
    thresholds: T.exporterDown,
    signals: [],
    recordingRules: [],
  },
  {
    name: "UntornDatabaseUnreachable",
    severity: "warning",
    expr: databaseUnreachableExpr(),
    for: "5m",
    forReason: "Several scrapes in a row; a single failed connection during a switchover is normal.",
    summary: "untorn-exporter cannot connect to {{ $labels.instance }}",
    description:
      "untorn-exporter runs but {{ $value | humanizePercentage }} of its connections to {{ $labels.instance }} failed over 10 minutes, the last ones included: the server is down or unreachable, or the exporter's credentials or grants changed.",
    runbook: "untorndatabaseunreachable",
    thresholds: T.databaseUnreachable,
    signals: ["mysql_up"],
    recordingRules: [],
  },
  {
    name: "UntornCollectorFailing",
    severity: "warning",
    expr: collectorFailingExpr(),
    for: "5m",
    forReason: "The expression already averages 15 min of scrapes; 5 more minutes confirm it.",
    summary: "untorn-exporter collector {{ $labels.collector }} fails on {{ $labels.instance }}",
    description: `Collector {{ $labels.collector }} succeeded in only {{ $value | humanizePercentage }} of scrapes of {{ $labels.instance }} over 15 minutes (threshold ${T.collector.successRatio.value * 100}%) while the server is reachable.`,
    runbook: "untorncollectorfailing",
    thresholds: T.collector,
    signals: ["collector_success", "mysql_up"],
    recordingRules: [],
  },
  {
    name: "UntornRolloutWaitingTooLong",
    severity: "warning",
    expr: rolloutWaitingExpr(),
    for: "10m",
    forReason:
      "The value is already a duration past four hours; 10 min more rides out a console restart or a missed scrape of its /metrics.",
    summary: "Rollout {{ $labels.title }} has waited for a person too long (console {{ $labels.instance }})",
    description: `Rollout {{ $labels.title }} ({{ $labels.rollout }}) is paused ({{ $labels.reason }}) and has waited {{ $value | humanizeDuration }} for a person, more than ${T.rolloutWaiting.limit.value / 3600} h: resume, accept the inconclusive wave, or abort it.`,
    runbook: "untornrolloutwaitingtoolong",
    thresholds: T.rolloutWaiting,
    signals: [],
    recordingRules: [],
  },
];

export const alertNames: readonly string[] = alertRules.map((a) => a.name);

// ---- Prometheus rule-file shape ----

export interface PrometheusAlertingRule {
  readonly alert: string;
  readonly expr: string;
  readonly for: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations: Readonly<Record<string, string>>;
}

export function prometheusAlertingRule(a: AlertRule): PrometheusAlertingRule {
  return {
    alert: a.name,
    expr: a.expr,
    for: a.for,
    labels: { severity: a.severity },
    annotations: { summary: a.summary, description: a.description, runbook_url: runbookUrl(a) },
  };
}

export const alertRuleGroups = [
  { name: "untorn.alerts", rules: alertRules.map(prometheusAlertingRule) },
] as const;
