/**
 * InstanceFacts for every instance of the fleet from a constant number of aggregate queries (plan.ts).
 * Missing stays missing: a field without data is left out of the facts and listed in `missing`, never
 * set to 0. A measured 0 (no doublewrite pages written) is a real 0.
 */
import {
  FILE_CLASSES,
  type FileClass,
  type InstanceFacts,
  instanceFactsSchema,
  type WindowStat,
} from "@untorn/advisor/facts";
import type { Selector } from "@untorn/catalog/promql";
import {
  RECORDED_WINDOW,
  RULES_PROBE_LABEL,
  RULES_PROBE_RECORD,
  recordingRulesProbe,
  WINDOW_PROBE_RECORD,
} from "@untorn/catalog/rules";
import { RULE_WINDOW } from "@untorn/catalog/signals";
import { FACT_LABEL, STAT_LABEL, STATS, type Stat } from "@untorn/catalog/window-stats";
import {
  DOUBLEWRITE_MODES,
  type DoublewriteMode,
  FLAVORS,
  type Flavor,
  REPLICATION_ROLES,
  type ReplicationRole,
  type STORAGE_LAYERS,
} from "@untorn/vocabulary/words";
import {
  CountingApi,
  mapLimit,
  nowOf,
  type PromQueryApi,
  ReplayMissError,
  type VectorSample,
} from "./api.js";
import {
  avgRange,
  durationSeconds,
  type FleetSource,
  factQueries,
  INSTANT,
  instanceSelector,
  type PlannedQuery,
  type PlanOptions,
  planOptions,
  recordingRulesUsable,
  WINDOWED,
  type WindowedSpec,
  windowRulesUsable,
} from "./plan.js";
import { observedSeconds, type RateSemantics, youngRateFactor } from "./young.js";

export interface FleetFactsOptions {
  /** PromQL duration the workload statistics cover, e.g. "1h". */
  readonly window: string;
  /** Evaluation time (end of the window), Unix seconds. Default: the api's now. */
  readonly at?: number;
  /** Label matchers ANDed into every series selector, e.g. { cluster: "prod" }. */
  readonly selector?: Selector;
  /** Seconds between per-step values (quantiles, max). Default about window / 30. */
  readonly stepSeconds?: number;
  /** Per-step rate() window. Default max(2 × step, 1m), at most the window. */
  readonly rateWindow?: string;
  /** Statistics to compute; avg is required. Default avg and p95 (DEFAULT_STATS). */
  readonly stats?: readonly Stat[];
  /** "any" (default) also reads mysqld_exporter / node_exporter where untorn-exporter is absent. */
  readonly source?: FleetSource;
  /**
   * Read the recording rules' series where they are loaded (default true): one probe request first, then
   * the recorded rates in place of raw ones. false: raw series only, no probe.
   */
  readonly recordingRules?: boolean;
  /**
   * With recordingRules: read untorn.window's recorded window statistics where they apply (default
   * true); false reads the per-instance rates even then (to compare the two).
   */
  readonly windowRules?: boolean;
  /** Queries in flight at once (a PromClient also caps this itself). Default 4. */
  readonly concurrency?: number;
  /** Called after each query with (done, total). */
  readonly onProgress?: (done: number, total: number) => void;
  /** profileFleet: called once the queries are in, before the (CPU-bound) advice and ranking. */
  readonly onAdvising?: (instances: number) => void;
}

export interface SkippedInstance {
  readonly instance: string;
  readonly reason: string;
}

export interface ExporterPresence {
  /** untorn-exporter's series exist for the instance (untorn_mysql_up). */
  readonly untorn: boolean;
  /** mysqld_exporter's series exist for the instance (mysql_up). */
  readonly mysqldExporter: boolean;
}

export interface FleetFacts {
  /** One per instance with a known flavor and version, sorted by instance. */
  readonly facts: InstanceFacts[];
  /** Per instance: fact paths without data in the window (unknown, not zero). */
  readonly missing: Readonly<Record<string, readonly string[]>>;
  /** Instances seen but without facts, and why (database unreachable, no version...). */
  readonly skipped: readonly SkippedInstance[];
  readonly exporters: Readonly<Record<string, ExporterPresence>>;
  /** PromQL requests made: the same for 1 and for 10,000 instances. */
  readonly queries: number;
  /** Server warnings and data problems (values dropped as invalid), deduplicated. */
  readonly warnings: readonly string[];
  readonly at: number;
  readonly plan: PlanOptions;
  /** Whether the window statistics came from the recording rules' series, and why not when they did not. */
  readonly recordingRules: RecordingRulesUse;
  /**
   * Why "now" was read in the past, when it was (VictoriaMetrics' -search.latencyOffset), or why the
   * backend could not be told; null otherwise, and when the caller gave the time.
   */
  readonly clockNote: string | null;
}

export interface RecordingRulesUse {
  /** The window statistics came from recorded series (either tier). */
  readonly used: boolean;
  /** Why the raw series were read (rules not loaded, not covering the window, not applicable); null when used. */
  readonly fallbackReason: string | null;
  /**
   * Which series the window statistics were read from: untorn.window's recorded statistics ("window"),
   * the per-instance rates of untorn.rates ("rates"), or raw series ("raw").
   */
  readonly tier: RecordedTier;
  /**
   * Why untorn.window's statistics were not read when the per-instance rates were (another window or
   * statistic, group not loaded); with tier "window", how old its statistics may be. null with tier "raw".
   */
  readonly windowNote: string | null;
}

export type RecordedTier = "window" | "rates" | "raw";

type Labels = Readonly<Record<string, string>>;
type StatValues = Partial<Record<Stat, number>>;

interface Acc {
  readonly info: Map<string, Labels>;
  readonly numbers: Map<string, number>;
  readonly classFlags: Map<string, number>;
  presence: { untorn?: number; fallback?: number };
  /** Spec id → statistics, for specs not split by a label (one Map an instance, not one a spec). */
  readonly windowed: Map<string, StatValues>;
  /** Spec id → split label value → statistics, for split specs; in the order the values arrived. */
  readonly split: Map<string, Map<string, StatValues>>;
  restarts?: number;
  sampledSteps?: number;
}

const newAcc = (): Acc => ({
  info: new Map(),
  numbers: new Map(),
  classFlags: new Map(),
  presence: {},
  windowed: new Map(),
  split: new Map(),
});

const PAGE_SIZES = [4096, 8192, 16384, 32768, 65536] as const;
const MANAGED = ["none", "rds", "aurora"] as const;

/**
 * Facts for every instance matching the selector, from the fixed query plan (constant in fleet size).
 * @throws whatever the api throws (e.g. PromUnreachableError): no partial fleet is returned.
 */
export async function buildFleetFacts(api: PromQueryApi, opts: FleetFactsOptions): Promise<FleetFacts> {
  const counting = new CountingApi(api);
  const backend = await learnBackend(api);
  const clockNote = opts.at === undefined ? backend.note : null;
  const at = opts.at ?? nowOf(api);
  const rules = await probeRecordingRules(
    counting,
    planOptions(opts),
    { rates: opts.recordingRules ?? true, window: opts.windowRules ?? true },
    at,
  );
  const plan = planOptions({ ...opts, recorded: rules.used, recordedWindow: rules.tier === "window" });
  const queries = factQueries(plan);
  const collector = new FactsCollector(plan, at, backend.semantics);
  const probed = counting.count;
  let done = 0;
  // Each answer is folded in as it arrives and then dropped: for 10,000 instances one holds 20,000+ samples.
  await mapLimit(queries, opts.concurrency ?? 4, async (q) => {
    const a = await answer(counting, q, at);
    collector.add(q, a.data, a.warnings);
    opts.onProgress?.(probed + ++done, probed + queries.length);
  });
  return { ...collector.finish(), queries: counting.count, recordingRules: rules, clockNote };
}

/**
 * One query's answer. An optional query that a recording made before it existed cannot answer reads as
 * no series (its facts stay unknown, as they were when it was recorded); any other failure fails the read.
 */
async function answer(api: PromQueryApi, q: PlannedQuery, at: number) {
  try {
    return await api.queryVector(q.expr, { time: at });
  } catch (err) {
    if (q.optional && err instanceof ReplayMissError) return { data: [], warnings: [] };
    throw err;
  }
}

/**
 * Asks the api which backend it is (once per client: PromClient caches the answer) so that nowOf() is
 * the same moment on Prometheus and VictoriaMetrics, and young servers' rates read alike (young.ts). A
 * backend that cannot be told is read as Prometheus, and the note says so; a dead server fails the
 * queries that follow with their own error.
 */
async function learnBackend(api: PromQueryApi): Promise<{ note: string | null; semantics: RateSemantics }> {
  if (!api.backend) return { note: null, semantics: "prometheus" };
  try {
    const b = await api.backend();
    return { note: b.note, semantics: b.kind === "victoriametrics" ? "victoriametrics" : "prometheus" };
  } catch (err) {
    return {
      note: `could not tell which backend answers (${(err as Error).message}): "now" is the wall clock`,
      semantics: "prometheus",
    };
  }
}

/**
 * Whether the recorded series may stand in for raw ones: the plan allows it (recordingRulesUsable) and
 * one probe request finds the rules' series now and at the window's start. Then whether untorn.window's
 * statistics may stand in for those taken over the per-instance rates: the plan's window and statistics
 * are the recorded ones (windowRulesUsable) and the same request finds the group's series now. Only
 * then, so they are read only where the per-instance rates they are taken over cover the whole window.
 * The probe is always sent when the plan allows it, so the request count does not depend on the answer.
 */
async function probeRecordingRules(
  api: PromQueryApi,
  plan: PlanOptions,
  wanted: { readonly rates: boolean; readonly window: boolean },
  at: number,
): Promise<RecordingRulesUse> {
  const raw = (fallbackReason: string): RecordingRulesUse => ({
    used: false,
    fallbackReason,
    tier: "raw",
    windowNote: null,
  });
  if (!wanted.rates) return raw("recording rules not requested");
  const notUsable = recordingRulesUsable(plan);
  if (notUsable) return raw(`not applicable with ${notUsable}`);
  const instance = plan.selector.instance;
  if (instance !== undefined && typeof instance !== "string")
    return raw("not applicable with an instance pattern");
  const a = await api.queryVector(recordingRulesProbe(plan.window, instance), { time: at });
  const count = (which: string) => a.data.find((x) => x.labels[RULES_PROBE_LABEL] === which)?.value ?? 0;
  if (!(count("now") > 0 && count("start") > 0))
    return raw(
      count("now") > 0
        ? `the recording rules' series (${RULES_PROBE_RECORD}) do not reach back to the window's start`
        : `the recording rules are not loaded (no ${RULES_PROBE_RECORD} series)`,
    );
  // The per-instance rates cover the window, so untorn.window's statistics (taken over them) do too.
  const notWindow = wanted.window ? windowRulesUsable(plan) : "untorn.window not requested";
  if (notWindow)
    return {
      used: true,
      fallbackReason: null,
      tier: "rates",
      windowNote: `per-instance rates read: ${notWindow}`,
    };
  if (!(count("window") > 0))
    return {
      used: true,
      fallbackReason: null,
      tier: "rates",
      windowNote: `per-instance rates read: the untorn.window rules are not loaded (no ${WINDOW_PROBE_RECORD} series)`,
    };
  return {
    used: true,
    fallbackReason: null,
    tier: "window",
    windowNote: `recorded ${plan.window} statistics read: as of the untorn.window rules' last evaluation, at most ${RECORDED_WINDOW.interval} (their evaluation interval) plus the evaluation's lag before the time read`,
  };
}

/**
 * Facts of one instance: the fleet plan narrowed by an instance selector (the same number of queries,
 * each reading only that instance's series). Returns null facts when the instance has none.
 */
export async function instanceFacts(
  api: PromQueryApi,
  instance: string,
  opts: FleetFactsOptions,
): Promise<FleetFacts & { readonly instance: InstanceFacts | null }> {
  const fleet = await buildFleetFacts(api, {
    ...opts,
    selector: { ...(opts.selector ?? {}), ...instanceSelector(instance) },
  });
  return { ...fleet, instance: fleet.facts.find((f) => f.identity.instance === instance) ?? null };
}

// ---- assembly (pure) ----

/** Builds FleetFacts from the answers of factQueries(plan), in the same order (pure). */
export function assemble(
  queries: readonly PlannedQuery[],
  answers: readonly (readonly VectorSample[])[],
  plan: PlanOptions,
  at: number,
): Omit<FleetFacts, "queries" | "recordingRules" | "clockNote"> {
  const c = new FactsCollector(plan, at);
  for (const [i, q] of queries.entries()) c.add(q, answers[i] ?? []);
  return c.finish();
}

/** Folds the plan's answers into per-instance accumulators, in any order; finish() builds the facts. */
export class FactsCollector {
  private readonly accs = new Map<string, Acc>();
  private readonly warnings = new Set<string>();
  private steps: number | undefined;

  /** `semantics`: whose rate() answered (young.ts); the Prometheus API's by default. */
  constructor(
    private readonly plan: PlanOptions,
    private readonly at: number,
    private readonly semantics: RateSemantics = "prometheus",
  ) {}

  private accOf(instance: string): Acc {
    let a = this.accs.get(instance);
    if (!a) {
      a = newAcc();
      this.accs.set(instance, a);
    }
    return a;
  }

  add(q: PlannedQuery, samples: readonly VectorSample[], warnings: readonly string[] = []): void {
    for (const w of warnings) this.warnings.add(w);
    if (q.kind === "instant") {
      const spec = INSTANT.find((x) => x.id === q.id);
      if (!spec) return;
      for (const s of samples) {
        const instance = s.labels.instance;
        if (instance === undefined) continue;
        const a = this.accOf(instance);
        if (spec.kind === "info") a.info.set(spec.id, s.labels);
        else if (spec.kind === "presence")
          a.presence[spec.id === "up.untorn" ? "untorn" : "fallback"] = s.value;
        else if (spec.kind === "class-flag") {
          const cls = s.labels.class;
          if (cls !== undefined) a.classFlags.set(cls, s.value);
        } else a.numbers.set(spec.id, s.value);
      }
    } else if (q.kind === "quality") {
      for (const s of samples) {
        const id = s.labels[FACT_LABEL];
        if (id === "steps") this.steps = s.value;
        const instance = s.labels.instance;
        if (instance === undefined) continue;
        if (id === "restarts") this.accOf(instance).restarts = s.value;
        else if (id === "sampledSteps") this.accOf(instance).sampledSteps = s.value;
      }
    } else {
      const spec = WINDOWED.find((x) => x.id === q.id);
      if (!spec) return;
      for (const s of samples) {
        const instance = s.labels.instance;
        const stat = s.labels[STAT_LABEL] as Stat | undefined;
        if (instance === undefined || stat === undefined || !STATS.includes(stat)) continue;
        const acc = this.accOf(instance);
        let values: StatValues | undefined;
        if (spec.split) {
          const key = s.labels[spec.split] ?? "";
          let byKey = acc.split.get(spec.id);
          if (!byKey) {
            byKey = new Map<string, StatValues>();
            acc.split.set(spec.id, byKey);
          }
          values = byKey.get(key);
          if (!values) {
            values = {};
            byKey.set(key, values);
          }
        } else {
          values = acc.windowed.get(spec.id);
          if (!values) {
            values = {};
            acc.windowed.set(spec.id, values);
          }
        }
        values[stat] = s.value;
      }
    }
  }

  finish(): Omit<FleetFacts, "queries" | "recordingRules" | "clockNote"> {
    const { accs, plan, at, steps, semantics } = this;
    const invalid = (what: string) => this.warnings.add(what);
    return finishFacts(accs, plan, at, steps, semantics, invalid, this.warnings);
  }
}

function finishFacts(
  accs: ReadonlyMap<string, Acc>,
  plan: PlanOptions,
  at: number,
  steps: number | undefined,
  semantics: RateSemantics,
  invalid: (what: string) => void,
  warnings: ReadonlySet<string>,
): Omit<FleetFacts, "queries" | "recordingRules" | "clockNote"> {
  const facts: InstanceFacts[] = [];
  const missing: Record<string, string[]> = {};
  const skipped: SkippedInstance[] = [];
  const exporters: Record<string, ExporterPresence> = {};
  const windowSeconds = durationSeconds(plan.window);

  for (const instance of [...accs.keys()].sort()) {
    const a = accs.get(instance)!;
    exporters[instance] = {
      untorn: a.presence.untorn !== undefined,
      mysqldExporter: a.presence.fallback !== undefined,
    };
    const server = serverOf(a.info.get("server"));
    if (!server) {
      skipped.push({ instance, reason: skipReason(a) });
      continue;
    }
    const draft = buildDraft(instance, a, server, plan, at, windowSeconds, steps, semantics, invalid);
    const parsed = validate(draft, instance, invalid);
    if (!parsed) {
      skipped.push({ instance, reason: "its facts do not validate (see warnings)" });
      continue;
    }
    facts.push(parsed);
    missing[instance] = missingPaths(parsed);
  }
  return { facts, missing, skipped, exporters, warnings: [...warnings], at, plan };
}

function skipReason(a: Acc): string {
  if (a.presence.untorn === 0 || (a.presence.untorn === undefined && a.presence.fallback === 0))
    return "the exporter cannot reach the database (mysql_up 0)";
  if (a.presence.untorn === undefined && a.presence.fallback === undefined)
    return "no mysql_up series from untorn-exporter or mysqld_exporter in the last 5 minutes before the evaluation time";
  return "no server flavor and version (untorn_server_info / mysql_version_info)";
}

const VERSION = /^\d+\.\d+\.\d+/;

function serverOf(labels: Labels | undefined): { flavor: Flavor; version: string; managed?: string } | null {
  if (!labels) return null;
  const flavor = labels.flavor as Flavor | undefined;
  const version = labels.version;
  if (!flavor || !FLAVORS.includes(flavor) || !version || !VERSION.test(version)) return null;
  const managed = labels.managed;
  return {
    flavor,
    version,
    ...(managed && (MANAGED as readonly string[]).includes(managed) ? { managed } : {}),
  };
}

const finiteNonNeg = (x: number | undefined): x is number => x !== undefined && Number.isFinite(x) && x >= 0;

function asInt(x: number | undefined): number | undefined {
  if (!finiteNonNeg(x)) return undefined;
  const r = Math.round(x);
  return Math.abs(x - r) < 1e-6 && Number.isSafeInteger(r) ? r : undefined;
}

const asBool = (x: number | undefined): boolean | undefined => (x === 1 ? true : x === 0 ? false : undefined);

const onOff = (s: string | undefined): boolean | undefined => {
  const v = s?.toUpperCase();
  return v === "ON" || v === "1" || v === "TRUE"
    ? true
    : v === "OFF" || v === "0" || v === "FALSE"
      ? false
      : undefined;
};

const nonEmpty = (s: string | undefined): string | undefined => (s === undefined || s === "" ? undefined : s);

/** A WindowStat from the statistics of one quantity; null when the window average is unknown. */
function windowStat(
  v: StatValues | undefined,
  what: string,
  invalid: (w: string) => void,
): WindowStat | null {
  if (!v) return null;
  const out: Record<string, number> = {};
  for (const s of STATS) {
    const x = v[s];
    if (x === undefined) continue;
    if (finiteNonNeg(x)) out[s] = x;
    else invalid(`${what}: dropped ${s} = ${x} (not a finite value ≥ 0)`);
  }
  if (out.avg === undefined) return null;
  return out as WindowStat;
}

/** Dotted paths split once: setPath runs for every fact of every instance. */
const splitPaths = new Map<string, readonly string[]>();
const partsOf = (path: string): readonly string[] => {
  let parts = splitPaths.get(path);
  if (!parts) {
    parts = path.split(".");
    splitPaths.set(path, parts);
  }
  return parts;
};

function setPath(root: Record<string, unknown>, path: string, value: unknown): void {
  const parts = partsOf(path);
  const last = parts.length - 1;
  let o = root;
  for (let i = 0; i < last; i++) {
    const p = parts[i]!;
    o[p] ??= {};
    o = o[p] as Record<string, unknown>;
  }
  o[parts[last]!] = value;
}

/** Layers between the file system and the disks, where the device name says so (docs/reference/atomic-storage.md §8.7). */
function layersOf(device: string | undefined, disks: readonly string[]): string[] | undefined {
  if (!device || disks.length === 0) return undefined;
  if (disks.includes(device)) return [];
  const one = (l: (typeof STORAGE_LAYERS)[number]) => [l];
  if (/^loop\d+$/.test(device)) return one("loop");
  if (/^md\d+/.test(device)) return one("md-raid");
  if (/^nbd\d+/.test(device)) return one("nbd");
  if (/^dm-\d+$/.test(device)) return one("dm-other");
  if (disks.length === 1 && device.startsWith(disks[0]!) && /^p?\d+$/.test(device.slice(disks[0]!.length)))
    return one("partition");
  return undefined;
}

function gateOpen(spec: WindowedSpec, a: Acc): boolean {
  if (!spec.gate) return true;
  // Fallback-only instances have no instrumentation gauges: keep what their exporter reported.
  const flag = a.numbers.get(
    spec.gate === "innodbMetricsDblwr" ? "innodbMetricsDblwrEnabled" : "dblwrMutexInstrumented",
  );
  return flag === undefined ? a.presence.untorn === undefined : flag === 1;
}

function buildDraft(
  instance: string,
  a: Acc,
  server: { flavor: Flavor; version: string; managed?: string },
  plan: PlanOptions,
  at: number,
  windowSeconds: number,
  steps: number | undefined,
  semantics: RateSemantics,
  invalid: (w: string) => void,
): Record<string, unknown> {
  const f: Record<string, unknown> = {
    schemaVersion: 1,
    identity: { instance },
    server: { flavor: server.flavor, version: server.version },
    config: {},
  };
  if (server.managed) setPath(f, "platform.managed", server.managed);
  const topology = a.info.get("topology");
  const role = topology?.role as ReplicationRole | undefined;
  if (role && REPLICATION_ROLES.includes(role)) setPath(f, "identity.role", role);
  const cluster = nonEmpty(topology?.cluster);
  if (cluster) setPath(f, "identity.cluster", cluster);

  const mode = a.info.get("doublewriteMode")?.mode as DoublewriteMode | undefined;
  if (mode && DOUBLEWRITE_MODES.includes(mode)) setPath(f, "config.doublewrite", mode);
  const cfg = a.info.get("innodbConfig");
  if (cfg) {
    const raw = nonEmpty(cfg.doublewrite);
    if (raw) setPath(f, "config.doublewriteRaw", raw);
    const fm = nonEmpty(cfg.flush_method);
    if (fm) setPath(f, "config.flushMethod", fm);
    for (const [label, path] of [
      ["data_file_buffering", "config.dataFileBuffering"],
      ["data_file_write_through", "config.dataFileWriteThrough"],
      ["use_fdatasync", "config.useFdatasync"],
    ] as const) {
      const b = onOff(nonEmpty(cfg[label]));
      if (b !== undefined) setPath(f, path, b);
    }
  }

  for (const spec of INSTANT) {
    if (!spec.id.startsWith("config.") && !spec.id.startsWith("storage.")) continue;
    const x = a.numbers.get(spec.id);
    if (x === undefined) continue;
    const v = spec.kind === "bool" ? asBool(x) : asInt(x);
    if (v === undefined) {
      invalid(
        `${instance} ${spec.id}: dropped ${x} (expected ${spec.kind === "bool" ? "0 or 1" : "a whole number ≥ 0"})`,
      );
      continue;
    }
    if (spec.id === "config.pageSizeBytes" && !(PAGE_SIZES as readonly number[]).includes(v as number)) {
      invalid(`${instance} config.pageSizeBytes: dropped ${v} (not an InnoDB page size)`);
      continue;
    }
    if (spec.id === "config.flushLogAtTrxCommit" && !(v === 0 || v === 1 || v === 2)) {
      invalid(`${instance} config.flushLogAtTrxCommit: dropped ${v} (expected 0, 1 or 2)`);
      continue;
    }
    setPath(f, spec.id, v);
  }

  const st = a.info.get("storageInfo");
  if (st) {
    const disks = (st.disks ?? "").split(",").filter(Boolean);
    if (nonEmpty(st.device)) setPath(f, "storage.device", st.device);
    if (disks.length) setPath(f, "storage.disks", disks);
    if (nonEmpty(st.model)) setPath(f, "storage.model", st.model);
    if (nonEmpty(st.fstype)) setPath(f, "storage.fsType", st.fstype!.toLowerCase());
    const mo = (st.mount_options ?? "").split(",").filter(Boolean);
    if (mo.length) setPath(f, "storage.mountOptions", mo);
    const layers = layersOf(nonEmpty(st.device), disks);
    if (layers) setPath(f, "storage.layers", layers);
  }

  const w: Record<string, unknown> = {
    windowSeconds,
    stepSeconds: plan.stepSeconds,
    end: new Date(at * 1000).toISOString(),
  };
  f.workload = w;
  // Restarts: the signal has a series only when there was one; with samples in the window, none is 0.
  if (a.restarts !== undefined) w.restarts = asInt(a.restarts);
  else if (a.sampledSteps !== undefined) w.restarts = 0;
  // A server started inside the window: rates averaged over the time it was observed, on every backend,
  // and the share of the window without samples is the time before it (the step counts differ by the
  // window's first step between Prometheus 2, whose ranges include their start, and VictoriaMetrics).
  const observed = observedSeconds({
    windowSeconds,
    stepSeconds: plan.stepSeconds,
    at,
    steps,
    sampledSteps: a.sampledSteps,
    uptimeSeconds: a.numbers.get("uptimeSeconds"),
    restarts: w.restarts as number | undefined,
  });
  if (observed !== null) {
    w.observedSeconds = Math.round(observed);
    w.gapRatio = Math.min(1, Math.max(0, 1 - observed / windowSeconds));
  } else if (a.sampledSteps !== undefined && steps !== undefined && steps > 0)
    w.gapRatio = Math.min(1, Math.max(0, 1 - a.sampledSteps / steps));
  // Factors of the window averages of rates, raw and recorded path (1 when not young or not Prometheus).
  const scale = observed === null ? null : youngFactors(semantics, observed, plan, windowSeconds);
  const averaged = (spec: WindowedSpec, v: StatValues | undefined): StatValues | undefined => {
    if (!scale || !v || v.avg === undefined || spec.kind !== "rate") return v;
    const k = plan.recorded && spec.build.recorded !== undefined ? scale.recorded : scale.raw;
    return k === 1 ? v : { ...v, avg: v.avg * k };
  };

  const instrumented = (cls: string) => {
    if (a.classFlags.size === 0) return a.presence.untorn === undefined; // fallback: no flags, keep data
    return a.classFlags.get(cls) === 1;
  };
  for (const spec of WINDOWED) {
    if (!spec.split) {
      const values = a.windowed.get(spec.id);
      if (!values || !gateOpen(spec, a)) continue;
      const s = windowStat(averaged(spec, values), `${instance} ${spec.id}`, invalid);
      if (s) setPath(w, spec.id, s);
      continue;
    }
    const byKey = a.split.get(spec.id);
    if (!byKey || !gateOpen(spec, a)) continue;
    const field = spec.id.slice(spec.id.indexOf(".") + 1);
    if (spec.split === "operation") {
      for (const [op, values] of byKey) {
        const target = spec.fields?.[op];
        const s = target ? windowStat(averaged(spec, values), `${instance} rates.${target}`, invalid) : null;
        if (target && s) setPath(w, `rates.${target}`, s);
      }
    } else if (spec.split === "class") {
      for (const [cls, values] of byKey) {
        if (!(FILE_CLASSES as readonly string[]).includes(cls) || !instrumented(cls)) continue;
        const s = windowStat(averaged(spec, values), `${instance} fileIo.${cls}.${field}`, invalid);
        if (s) setPath(w, `fileIo.${cls as FileClass}.${field}`, s);
      }
    }
  }
  return f;
}

function youngFactors(
  semantics: RateSemantics,
  observed: number,
  plan: PlanOptions,
  windowSeconds: number,
): { raw: number; recorded: number } {
  const span = {
    windowSeconds,
    ruleWindowSeconds: durationSeconds(RULE_WINDOW),
    avgRangeSeconds: durationSeconds(avgRange(plan.window)),
  };
  return {
    raw: youngRateFactor(semantics, "raw", observed, span),
    recorded: youngRateFactor(semantics, "recorded", observed, span),
  };
}

/** Parses the draft; a field the schema refuses is dropped (with a warning), never the instance. */
function validate(
  draft: Record<string, unknown>,
  instance: string,
  invalid: (w: string) => void,
): InstanceFacts | null {
  for (let attempt = 0; attempt < 10; attempt++) {
    const r = instanceFactsSchema.safeParse(draft);
    if (r.success) return r.data;
    for (const issue of r.error.issues) {
      const path = issue.path.map(String);
      invalid(`${instance} ${path.join(".")}: dropped (${issue.message})`);
      if (path.length <= 1) return null;
      let o = draft as Record<string, unknown>;
      for (const p of path.slice(0, -1)) o = (o[p] ?? {}) as Record<string, unknown>;
      delete o[path.at(-1)!];
    }
  }
  return null;
}

/** Every fact path the plan can fill (the `missing` universe), in a stable order. */
export const PLANNED_PATHS: readonly string[] = [
  "server.flavor",
  "server.version",
  "config.doublewrite",
  "config.doublewriteRaw",
  ...INSTANT.filter((s) => s.id.startsWith("config.") || s.id.startsWith("storage.")).map((s) => s.id),
  "storage.device",
  "storage.fsType",
  "workload.restarts",
  "workload.gapRatio",
  ...WINDOWED.flatMap((s) =>
    s.split === "operation"
      ? Object.values(s.fields ?? {}).map((f) => `workload.rates.${f}`)
      : s.split === "class"
        ? []
        : [`workload.${s.id}`],
  ),
  "workload.fileIo",
];

function get(root: unknown, path: string): unknown {
  let o = root;
  for (const p of partsOf(path)) {
    if (o === null || typeof o !== "object") return undefined;
    o = (o as Record<string, unknown>)[p];
  }
  return o;
}

function missingPaths(facts: InstanceFacts): string[] {
  return PLANNED_PATHS.filter((p) => {
    const v = get(facts, p);
    return (
      v === undefined || v === null || (p === "workload.fileIo" && Object.keys(v as object).length === 0)
    );
  });
}
