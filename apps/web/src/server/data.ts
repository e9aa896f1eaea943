/**
 * The server-only data access layer: the one place that knows Prometheus (or the replay), the store and
 * the advisor together. Pages, the read API and Server Actions call these functions and nothing below.
 *
 * Fleet snapshots are cached per source: a recording until its file changes, a live fleet for
 * UNTORN_CACHE_SECONDS. Concurrent requests share one read (single flight). When the source fails the
 * last good snapshot is served, marked stale, with the error; without one the view says unavailable.
 */
import "server-only";
import type { Advice } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import type { PromQueryApi } from "@untorn/fleet/api";
import { type InstanceCharts, instanceCharts } from "@untorn/fleet/charts";
import { buildFleetFacts, type ExporterPresence } from "@untorn/fleet/facts";
import { applyMetadata } from "@untorn/fleet/profile";
import type { InstanceMetadata, Store } from "@untorn/store/store";
import { type Env, env } from "../env.js";
import type { FleetRow } from "../lib/fleet-row.js";
import { RANGE_KEYS, RANGE_SECONDS, type RangeKey } from "../lib/ranges.js";
import { redactForReaders } from "../lib/redact.js";
import { readDeclaredFile } from "./declared.js";
import {
  buildSnapshotYielding,
  instanceAdvice,
  reviseSnapshot,
  type Snapshot,
  staleRows,
} from "./snapshot.js";
import {
  forgetReplays,
  type ReadingInfo,
  type ResolvedSource,
  readSource,
  resolveSource,
  type SourceInfo,
} from "./source.js";
import { getStore } from "./store.js";

export type { ReadingInfo, SourceInfo } from "./source.js";

export type StatusState = "ok" | "stale" | "unavailable" | "no-source";

export interface Status {
  readonly state: StatusState;
  /** What failed: the source's error, or why there is no source. */
  readonly error: string | null;
  /** Set when reading the fleet took longer than UNTORN_SLOW_MS. */
  readonly slowMs: number | null;
}

export interface FleetView {
  readonly source: SourceInfo;
  readonly status: Status;
  readonly snapshot: Snapshot | null;
  /** The snapshot's rows, marked stale when the snapshot is the last good one. */
  readonly rows: readonly FleetRow[];
}

interface CacheEntry {
  snapshot: Snapshot;
  expiresAt: number;
  staleRows?: FleetRow[];
  /** The store's metadata stamp the snapshot's metadata matches, and when it was last compared. */
  metaStamp?: string;
  metaCheckedAt?: number;
}

/** How often a cached snapshot asks the store whether its metadata is still current. */
const METADATA_RECHECK_MS = 1000;

/**
 * Brings a cached snapshot's metadata up to the store's: another console's save, a deletion, or the end
 * of a store outage shows within METADATA_RECHECK_MS, not at the next restart. One cheap query when
 * nothing changed; the changed instances are re-advised.
 */
async function refreshMetadata(e: Env, entry: CacheEntry): Promise<void> {
  if (entry.metaCheckedAt !== undefined && Date.now() - entry.metaCheckedAt < METADATA_RECHECK_MS) return;
  entry.metaCheckedAt = Date.now();
  let store: Awaited<ReturnType<typeof getStore>>;
  let stamp: string;
  try {
    store = await getStore(e);
    stamp = await store.instanceMetadataStamp();
  } catch (err) {
    entry.metaStamp = undefined;
    if (!entry.snapshot.storeProblem)
      entry.snapshot = { ...entry.snapshot, storeProblem: redactForReaders(message(err)) };
    return;
  }
  if (stamp === entry.metaStamp && !entry.snapshot.storeProblem) return;
  const rows = await store.listInstanceMetadata().catch(() => null);
  if (!rows) return;
  let snap = entry.snapshot;
  const current = new Map(rows.map((r) => [r.instance, r]));
  for (const r of rows) {
    const old = snap.metadata.get(r.instance);
    if (!old || old.version !== r.version || old.updatedAt.getTime() !== r.updatedAt.getTime())
      snap = reviseSnapshot(snap, r.instance, r);
  }
  for (const instance of [...snap.metadata.keys()])
    if (!current.has(instance)) snap = reviseSnapshot(snap, instance, null);
  if (snap.storeProblem) snap = { ...snap, storeProblem: null };
  if (snap !== entry.snapshot) {
    entry.snapshot = snap;
    entry.staleRows = undefined;
  }
  entry.metaStamp = stamp;
}

interface State {
  readonly cache: Map<string, CacheEntry>;
  readonly inflight: Map<string, Promise<Snapshot>>;
  readonly charts: Map<string, InstanceCharts>;
  /** The fleet read under way (the first one after a start takes seconds at 10,000 instances). */
  reading?: FleetReading | null;
}

/** What a fleet read under way is doing, for the page's "reading the fleet" state and the log. */
export type FleetReading =
  | {
      readonly phase: "replay";
      readonly file: string;
      readonly bytesRead: number;
      readonly bytes: number;
      readonly since: number;
    }
  | { readonly phase: "facts" | "advice"; readonly since: number; readonly instances: number | null };

// One per process even when a dev server reloads this module.
const shared = globalThis as { __untornData?: State };
shared.__untornData ??= { cache: new Map(), inflight: new Map(), charts: new Map() };
const state: State = shared.__untornData;

const message = (err: unknown) => (err instanceof Error ? err.message : String(err));

async function readMetadata(e: Env): Promise<{ rows: InstanceMetadata[]; problem: string | null }> {
  try {
    const store = await getStore(e);
    return { rows: await store.listInstanceMetadata(), problem: null };
  } catch (err) {
    console.error(`untorn: fleet metadata unavailable: ${message(err)}`);
    return { rows: [], problem: redactForReaders(message(err)) };
  }
}

/**
 * The api with a turn of the event loop before each query: answering from a replay never waits on I/O,
 * so without it the 75 queries of a fleet read would hold every other request for seconds.
 */
function yielding(api: PromQueryApi): PromQueryApi {
  const turn = () => new Promise<void>((r) => setImmediate(r));
  const out: PromQueryApi = {
    queryVector: async (expr, opts) => {
      await turn();
      return api.queryVector(expr, opts);
    },
    queryRange: async (expr, opts) => {
      await turn();
      return api.queryRange(expr, opts);
    },
  };
  if (api.defaultTime) out.defaultTime = () => api.defaultTime!();
  if (api.backend) out.backend = () => api.backend!();
  return out;
}

async function readSnapshot(e: Env, src: ResolvedSource): Promise<Snapshot> {
  if (!src.api || !src.factsOptions) throw new Error("no source");
  const t0 = performance.now();
  const fetchedAt = Date.now();
  state.reading = { phase: "facts", since: fetchedAt, instances: null };
  const measured = await buildFleetFacts(
    src.info.kind === "live" ? src.api : yielding(src.api),
    src.factsOptions,
  );
  const fetchMs = performance.now() - t0;
  state.reading = { phase: "advice", since: fetchedAt, instances: measured.facts.length };
  // Declared facts join the measured ones first; what users store is overlaid on both.
  const declared = src.metadataFile ? readDeclaredFile(src.metadataFile) : null;
  const overlay = applyMetadata(measured.facts, declared?.instances ?? undefined);
  const fleet = { ...measured, facts: overlay.facts, warnings: [...measured.warnings, ...overlay.warnings] };
  const meta = await readMetadata(e);
  return buildSnapshotYielding({
    fleet,
    metadata: meta.rows,
    storeProblem: meta.problem,
    declared: declared && {
      file: declared.file,
      instances: declared.instances?.size ?? 0,
      problem: declared.problem,
    },
    fetchedAt,
    fetchMs,
    window: fleet.plan.window,
  });
}

function singleFlight(e: Env, src: ResolvedSource): Promise<Snapshot> {
  let p = state.inflight.get(src.key);
  if (!p) {
    p = readSnapshot(e, src).then(
      (s) => {
        console.log(
          `untorn: read the fleet: ${s.rows.length} instances, facts in ${(s.fetchMs / 1000).toFixed(1)} s (${s.queries} queries), advice in ${(s.adviseMs / 1000).toFixed(1)} s`,
        );
        return s;
      },
      (err: unknown) => {
        console.error(`untorn: reading the fleet failed: ${message(err)}`);
        throw err;
      },
    );
    p = p.finally(() => {
      state.inflight.delete(src.key);
      if (state.inflight.size === 0) state.reading = null;
    });
    state.inflight.set(src.key, p);
  }
  return p;
}

/**
 * What a fleet read under way is doing, or null when none is: reading the replay file (bytes of its
 * size), computing the facts, or advising. Starts reading a replay file when none is under way.
 */
export function fleetReading(e: Env = env()): FleetReading | null {
  const src = resolveSource(e);
  if (src.info.kind === "reading")
    return {
      phase: "replay",
      file: src.info.file,
      bytesRead: src.info.bytesRead,
      bytes: src.info.bytes,
      since: src.info.since,
    };
  return state.inflight.size > 0 ? (state.reading ?? null) : null;
}

function ttlMs(e: Env, src: ResolvedSource): number {
  // A recording does not change under the same key (its key carries the file's size and mtime).
  return src.info.kind === "live" ? e.UNTORN_CACHE_SECONDS * 1000 : Number.POSITIVE_INFINITY;
}

/** The fleet: fresh, cached, or the last good snapshot marked stale. Never throws for source failures. */
export async function getFleetView(e: Env = env()): Promise<FleetView> {
  const src = await readSource(e);
  if (!src.api) {
    const error = src.info.kind === "invalid" ? `replay file ${src.info.file}: ${src.info.error}` : null;
    return {
      source: src.info,
      status: { state: src.info.kind === "invalid" ? "unavailable" : "no-source", error, slowMs: null },
      snapshot: null,
      rows: [],
    };
  }
  const cached = state.cache.get(src.key);
  if (cached) await refreshMetadata(e, cached);
  if (cached && cached.expiresAt > Date.now())
    return {
      source: src.info,
      status: okStatus(e, cached.snapshot),
      snapshot: cached.snapshot,
      rows: cached.snapshot.rows,
    };
  try {
    const snapshot = await singleFlight(e, src);
    const entry = state.cache.get(src.key);
    // A metadata save may have revised the entry while this read was in flight; keep the newer one.
    if (!entry || entry.snapshot.fetchedAt <= snapshot.fetchedAt)
      state.cache.set(src.key, { snapshot, expiresAt: Date.now() + ttlMs(e, src) });
    if (src.info.kind === "live")
      for (const k of state.cache.keys()) if (k !== src.key) state.cache.delete(k);
    return { source: src.info, status: okStatus(e, snapshot), snapshot, rows: snapshot.rows };
  } catch (err) {
    const status: Status = {
      state: cached ? "stale" : "unavailable",
      error: redactForReaders(message(err)),
      slowMs: null,
    };
    if (!cached) return { source: src.info, status, snapshot: null, rows: [] };
    cached.staleRows ??= staleRows(cached.snapshot.rows);
    return { source: src.info, status, snapshot: cached.snapshot, rows: cached.staleRows };
  }
}

function okStatus(e: Env, s: Snapshot): Status {
  return { state: "ok", error: null, slowMs: s.fetchMs > e.UNTORN_SLOW_MS ? Math.round(s.fetchMs) : null };
}

/** What the layout shows about the source without reading any metrics (a replay may be "reading"). */
export function getSourceInfo(e: Env = env()): SourceInfo | ReadingInfo {
  return resolveSource(e).info;
}

export interface InstanceView {
  readonly source: SourceInfo;
  readonly status: Status;
  readonly instance: string;
  readonly at: number;
  readonly window: string;
  /** Facts with the stored metadata overlaid: what the advisor saw. */
  readonly facts: InstanceFacts;
  readonly measured: InstanceFacts;
  readonly advice: Advice;
  readonly row: FleetRow;
  readonly missing: readonly string[];
  readonly exporters: ExporterPresence;
  readonly metadata: InstanceMetadata | null;
  readonly declared: readonly string[];
  readonly conflicts: readonly string[];
  readonly storeProblem: string | null;
}

export type InstanceLookup =
  | { readonly kind: "found"; readonly view: InstanceView }
  | {
      readonly kind: "skipped";
      readonly source: SourceInfo;
      readonly status: Status;
      readonly reason: string;
    }
  | { readonly kind: "not-found"; readonly source: SourceInfo; readonly status: Status }
  | { readonly kind: "unavailable"; readonly source: SourceInfo; readonly status: Status };

export async function getInstance(instance: string, e: Env = env()): Promise<InstanceLookup> {
  const fleet = await getFleetView(e);
  const snap = fleet.snapshot;
  if (!snap) return { kind: "unavailable", source: fleet.source, status: fleet.status };
  const merged = snap.merged.get(instance);
  const measured = snap.measured.get(instance);
  const row = fleet.rows.find((r) => r.instance === instance);
  // The snapshot keeps only what the fleet pages read: this instance's full advice is advised again.
  const advised = merged && measured && row ? instanceAdvice(snap, instance) : null;
  if (!advised || !merged || !measured || !row) {
    const skipped = snap.skipped.find((s) => s.instance === instance);
    if (skipped)
      return { kind: "skipped", source: fleet.source, status: fleet.status, reason: skipped.reason };
    return { kind: "not-found", source: fleet.source, status: fleet.status };
  }
  if ("failed" in advised)
    return { kind: "skipped", source: fleet.source, status: fleet.status, reason: advised.failed };
  const advice = advised.advice;
  return {
    kind: "found",
    view: {
      source: fleet.source,
      status: fleet.status,
      instance,
      at: snap.at,
      window: snap.window,
      facts: merged.facts,
      measured,
      advice,
      row,
      missing: snap.missing[instance] ?? [],
      exporters: snap.exporters[instance] ?? { untorn: false, mysqldExporter: false },
      metadata: snap.metadata.get(instance) ?? null,
      declared: merged.declared,
      conflicts: merged.conflicts,
      storeProblem: snap.storeProblem,
    },
  };
}

// ---- charts ----

export interface ChartWindow {
  readonly key: RangeKey;
  readonly start: number;
  readonly end: number;
  readonly step: number;
}

/** Ranges the source can serve: a recording only within its chart span, at its recorded step. */
export function chartRanges(src: ResolvedSource, now: number = Date.now() / 1000): ChartWindow[] {
  if (src.replay) {
    const c = src.replay.charts;
    if (!c) return [];
    const span = c.end - c.start;
    const out: ChartWindow[] = RANGE_KEYS.filter((k): k is Exclude<RangeKey, "all"> => k !== "all")
      .filter((k) => RANGE_SECONDS[k] < span)
      .map((k) => ({ key: k, start: c.end - RANGE_SECONDS[k], end: c.end, step: c.step }));
    out.push({ key: "all", start: c.start, end: c.end, step: c.step });
    return out;
  }
  return RANGE_KEYS.filter((k): k is Exclude<RangeKey, "all"> => k !== "all").map((k) => {
    const seconds = RANGE_SECONDS[k];
    // About 240 points per chart; the end on a 15 s boundary so views within one scrape interval agree.
    const step = Math.max(2, Math.round(seconds / 240));
    const end = Math.floor(now / 15) * 15;
    return { key: k, start: end - seconds, end, step };
  });
}

export interface ChartsView {
  readonly ranges: readonly ChartWindow[];
  readonly range: ChartWindow | null;
  readonly charts: InstanceCharts | null;
  readonly error: string | null;
  readonly stale: boolean;
}

export function defaultRange(src: ResolvedSource): RangeKey {
  return src.replay ? "all" : "1h";
}

export async function getInstanceCharts(
  instance: string,
  key: RangeKey | null,
  e: Env = env(),
): Promise<ChartsView> {
  const src = await readSource(e);
  const ranges = chartRanges(src);
  const range = ranges.find((r) => r.key === (key ?? defaultRange(src))) ?? ranges.at(-1) ?? null;
  if (!src.api || !range)
    return {
      ranges,
      range,
      charts: null,
      error: src.replay ? "this recording has no chart series" : null,
      stale: false,
    };
  const cacheKey = `${src.key}|${instance}|${range.key}`;
  try {
    const charts = await instanceCharts(src.api, instance, range);
    state.charts.delete(cacheKey);
    state.charts.set(cacheKey, charts);
    while (state.charts.size > 200) state.charts.delete(state.charts.keys().next().value!);
    return { ranges, range, charts, error: null, stale: false };
  } catch (err) {
    const last = state.charts.get(cacheKey) ?? null;
    return { ranges, range, charts: last, error: message(err), stale: last !== null };
  }
}

// ---- metadata ----

/** Store access for Server Actions; throws the store's open error. */
export async function metadataStore(e: Env = env()): Promise<Store> {
  return getStore(e);
}

/** Re-advises one instance in every cached snapshot after its metadata changed. */
export function metadataChanged(instance: string, meta: InstanceMetadata | null): void {
  for (const entry of state.cache.values()) {
    entry.snapshot = reviseSnapshot(entry.snapshot, instance, meta);
    entry.staleRows = undefined;
  }
}

/** Forgets every cached snapshot, chart and replay read (tests, and a source switch in a long-lived dev server). */
export function resetCaches(): void {
  state.cache.clear();
  state.inflight.clear();
  state.charts.clear();
  forgetReplays();
}
