/**
 * The signal model: units, where the data exists (Needs), and how a signal is made from components or read
 * directly.
 */
import { FLAVOR_NAMES, FLAVORS, type Flavor } from "@untorn/vocabulary/words";
import { fallbackMetrics as F, type FallbackExporter, type FallbackMetricKey } from "../fallback-metrics.js";
import { metrics as M, type MetricKey } from "../metrics.js";
import { instant, maxBy, orElse, type Vec } from "../promql.js";
import { type Component, type ExprOptions, gaugeOf, RULE_WINDOW, type SignalScope } from "./component.js";
import {
  type ComponentKey,
  canUseRecorded,
  components,
  recordedVec,
  renderComponent,
  scopeOf,
} from "./components.js";

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
  /** Series of the Untorn console's own /metrics (console-signals.ts), there only where it is scraped. */
  readonly console?: true;
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
  if (n.console) parts.push("the Untorn console's /metrics scraped");
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

export interface SignalSpec {
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
export interface DirectSpec extends Omit<SignalSpec, "build"> {
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

export function makeSignal(id: string, spec: SignalSpec): Signal {
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

export function makeDirect(id: string, spec: DirectSpec): Signal {
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
export const gaugeSignal = (
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
export const infoSignal = (
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
export const bothThreads = (io: string, sql: string): string =>
  `label_replace(${io}, "thread", "io", "", "") or label_replace(${sql}, "thread", "sql", "", "")`;

export const PS: Needs = { performanceSchema: true };
export const REPLICA: Needs = { replica: true };
export const MUTEX: Needs = { performanceSchema: true, mutexInstrument: true };
export const MYSQL_8020 = { mysql: "8.0.20", percona: "8.0.20" } as const;
export const MYSQL_ONLY_8020: Needs = { flavors: ["mysql", "percona"], minVersion: MYSQL_8020 };
export const DBLWR_CAPACITY: Needs = { minVersion: MYSQL_8020 };
export const CHECKPOINT: Needs = { minVersion: { mysql: "8.0.30", percona: "8.0.30", mariadb: "10.5" } };
export const HOST: Needs = { hostStorage: true };
export const EVENT: Needs = { event: true };
