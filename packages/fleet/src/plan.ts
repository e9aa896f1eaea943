/**
 * The query plan behind InstanceFacts: which catalog expression fills which fact field, and how the
 * window statistics are taken. Every query is aggregated `by (instance)`, so the plan has the same number
 * of queries for 1 instance and for 10,000; a one-instance plan is the fleet plan with an instance
 * selector ANDed into every series selector.
 *
 * Every expression is a catalog signal (with its mysqld_exporter / node_exporter fallback where it has
 * one) or a catalog component, wrapped in the catalog's window statistics; the fields read from
 * untorn-exporter alone (no fallback exists) are marked `untornOnly`.
 */
import { type Selector, type Vec, vec } from "@untorn/catalog/promql";
import { rateWindowSeconds } from "@untorn/catalog/rate-window";
import { RECORDED_WINDOW, windowRecorded, windowRecordedStats } from "@untorn/catalog/rules";
import {
  type ComponentKey,
  componentExpr,
  components,
  RULE_WINDOW,
  type SignalId,
  signals,
} from "@untorn/catalog/signals";
import {
  FACT_LABEL,
  recordedAvgRange,
  recordedWindowStats,
  STATS,
  type Stat,
  sampledSteps,
  stepCount,
  tag,
  union,
  windowStats,
} from "@untorn/catalog/window-stats";
import { parseDuration } from "@untorn/prom/duration";

/** Which exporters' series a query may read: "any" prefers untorn-exporter and falls back per instance. */
export type FleetSource = "any" | "untorn";

export interface PlanOptions {
  /** PromQL duration of the window the workload statistics cover, e.g. "1h". */
  readonly window: string;
  /** Seconds between the per-step values behind the quantiles and max. */
  readonly stepSeconds: number;
  /** PromQL duration of the per-step rate() window. */
  readonly rateWindow: string;
  readonly stats: readonly Stat[];
  readonly selector: Selector;
  readonly source: FleetSource;
  /**
   * Read the recording rules' per-instance rates (RULE_WINDOW, source "any") for the window statistics
   * of the quantities they record, instead of recomputing rates from raw series. Set by buildFleetFacts
   * after it checked that the rules are loaded (recordingRulesUsable says when that may apply at all).
   */
  readonly recorded: boolean;
  /**
   * With `recorded`: read the window statistics untorn.window records (RECORDED_WINDOW) instead of
   * taking them over the per-instance rates, where the plan's window and statistics are the recorded
   * ones (windowRulesUsable). Set by buildFleetFacts after the probe found the group's series.
   */
  readonly recordedWindow: boolean;
}

interface BuildOpts {
  readonly selector: Selector;
  readonly window: string;
  readonly source: FleetSource;
}

/** A fact's expression; `recorded` is its per-step form over recorded series, where the rules record it. */
type Build = ((o: BuildOpts) => Vec) & { readonly recorded?: (o: BuildOpts) => Vec };

const withRecorded = (b: (o: BuildOpts) => Vec, recorded: ((o: BuildOpts) => Vec) | undefined): Build =>
  recorded ? Object.assign(b, { recorded }) : b;

const recordedComponent = (key: ComponentKey): boolean =>
  (components[key] as { record?: string }).record !== undefined;

/** A signal or component is recorded when the rules store it or every component it is built from. */
const fromSignal = (id: SignalId): Build => {
  const s = signals[id];
  const recordable =
    s.record !== undefined || (s.components.length > 0 && s.components.every(recordedComponent));
  return withRecorded(
    (o) => s.vec({ selector: o.selector, window: o.window, source: o.source }),
    recordable
      ? (o) => s.vec({ selector: o.selector, window: RULE_WINDOW, source: "any", recorded: true })
      : undefined,
  );
};

const fromComponent = (key: ComponentKey): Build => {
  const labels = (components[key] as { labels: readonly string[] }).labels;
  return withRecorded(
    (o) =>
      vec(componentExpr(key, { selector: o.selector, window: o.window, source: o.source }), labels, false),
    recordedComponent(key)
      ? (o) => vec(componentExpr(key, { selector: o.selector, window: RULE_WINDOW, recorded: true }), labels)
      : undefined,
  );
};

// ---- windowed facts: one query each, with every statistic ----

export type WindowedGroup = "rates" | "gauges" | "device" | "fileIo";

export interface WindowedSpec {
  /** `<group>.<field>`; for split specs the field of the split label's value is looked up in `fields`. */
  readonly id: string;
  readonly group: WindowedGroup;
  readonly kind: "rate" | "gauge";
  readonly build: Build;
  /** Result label that spreads one query over several fields: file class or row operation. */
  readonly split?: "class" | "operation";
  /** For split = "operation": label value → rates field. */
  readonly fields?: Readonly<Record<string, string>>;
  /** Kept only where the instrument is on (the series exist at 0 otherwise, docs/reference/status-counters.md §4, docs/reference/performance-schema.md §5.1). */
  readonly gate?: "innodbMetricsDblwr" | "dblwrMutex";
  /** Read from untorn-exporter only: the catalog's signal or component has no fallback. */
  readonly untornOnly?: true;
}

const rate = (field: string, build: Build, extra: Partial<WindowedSpec> = {}): WindowedSpec => ({
  id: `rates.${field}`,
  group: "rates",
  kind: "rate",
  build,
  ...extra,
});
const gauge = (field: string, build: Build, extra: Partial<WindowedSpec> = {}): WindowedSpec => ({
  id: `gauges.${field}`,
  group: "gauges",
  kind: "gauge",
  build,
  ...extra,
});
const device = (field: string, kind: "rate" | "gauge", build: Build, untornOnly = false): WindowedSpec => ({
  id: `device.${field}`,
  group: "device",
  kind,
  build,
  ...(untornOnly ? { untornOnly: true as const } : {}),
});
const fileIo = (field: string, build: Build): WindowedSpec => ({
  id: `fileIo.${field}`,
  group: "fileIo",
  kind: "rate",
  build,
  split: "class",
});

const U = { untornOnly: true as const };

export const WINDOWED: readonly WindowedSpec[] = [
  rate("dblwrPagesWritten", fromSignal("doublewrite_pages_per_second")),
  rate("dblwrWrites", fromSignal("doublewrite_batches_per_second")),
  rate("dataWrites", fromSignal("innodb_write_ops_per_second")),
  rate("dataWrittenBytes", fromSignal("innodb_write_bytes_per_second")),
  rate("dataReads", fromComponent("dataReads"), U),
  rate("dataReadBytes", fromComponent("dataReadBytes"), U),
  rate("dataFsyncs", fromSignal("fsyncs_per_second")),
  rate("pagesWritten", fromComponent("pagesWritten"), U),
  rate("bufferPoolPagesFlushed", fromSignal("data_pages_flushed_per_second")),
  rate("bufferPoolWaitFree", fromSignal("free_page_waits_per_second")),
  rate("logWrites", fromComponent("logWrites"), U),
  rate("logWaits", fromComponent("logWaits"), U),
  rate("osLogWrittenBytes", fromSignal("redo_write_bytes_per_second")),
  rate("osLogFsyncs", fromComponent("osLogFsyncs"), U),
  // The catalog's transaction rate: Com_commit + Com_rollback (rollbacks are rare; the fallback reads
  // mysqld_exporter's commands). The advisor prefers handlerCommits when it is present.
  rate("commits", fromSignal("transactions_per_second")),
  rate("handlerCommits", fromComponent("handlerCommits"), U),
  rate("queries", fromComponent("queries"), U),
  rate("rows", fromComponent("rowOperations"), {
    ...U,
    split: "operation",
    fields: { inserted: "rowsInserted", updated: "rowsUpdated", deleted: "rowsDeleted", read: "rowsRead" },
  }),
  rate("dblwrFlushWaitEvents", fromSignal("doublewrite_flush_wait_events_per_second"), {
    gate: "innodbMetricsDblwr",
  }),
  rate("dblwrMutexWaitSeconds", fromSignal("doublewrite_mutex_wait_seconds_per_second"), {
    gate: "dblwrMutex",
  }),
  gauge("checkpointAgeBytes", fromSignal("checkpoint_age_bytes")),
  gauge("checkpointMaxAgeBytes", fromComponent("checkpointMaxAge")),
  gauge("dirtyPages", fromComponent("dirtyPages"), U),
  gauge("bufferPoolPages", fromComponent("bufferPoolPages"), U),
  gauge("pendingFsyncs", fromComponent("pendingFsyncs"), U),
  fileIo("writesPerSecond", fromSignal("file_writes_per_second")),
  fileIo("writeBytesPerSecond", fromSignal("file_write_bytes_per_second")),
  fileIo("writeSecondsPerSecond", fromComponent("fileWriteSeconds")),
  fileIo("miscPerSecond", fromSignal("file_misc_ops_per_second")),
  fileIo("miscSecondsPerSecond", fromComponent("fileMiscSeconds")),
  device("readIops", "rate", fromComponent("deviceReads"), true),
  device("writeIops", "rate", fromSignal("device_write_iops")),
  device("readBytesPerSecond", "rate", fromComponent("deviceReadBytes"), true),
  device("writeBytesPerSecond", "rate", fromSignal("device_write_bytes_per_second")),
  device("utilisationRatio", "rate", fromSignal("device_utilisation")),
  device("readSecondsPerSecond", "rate", fromComponent("deviceReadSeconds"), true),
  device("writeSecondsPerSecond", "rate", fromComponent("deviceWriteSeconds"), true),
  device("flushesPerSecond", "rate", fromSignal("device_flushes_per_second")),
  device("flushSecondsPerSecond", "rate", fromComponent("deviceFlushSeconds")),
  device("ioInProgress", "gauge", fromComponent("deviceIoInProgress"), true),
];

// ---- instant facts: configuration, storage, identity, instrumentation; latest value at the time ----

export type InstantKind = "info" | "int" | "bool" | "presence" | "class-flag";

export interface InstantSpec {
  /** Fact path for numbers and booleans (`config.pageSizeBytes`), or a name for label carriers. */
  readonly id: string;
  readonly kind: InstantKind;
  readonly build: Build;
  readonly untornOnly?: true;
  /** A replay that lacks this query answers it as empty instead of failing the read. */
  readonly optional?: true;
}

const info = (id: string, build: Build): InstantSpec => ({ id, kind: "info", build });
const int = (id: string, build: Build, untornOnly = false): InstantSpec => ({
  id,
  kind: "int",
  build,
  ...(untornOnly ? { untornOnly: true as const } : {}),
});
const bool = (id: string, build: Build): InstantSpec => ({ id, kind: "bool", build });

export const INSTANT: readonly InstantSpec[] = [
  info("server", fromSignal("server_info")),
  info("doublewriteMode", fromSignal("doublewrite_mode")),
  info("innodbConfig", fromSignal("innodb_config_info")),
  info("storageInfo", fromSignal("storage_info")),
  // Role and cluster as the servers and the scrape labels say (declared metadata overrides them).
  // Optional: recordings made before it answer nothing for it (facts.ts).
  { id: "topology", kind: "info", build: fromSignal("replication_role"), optional: true },
  { id: "up.untorn", kind: "presence", build: (o) => signals.mysql_up.vec({ ...o, source: "untorn" }) },
  // Instances that mysqld_exporter reaches; "any" plans only (the fallback is not read otherwise).
  { id: "up.fallback", kind: "presence", build: (o) => signals.mysql_up.vec({ ...o, source: "fallback" }) },
  int("uptimeSeconds", fromSignal("uptime_seconds")),
  { id: "fileIoInstrumented", kind: "class-flag", build: fromSignal("file_io_instrumented") },
  bool("dblwrMutexInstrumented", fromSignal("dblwr_mutex_instrumented")),
  bool("innodbMetricsDblwrEnabled", fromSignal("innodb_metrics_dblwr_enabled")),
  int("config.doublewritePages", fromSignal("doublewrite_pages_setting")),
  int("config.doublewriteFiles", fromSignal("doublewrite_files")),
  int("config.pageSizeBytes", fromSignal("page_size_bytes")),
  bool("config.useAtomicWrites", fromSignal("use_atomic_writes")),
  int("config.writeIoThreads", fromSignal("write_io_threads")),
  int("config.bufferPoolSizeBytes", fromSignal("buffer_pool_size_bytes")),
  int("config.bufferPoolInstances", fromSignal("buffer_pool_instances"), true),
  int("config.ioCapacity", fromSignal("io_capacity")),
  int("config.ioCapacityMax", fromSignal("io_capacity_max")),
  int("config.flushLogAtTrxCommit", fromSignal("flush_log_at_trx_commit")),
  int("config.redoLogCapacityBytes", fromSignal("redo_log_capacity_bytes")),
  bool("config.perfSchemaEnabled", fromSignal("perf_schema_enabled")),
  bool("storage.datadirVisible", fromSignal("datadir_visible")),
  int("storage.fsBlockSizeBytes", fromSignal("fs_block_size_bytes")),
  int("storage.fsClusterSizeBytes", fromSignal("fs_cluster_size_bytes")),
  int("storage.logicalBlockSizeBytes", fromSignal("logical_block_size_bytes")),
  int("storage.physicalBlockSizeBytes", fromSignal("physical_block_size_bytes")),
  bool("storage.rotational", fromSignal("rotational")),
  bool("storage.writeCacheVolatile", fromSignal("write_cache_volatile")),
  bool("storage.atomicWrite.attributesPresent", fromSignal("atomic_write_attributes_present")),
  int("storage.atomicWrite.unitMinBytes", fromSignal("atomic_write_unit_min_bytes"), true),
  int("storage.atomicWrite.unitMaxBytes", fromSignal("atomic_write_unit_max_bytes")),
  int("storage.atomicWrite.maxBytes", fromSignal("atomic_write_max_bytes"), true),
  int("storage.atomicWrite.boundaryBytes", fromSignal("atomic_write_boundary_bytes"), true),
];

// ---- the plan ----

export type QueryKind = "instant" | "quality" | "windowed";

export interface PlannedQuery {
  /** An INSTANT or WINDOWED spec id, or "quality". */
  readonly id: string;
  readonly kind: QueryKind;
  readonly expr: string;
  /** See InstantSpec.optional. */
  readonly optional?: true;
}

export const QUALITY_QUERY = "quality";

const seconds = (s: number) => `${s}s`;

/**
 * Every query of a facts evaluation, in a fixed order; the same list whatever the fleet size.
 * Instant facts go one per query: a union of tens of tagged vectors (`a or b or ...`) costs Prometheus
 * more than the separate queries (each `or` hashes the growing left side). Window statistics of one
 * quantity share a request.
 */
export function factQueries(p: PlanOptions): PlannedQuery[] {
  const base: BuildOpts = { selector: p.selector, window: p.window, source: p.source };
  const step = seconds(p.stepSeconds);
  const out: PlannedQuery[] = [];
  for (const s of INSTANT) {
    if (p.source === "untorn" && s.id === "up.fallback") continue;
    out.push({
      id: s.id,
      kind: "instant",
      expr: s.build(base).q,
      ...(s.optional ? { optional: s.optional } : {}),
    });
  }
  out.push({
    id: QUALITY_QUERY,
    kind: "quality",
    expr: union([
      tag(signals.restarts.vec({ ...base }), FACT_LABEL, "restarts"),
      // Window quality: restarts, and the share of steps without samples.
      tag(sampledSteps(base, p.rateWindow, p.window, step), FACT_LABEL, "sampledSteps"),
      tag(stepCount(p.window, step), FACT_LABEL, "steps"),
    ]).q,
  });
  const tier2 = p.recorded && p.recordedWindow && windowRulesUsable(p) === null;
  for (const s of WINDOWED) {
    const window =
      tier2 && s.build.recorded ? windowRecordedStats(s.build.recorded(base), p.stats, p.window) : null;
    if (window) {
      // Plain selectors: the statistics as of untorn.window's last evaluation.
      out.push({ id: s.id, kind: "windowed", expr: window.q });
      continue;
    }
    if (p.recorded && s.build.recorded) {
      out.push({
        id: s.id,
        kind: "windowed",
        // A recorded rate at time t covers (t - RULE_WINDOW, t]; a recorded gauge is the value at t.
        expr: recordedWindowStats(
          s.build.recorded(base),
          p.stats,
          p.window,
          s.kind === "rate" ? avgRange(p.window) : p.window,
          step,
        ).q,
      });
      continue;
    }
    const whole = s.build(base);
    const perStep = s.kind === "rate" ? s.build({ ...base, window: p.rateWindow }) : whole;
    out.push({
      id: s.id,
      kind: "windowed",
      expr: windowStats(s.kind, whole, perStep, p.stats, p.window, step).q,
    });
  }
  return out;
}

/**
 * The range the average of a recorded RULE_WINDOW rate is taken over: the window less the rule's own rate
 * window, so the rates averaged cover the window and no more (the whole window when it is not longer).
 */
export const avgRange = (window: string): string => recordedAvgRange(window, RULE_WINDOW);

/**
 * Whether a plan may read recorded series at all: the rules record source "any" and keep only the
 * `instance` label (their `sum by (instance)` drops every other), so a selector on any other label, or
 * untorn-exporter-only reading, needs the raw series. Returns the reason when not, null when it may.
 */
export function recordingRulesUsable(p: { selector: Selector; source: FleetSource }): string | null {
  if (p.source !== "any")
    return "untorn-exporter-only reading (the recording rules also read mysqld_exporter)";
  const other = Object.keys(p.selector).filter((k) => k !== "instance");
  if (other.length) return `a selector on ${other.join(", ")} (recorded series keep only the instance label)`;
  return null;
}

/**
 * Whether a plan may read untorn.window's statistics (given that it may read recorded series at all): its
 * window and every statistic it asks are the recorded ones. Returns the reason when not, null when it may.
 */
export function windowRulesUsable(p: { window: string; stats: readonly Stat[] }): string | null {
  if (windowRecorded(p.window, p.stats)) return null;
  if (p.window !== RECORDED_WINDOW.window)
    return `a ${p.window} window (untorn.window records ${RECORDED_WINDOW.window})`;
  const extra = p.stats.filter((s) => !(RECORDED_WINDOW.stats as readonly Stat[]).includes(s));
  return `${extra.join(", ")} asked (untorn.window records ${RECORDED_WINDOW.stats.join(", ")})`;
}

/**
 * The advisor reads the window average and the p95 (max only when p95 is absent). Each other statistic
 * costs Prometheus one more subquery evaluation per quantity (about half of a fleet profile's time for
 * max alone), so p50, p99 and max are opt-in. They are the statistics untorn.window records.
 */
export const DEFAULT_STATS: readonly Stat[] = RECORDED_WINDOW.stats;

/** Seconds in a PromQL duration; throws InvalidDurationError with a readable message. */
export function durationSeconds(d: string): number {
  return parseDuration(d) / 1000;
}

/**
 * Defaults that adapt to the window: about 30 steps (1 s to 5 min apart), and the catalog's per-step rate
 * window (rateWindowSeconds: twice the step but at least 4 scrape intervals, never longer than the window).
 */
export function planOptions(opts: {
  window: string;
  stepSeconds?: number;
  rateWindow?: string;
  stats?: readonly Stat[];
  selector?: Selector;
  source?: FleetSource;
  recorded?: boolean;
  recordedWindow?: boolean;
}): PlanOptions {
  const windowS = durationSeconds(opts.window);
  if (!(windowS > 0)) throw new RangeError(`window ${opts.window} must be longer than 0`);
  const step = opts.stepSeconds ?? Math.min(300, Math.max(1, Math.round(windowS / 30)));
  if (!Number.isInteger(step) || step < 1)
    throw new RangeError(`step must be whole seconds ≥ 1, got ${step}`);
  const rateWindow = opts.rateWindow ?? seconds(rateWindowSeconds(step, { spanSeconds: windowS }));
  if (durationSeconds(rateWindow) <= 0)
    throw new RangeError("the per-step rate window must be longer than 0");
  const stats = opts.stats ?? DEFAULT_STATS;
  if (!stats.includes("avg")) throw new RangeError("stats must include avg (the advisor's window average)");
  return {
    window: opts.window,
    stepSeconds: step,
    rateWindow,
    stats: STATS.filter((s) => stats.includes(s)),
    selector: opts.selector ?? {},
    source: opts.source ?? "any",
    recorded: opts.recorded ?? false,
    recordedWindow: opts.recordedWindow ?? false,
  };
}

/** Selector of one instance, ANDed into every series selector. */
export const instanceSelector = (instance: string): Selector => ({ instance });

/** Ids of the windowed facts that a plan with `recorded` reads from the recording rules' series. */
export const RECORDED_SPEC_IDS: readonly string[] = WINDOWED.filter((s) => s.build.recorded).map((s) => s.id);
