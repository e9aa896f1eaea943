/**
 * The server-only data access layer's fleet read and its caches: the one place that knows Prometheus
 * (or the replay), the store and the advisor together. Pages, the read API and Server Actions call
 * these functions (and instance.ts, the instance page's reads over them) and nothing below.
 *
 * Fleet snapshots are cached per source: a recording until its file changes, a live fleet for
 * UNTORN_CACHE_SECONDS. Concurrent requests share one read (single flight). When the source fails the
 * last good snapshot is served, marked stale, with the error; without one the view says unavailable.
 *
 * The kept fleet read (kept-read.ts): each good read's measured facts are kept on disk; at start-up a
 * kept read of this build and source is served at once, each instance's kept advice reused when the
 * metadata it was derived from is unchanged (else advised again): for a replay file as the
 * file's own facts (it is not read again for the fleet), for a live source as the last read, marked
 * stale, while a fresh read runs and then replaces it.
 */
import "server-only";
import type { PromQueryApi } from "@untorn/fleet/api";
import type { InstanceCharts } from "@untorn/fleet/charts";
import { buildFleetFacts, type FleetFacts } from "@untorn/fleet/facts";
import {
  buildSnapshotYielding,
  type Snapshot as FleetSnapshot,
  type ReusableAdvice,
  reviseSnapshot,
} from "@untorn/fleet/pipeline";
import { timeRangeSeconds } from "@untorn/prom/duration";
import type { InstanceMetadata, Store } from "@untorn/store/store";
import { type Env, env } from "../../env.js";
import { type FleetRow, staleRows, webRows } from "../../lib/fleet-row.js";
import { errorMessage } from "../../lib/format.js";
import { redactForReaders } from "../../lib/redact.js";
import { getStore } from "../store.js";
import { largeWork, largeWorkBegins, largeWorkEnds } from "./collect.js";
import { readDeclaredFile } from "./declared.js";
import {
  type KeptSource,
  type KeptSourceIdentity,
  keptSourceKey,
  loadKeptRead,
  saveKeptRead,
} from "./kept-read.js";
import {
  forgetReplays,
  type ReadingInfo,
  type ReplayIdentity,
  type ResolvedSource,
  readSource,
  replayIdentity,
  resolveSource,
  type SourceInfo,
  shownPath,
} from "./source.js";

export type { ReadingInfo, SourceInfo } from "./source.js";

/** The web console's fleet snapshot: the pipeline's, with the store's metadata rows and the web's rows. */
export type Snapshot = FleetSnapshot<InstanceMetadata, FleetRow>;

export type StatusState = "ok" | "stale" | "unavailable" | "no-source";

export interface Status {
  readonly state: StatusState;
  /** What failed: the source's error, or why there is no source. */
  readonly error: string | null;
  /** Set when reading the fleet took longer than UNTORN_SLOW_MS. */
  readonly slowMs: number | null;
  /** Set when the fleet shown is the read kept from before the server's start (kept-read.ts). */
  readonly kept?: KeptStatus;
}

/** The fleet shown is the kept read. */
export interface KeptStatus {
  /** When its facts were read, ISO 8601. */
  readonly readAt: string;
  /**
   * "replay": the facts the replay file gives (same build, same file), not read again; "live": the
   * last read of a live source before the start, stale until the fresh read replaces it.
   */
  readonly origin: "replay" | "live";
  /** A fresh read of the source is under way (live). */
  readonly refreshing: boolean;
}

export interface FleetView {
  readonly source: SourceInfo;
  readonly status: Status;
  readonly snapshot: Snapshot | null;
  /** The snapshot's rows, marked stale when the snapshot is the last good one. */
  readonly rows: readonly FleetRow[];
  /** The time range asked for and what the view covers (set by getFleetView). */
  readonly range?: RangeInfo;
}

/** The time range a view was asked for (`?range=`) and the window its statistics cover. */
export interface RangeInfo {
  /** The range asked for, or null for the source's default window. */
  readonly asked: string | null;
  /** Why the window shown is not the one asked for (a recording holds one window), or null. */
  readonly note: string | null;
}

interface CacheEntry {
  snapshot: Snapshot;
  expiresAt: number;
  staleRows?: FleetRow[];
  /** A replay's source info, so the entry is served without reading the file (getFleetView). */
  source?: SourceInfo;
  /** Set when the snapshot was built from the kept read: when its facts were read, ms since the epoch. */
  keptReadAt?: number;
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
      entry.snapshot = { ...entry.snapshot, storeProblem: redactForReaders(errorMessage(err)) };
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
  /** The kept read's load, started by the first fleet view of the process. */
  kept?: KeptState | null;
}

interface KeptState {
  /** When the load began, ms since the epoch. */
  readonly since: number;
  /** The file being loaded (shown path), or null when there is nothing to load. */
  readonly file: string | null;
  loading: Promise<void>;
  done: boolean;
  /** A live source's kept read, served stale until a fresh read replaces it. */
  live: {
    readonly sourceKey: string;
    readonly entry: CacheEntry;
    readonly readAt: number;
    /** Why the last fresh read failed, or null. */
    error: string | null;
  } | null;
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
  | { readonly phase: "facts" | "advice"; readonly since: number; readonly instances: number | null }
  /** Loading the kept read of the last start (kept-read.ts) and advising it. */
  | { readonly phase: "kept"; readonly since: number; readonly file: string | null };

// One per process even when a dev server reloads this module.
const shared = globalThis as { __untornData?: State };
shared.__untornData ??= { cache: new Map(), inflight: new Map(), charts: new Map() };
const state: State = shared.__untornData;

async function readMetadata(e: Env): Promise<{ rows: InstanceMetadata[]; problem: string | null }> {
  try {
    const store = await getStore(e);
    return { rows: await store.listInstanceMetadata(), problem: null };
  } catch (err) {
    console.error(`untorn: fleet metadata unavailable: ${errorMessage(err)}`);
    return { rows: [], problem: redactForReaders(errorMessage(err)) };
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

/** What a kept read of `src` is keyed by: a live source's URL and window, a replay file's identity. */
function keptIdentity(e: Env, src: ResolvedSource, replay: ReplayIdentity | null): KeptSourceIdentity | null {
  if (src.info.kind === "live")
    return src.factsOptions?.window === e.UNTORN_WINDOW
      ? { kind: "live", url: src.info.url, window: e.UNTORN_WINDOW }
      : null;
  // The file as stat'ed now is the file read only when its key is the read's.
  if (src.info.kind === "recorded" && replay && replay.key === src.key)
    return { kind: "replay", file: replay.file, size: replay.size, mtimeMs: replay.mtimeMs };
  return null;
}

function keptSourceOf(src: ResolvedSource, id: KeptSourceIdentity): KeptSource {
  if (id.kind === "live" || src.info.kind !== "recorded") return id as KeptSource;
  const { recordedAt, recordedFrom, window, end, note } = src.info;
  return { ...id, recorded: { recordedAt, recordedFrom, window, end, note } };
}

async function readSnapshot(e: Env, src: ResolvedSource): Promise<Snapshot> {
  if (!src.api || !src.factsOptions) throw new Error("no source");
  const replay = src.info.kind === "recorded" ? replayIdentity(e) : null;
  const t0 = performance.now();
  const fetchedAt = Date.now();
  state.reading = { phase: "facts", since: fetchedAt, instances: null };
  const measured = await buildFleetFacts(
    src.info.kind === "live" ? src.api : yielding(src.api),
    src.factsOptions,
  );
  const fetchMs = performance.now() - t0;
  state.reading = { phase: "advice", since: fetchedAt, instances: measured.facts.length };
  const snapshot = await snapshotOf(e, src.metadataFile, measured, fetchedAt, fetchMs);
  const id = keptIdentity(e, src, replay);
  if (id) saveKeptRead(e, keptSourceOf(src, id), measured, { fetchedAt, fetchMs }, snapshot);
  return snapshot;
}

/**
 * The snapshot of measured facts: the declared file and the store's metadata read, and handed to the
 * fleet pipeline, which overlays them in that order and advises (an instance's advice taken from `reuse`,
 * the kept read's, when its inputs digest still matches).
 */
async function snapshotOf(
  e: Env,
  metadataFile: string | null,
  measured: FleetFacts,
  fetchedAt: number,
  fetchMs: number,
  reuse: ReadonlyMap<string, ReusableAdvice> | null = null,
): Promise<Snapshot> {
  const meta = await readMetadata(e);
  return buildSnapshotYielding({
    fleet: measured,
    metadata: meta.rows,
    storeProblem: meta.problem,
    declared: metadataFile ? readDeclaredFile(metadataFile) : null,
    reuse,
    rowsOf: webRows,
    fetchedAt,
    fetchMs,
    window: measured.plan.window,
  });
}

function singleFlight(e: Env, src: ResolvedSource): Promise<Snapshot> {
  let p = state.inflight.get(src.key);
  if (!p) {
    p = largeWork(() => readSnapshot(e, src)).then(
      (s) => {
        console.log(
          `untorn: read the fleet: ${s.rows.length} instances, facts in ${(s.fetchMs / 1000).toFixed(1)} s (${s.queries} queries), advice in ${(s.adviseMs / 1000).toFixed(1)} s`,
        );
        return s;
      },
      (err: unknown) => {
        console.error(`untorn: reading the fleet failed: ${errorMessage(err)}`);
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

const iso = (ms: number) => new Date(ms).toISOString();
const ago = (ms: number) => {
  const s = Math.max(0, Math.round((Date.now() - ms) / 1000));
  return s < 120 ? `${s} s` : s < 7200 ? `${Math.round(s / 60)} min` : `${(s / 3600).toFixed(1)} h`;
};

/**
 * Loads the kept read for the source `e` names, once per process (the first fleet view, at start-up):
 * a replay's snapshot goes into the cache under the key the file has once read, so it is served without
 * reading the file; a live source's is held in `state.kept.live` until a fresh read replaces it.
 */
function keptLoaded(e: Env): Promise<void> {
  if (state.kept) return state.kept.loading;
  const since = Date.now();
  let expect: KeptSourceIdentity | null = null;
  let replay: ReplayIdentity | null = null;
  let metadataFile: string | null = null;
  let liveUrl: string | null = null;
  if (e.PROMETHEUS_URL) {
    const src = resolveSource(e);
    if (src.info.kind === "live") {
      liveUrl = src.info.url;
      expect = { kind: "live", url: liveUrl, window: e.UNTORN_WINDOW };
      metadataFile = src.metadataFile;
    }
  } else {
    replay = replayIdentity(e);
    if (replay) {
      expect = { kind: "replay", file: replay.file, size: replay.size, mtimeMs: replay.mtimeMs };
      metadataFile = replay.metadataFile;
    }
  }
  const kept: KeptState = {
    since,
    file: replay ? shownPath(replay.file, process.cwd()) : null,
    loading: Promise.resolve(),
    done: false,
    live: null,
  };
  state.kept = kept;
  if (!expect) {
    kept.done = true;
    return kept.loading;
  }
  const wanted = expect;
  largeWorkBegins();
  let loaded = false;
  kept.loading = (async () => {
    let read = await loadKeptRead(e, wanted);
    if (!read) return;
    loaded = true;
    const h = read.header;
    const rejected = read.adviceRejected;
    const t0 = performance.now();
    const building = snapshotOf(e, metadataFile, read.fleet, h.fetchedAt, h.fetchMs, read.advice);
    // The snapshot holds what it needs of the read (facts and reused advice); the rest can go.
    read = null;
    const snapshot = await building;
    const advised = `${((performance.now() - t0) / 1000).toFixed(1)} s (${snapshot.reused} kept advice reused, ${snapshot.merged.size - snapshot.reused} advised again${rejected ? `, ${rejected} kept advice failed its check` : ""})`;
    if (state.kept !== kept) return;
    if (replay && h.source.kind === "replay") {
      const { recordedAt, recordedFrom, window, end, note } = h.source.recorded;
      const source: SourceInfo = {
        kind: "recorded",
        file: shownPath(replay.file, process.cwd()),
        recordedAt,
        recordedFrom,
        window,
        end,
        note,
      };
      if (!state.cache.has(replay.key))
        state.cache.set(replay.key, {
          snapshot,
          expiresAt: Number.POSITIVE_INFINITY,
          source,
          keptReadAt: h.fetchedAt,
        });
      console.log(
        `untorn: the fleet comes from the kept read of ${replay.file} (${h.instances} instances, facts read ${iso(h.fetchedAt)}, same build and file: not read again), advised in ${advised}`,
      );
    } else if (liveUrl) {
      kept.live = {
        sourceKey: keptSourceKey(wanted),
        entry: { snapshot, expiresAt: 0 },
        readAt: h.fetchedAt,
        error: null,
      };
      console.log(
        `untorn: serving the last read of ${liveUrl} (${h.instances} instances, as of ${iso(h.fetchedAt)}, ${ago(h.fetchedAt)} ago) from the kept read, advised in ${advised}; a fresh read replaces it when done`,
      );
    }
  })()
    .catch((err: unknown) =>
      console.error(`untorn: the kept fleet read could not be used: ${errorMessage(err)}`),
    )
    .finally(() => {
      kept.done = true;
      largeWorkEnds(loaded);
    });
  return kept.loading;
}

/** The kept read of a live source while no fresh read has replaced it, stale; starts the fresh read. */
async function keptLiveView(e: Env, src: ResolvedSource): Promise<FleetView | null> {
  const live = state.kept?.live;
  if (!live || src.info.kind !== "live") return null;
  if (live.sourceKey !== keptSourceKey({ kind: "live", url: src.info.url, window: e.UNTORN_WINDOW })) {
    state.kept!.live = null;
    return null;
  }
  if (!state.inflight.has(src.key))
    singleFlight(e, src).then(
      (snapshot) => {
        install(e, src, snapshot);
        if (state.kept?.live === live) state.kept.live = null;
      },
      (err: unknown) => {
        live.error = redactForReaders(errorMessage(err));
      },
    );
  await refreshMetadata(e, live.entry);
  live.entry.staleRows ??= staleRows(live.entry.snapshot.rows);
  return {
    source: src.info,
    status: {
      state: "stale",
      error: live.error,
      slowMs: null,
      kept: { readAt: iso(live.readAt), origin: "live", refreshing: state.inflight.has(src.key) },
    },
    snapshot: live.entry.snapshot,
    rows: live.entry.staleRows,
  };
}

/**
 * What a fleet read under way is doing, or null when none is: loading the kept read, reading the
 * replay file (bytes of its size), computing the facts, or advising. Starts reading a replay file when
 * none is under way and its snapshot is not cached.
 */
export function fleetReading(e: Env = env()): FleetReading | null {
  if (state.kept && !state.kept.done)
    return { phase: "kept", since: state.kept.since, file: state.kept.file };
  const replay = e.PROMETHEUS_URL ? null : replayIdentity(e);
  if (replay && state.cache.get(replay.key)?.source) return null;
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

function install(e: Env, src: ResolvedSource, snapshot: Snapshot): void {
  const entry = state.cache.get(src.key);
  // A metadata save may have revised the entry while this read was in flight; keep the newer one.
  if (!entry || entry.snapshot.fetchedAt <= snapshot.fetchedAt)
    state.cache.set(src.key, {
      snapshot,
      expiresAt: Date.now() + ttlMs(e, src),
      ...(src.info.kind === "recorded" ? { source: src.info } : {}),
    });
  if (src.info.kind !== "live") return;
  const base = src.key.split(WINDOW_KEY)[0]!;
  const others = [...state.cache.keys()].filter((k) => k !== src.key);
  for (const k of others) if (!k.startsWith(`${base}${WINDOW_KEY}`) && k !== base) state.cache.delete(k);
  // The same Prometheus over other ranges: the newest few are kept (one per preset and a custom one).
  const ranged = [...state.cache.keys()].filter((k) => k.includes(WINDOW_KEY));
  for (const k of ranged.slice(0, Math.max(0, ranged.length - MAX_RANGED))) state.cache.delete(k);
}

/** Cache keys of a live source read over another window than UNTORN_WINDOW: `<key>|window:<range>`. */
const WINDOW_KEY = "|window:";
const MAX_RANGED = 6;

/** A replay's cached snapshot, served without reading (or waiting for) the file; null when none. */
async function cachedReplayView(e: Env): Promise<FleetView | null> {
  if (e.PROMETHEUS_URL) return null;
  const replay = replayIdentity(e);
  const entry = replay ? state.cache.get(replay.key) : undefined;
  if (!entry?.source) return null;
  await refreshMetadata(e, entry);
  const status: Status =
    entry.keptReadAt === undefined
      ? okStatus(e, entry.snapshot)
      : {
          state: "ok",
          error: null,
          slowMs: null,
          kept: { readAt: iso(entry.keptReadAt), origin: "replay", refreshing: false },
        };
  return { source: entry.source, status, snapshot: entry.snapshot, rows: entry.snapshot.rows };
}

/**
 * The fleet over `range` (null: the source's default window): fresh, cached, or the last good snapshot
 * marked stale. A live source reads the range asked for; a recording holds one window, and the view
 * says so when another is asked for. Never throws for source failures.
 */
export async function getFleetView(e: Env = env(), range: string | null = null): Promise<FleetView> {
  if (range !== null && e.PROMETHEUS_URL && range !== e.UNTORN_WINDOW) {
    const base = await readSource(e);
    if (base.info.kind === "live" && base.api && base.factsOptions) {
      const src: ResolvedSource = {
        ...base,
        key: `${base.key}${WINDOW_KEY}${range}`,
        factsOptions: { ...base.factsOptions, window: range },
      };
      return { ...(await sourceView(e, src, false)), range: { asked: range, note: null } };
    }
  }
  const view = await defaultFleetView(e);
  return { ...view, range: { asked: range, note: rangeNote(e, view, range) } };
}

/** Why a recording's view does not cover `range`, or null when it does (or nothing was asked). */
function rangeNote(e: Env, view: FleetView, range: string | null): string | null {
  const s = view.snapshot;
  if (range === null || !s || view.source.kind !== "recorded" || range === s.window) return null;
  const src = resolveSource(e);
  const c = src.replay?.charts;
  // A recording covers at least its window, even when its chart series span less (or none).
  const spanS = Math.max(c ? c.end - c.start : 0, timeRangeSeconds(s.window));
  const span = spanText(spanS);
  if (timeRangeSeconds(range) > spanS)
    return `${range} is longer than the recording, which covers ${span}: the figures are over its recorded window of ${s.window}.`;
  return `A recording holds the fleet over the window it was recorded with only: the figures are over ${s.window}, not ${range} (the charts of an instance offer shorter ranges).`;
}

const spanText = (s: number) =>
  s >= 2 * 86_400
    ? `${(s / 86_400).toFixed(1)} days`
    : s >= 7200
      ? `${(s / 3600).toFixed(1)} hours`
      : s >= 120
        ? `${Math.round(s / 60)} minutes`
        : `${Math.round(s)} seconds`;

async function defaultFleetView(e: Env): Promise<FleetView> {
  await keptLoaded(e);
  const fromCache = await cachedReplayView(e);
  if (fromCache) return fromCache;
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
  return sourceView(e, src, true);
}

/** The view of a read source: its cached snapshot, the kept read (`kept`), a fresh read, or stale. */
async function sourceView(e: Env, src: ResolvedSource, kept: boolean): Promise<FleetView> {
  const cached = state.cache.get(src.key);
  if (cached) await refreshMetadata(e, cached);
  if (cached && cached.expiresAt > Date.now())
    return {
      source: src.info,
      status: okStatus(e, cached.snapshot),
      snapshot: cached.snapshot,
      rows: cached.snapshot.rows,
    };
  if (!cached && kept) {
    const keptView = await keptLiveView(e, src);
    if (keptView) return keptView;
  }
  try {
    const snapshot = await singleFlight(e, src);
    install(e, src, snapshot);
    return { source: src.info, status: okStatus(e, snapshot), snapshot, rows: snapshot.rows };
  } catch (err) {
    const status: Status = {
      state: cached ? "stale" : "unavailable",
      error: redactForReaders(errorMessage(err)),
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

/**
 * What the layout shows about the source without reading any metrics (a replay may be "reading"). A
 * replay served from its cached (or kept) snapshot, or whose kept read is being loaded, is not read.
 */
export function getSourceInfo(e: Env = env()): SourceInfo | ReadingInfo {
  const replay = e.PROMETHEUS_URL ? null : replayIdentity(e);
  if (replay) {
    const cached = state.cache.get(replay.key)?.source;
    if (cached) return cached;
    if (state.kept && !state.kept.done)
      return {
        kind: "reading",
        file: shownPath(replay.file, process.cwd()),
        bytesRead: 0,
        bytes: replay.size,
        since: state.kept.since,
      };
  }
  return resolveSource(e).info;
}

/** The instance charts' cache (instance.ts): the last charts of each source, instance and range. */
export function chartCache(): Map<string, InstanceCharts> {
  return state.charts;
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

/**
 * Forgets every cached snapshot, chart and replay read, and whether the kept read was loaded (tests, and
 * a source switch in a long-lived dev server): the next fleet view loads the kept read again, as a
 * restarted server does.
 */
export function resetCaches(): void {
  state.kept = null;
  state.cache.clear();
  state.inflight.clear();
  state.charts.clear();
  forgetReplays();
}
