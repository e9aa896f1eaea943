import type { CollectorName, MetricDef } from "@untorn/catalog/metrics";
import type { Flavor } from "@untorn/vocabulary/words";
import { Counter, Gauge, type Registry } from "prom-client";

export type Labels = Record<string, string>;

/** A row from the server: column name → value as mysql2 returns it (strings for big numbers). */
export type Row = Record<string, unknown>;

/** The database side of one scrape: every query is bounded by the collector's budget. */
export interface Queryable {
  query(sql: string, params?: unknown[]): Promise<Row[]>;
}

export type { Flavor };

/** What the scrape learnt about the server before running the collectors. */
export interface ServerFacts {
  flavor: Flavor;
  /** e.g. "10.11.19-MariaDB-0+deb12u1". */
  version: string;
  /** [major, minor, patch]. */
  versionNumber: readonly [number, number, number];
  versionComment: string;
  datadir: string;
  /** innodb_page_size in bytes. */
  pageSize: number;
  performanceSchema: boolean;
}

/** Where the host collectors read /proc, /sys and /dev (a fixture tree in tests, /host in a container). */
export interface HostPaths {
  proc: string;
  sys: string;
  dev: string;
  /** Prefix for paths the server reports (its datadir) when the exporter runs in a container. */
  root: string;
}

/** Writes samples into the scrape's fresh registry, creating each metric on first use. */
export class Emitter {
  private readonly made = new Map<string, Gauge | Counter>();

  constructor(private readonly registry: Registry) {}

  private metric(def: MetricDef): Gauge | Counter {
    let m = this.made.get(def.name);
    if (!m) {
      const cfg = { name: def.name, help: def.help, labelNames: [...def.labels], registers: [this.registry] };
      m = def.type === "counter" ? new Counter(cfg) : new Gauge(cfg);
      this.made.set(def.name, m);
    }
    return m;
  }

  /** Sets a gauge or a counter's absolute value; NaN, infinities and negative counters are dropped. */
  set(def: MetricDef, value: number | bigint | undefined | null, labels: Labels = {}): void {
    if (value === undefined || value === null) return;
    const v = typeof value === "bigint" ? Number(value) : value;
    if (!Number.isFinite(v)) return;
    const m = this.metric(def);
    if (m instanceof Counter) {
      if (v < 0) return;
      m.inc(labels, v);
    } else {
      m.set(labels, v);
    }
  }
}

export interface CollectContext {
  /** Null for collectors that need no database (host.storage) when the server is unreachable. */
  db: Queryable;
  server: ServerFacts;
  emit: Emitter;
  host: HostPaths;
  signal: AbortSignal;
  /**
   * What collectors keep about this target from one scrape to the next (e.g. the last value emitted for
   * a counter derived from two reads, so it never goes down). Keyed by the collector's own key.
   */
  memory: Map<string, unknown>;
}

export interface Collector {
  readonly name: CollectorName;
  readonly description: string;
  readonly defaultEnabled: boolean;
  collect(ctx: CollectContext): Promise<void>;
}

/** Parses a SHOW STATUS / SHOW VARIABLES value as a number; ON/YES → 1, OFF/NO → 0, else undefined. */
export function parseNumeric(raw: unknown): number | undefined {
  if (raw === null || raw === undefined) return undefined;
  if (typeof raw === "number") return raw;
  if (typeof raw === "bigint") return Number(raw);
  const s = String(raw).trim();
  if (s === "") return undefined;
  const upper = s.toUpperCase();
  if (upper === "ON" || upper === "YES" || upper === "TRUE") return 1;
  if (upper === "OFF" || upper === "NO" || upper === "FALSE" || upper === "DISABLED") return 0;
  const n = Number(s);
  return Number.isFinite(n) ? n : undefined;
}

/** Name/value rows (SHOW GLOBAL STATUS/VARIABLES) as a map with the original name case. */
export function nameValueMap(rows: Row[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const r of rows) {
    const name = r["Variable_name"] ?? r["VARIABLE_NAME"];
    const value = r["Value"] ?? r["VARIABLE_VALUE"];
    if (typeof name === "string") out.set(name, value === null || value === undefined ? "" : String(value));
  }
  return out;
}
