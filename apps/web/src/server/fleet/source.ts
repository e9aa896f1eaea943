/**
 * Where the fleet's metrics come from: a live Prometheus (PROMETHEUS_URL), a replay file (UNTORN_REPLAY),
 * or the newest replay file in lab/recordings/ (found by walking up from the working directory), else
 * nothing, which the UI turns into "how to add an exporter / record a fleet".
 */
import fs from "node:fs";
import path from "node:path";
import type { PromQueryApi } from "@untorn/fleet/api";
import type { FleetFactsOptions } from "@untorn/fleet/facts";
import { sidecarMetadataPath } from "@untorn/fleet/metadata";
import {
  type ReplayApi,
  type ReplayMeta,
  readReplayApi,
  replayFactsOptions,
  shownRecordedFrom,
} from "@untorn/fleet/replay";
import { PromClient } from "@untorn/prom/client";
import type { Env } from "../../env.js";
import { redactForReaders } from "../../lib/redact.js";
import { largeWork } from "./collect.js";

export type SourceInfo =
  | { readonly kind: "live"; readonly url: string }
  | {
      readonly kind: "recorded";
      readonly file: string;
      readonly recordedAt: string;
      readonly recordedFrom: string;
      readonly window: string;
      /** Last evaluation time, Unix seconds. */
      readonly end: number;
      readonly note: string | null;
    }
  | { readonly kind: "none"; readonly searched: string | null; readonly reason: string }
  | { readonly kind: "invalid"; readonly file: string; readonly error: string };

/** A replay file being read (streamed and decoded); `bytesRead` of its `bytes` so far. */
export interface ReadingInfo {
  readonly kind: "reading";
  readonly file: string;
  readonly bytesRead: number;
  readonly bytes: number;
  /** When the read began, ms since the epoch. */
  readonly since: number;
}

/** The source once it is read (readSource); the read API's `source`. */
export interface ResolvedSource {
  readonly info: SourceInfo;
  /** Identity of the source for caches: changes when the URL or the replay file changes. */
  readonly key: string;
  readonly api: PromQueryApi | null;
  readonly factsOptions: FleetFactsOptions | null;
  readonly replay: ReplayMeta | null;
  /** Declared metadata file to overlay: UNTORN_METADATA_FILE, or a recording's sidecar; null for none. */
  readonly metadataFile: string | null;
}

/** The source as it is now (resolveSource): possibly a replay file still being read. */
export type CurrentSource =
  | ResolvedSource
  | (Omit<ResolvedSource, "info"> & {
      readonly info: ReadingInfo;
      /** Settles when the replay file has been read or has failed to be. */
      readonly reading: Promise<void>;
    });

/** Part of a cache key: changes when the metadata file changes, appears or goes away. */
function metadataStamp(file: string | null): string {
  if (!file) return "";
  try {
    const st = fs.statSync(file);
    return `|metadata:${file}:${st.size}:${st.mtimeMs}`;
  } catch {
    return `|metadata:${file}:missing`;
  }
}

export const RECORDINGS_DIR = path.join("lab", "recordings");
const REPLAY_FILE = /\.json(\.gz)?$/;
/** JSON files beside the replays that are not replays: schemas, declared metadata, recorded rollouts. */
const SIDECAR = /\.(schema|metadata|rollouts)\.json$/;

/** The first `lab/recordings` directory at or above `from`, or null. */
export function findRecordingsDir(from: string): string | null {
  let dir = path.resolve(from);
  for (;;) {
    const candidate = path.join(dir, RECORDINGS_DIR);
    try {
      if (fs.statSync(candidate).isDirectory()) return candidate;
    } catch {
      // not here; keep walking up
    }
    const parent = path.dirname(dir);
    if (parent === dir) return null;
    dir = parent;
  }
}

/**
 * A server path as readers see it (pages, read API): relative to the checkout holding lab/recordings, or
 * to the working directory, when inside either; else its base name. The absolute path (the server's
 * layout, its user's home) stays in the server log.
 */
export function shownPath(file: string, cwd: string): string {
  const recordings = findRecordingsDir(cwd);
  const roots = [...(recordings ? [path.dirname(path.dirname(recordings))] : []), path.resolve(cwd)];
  for (const root of roots) {
    const rel = path.relative(root, path.resolve(cwd, file));
    if (rel && !rel.startsWith("..") && !path.isAbsolute(rel)) return rel.split(path.sep).join("/");
  }
  return path.basename(file);
}

/** The most recently modified replay file (*.json.gz or *.json) in `dir`, or null. */
export function newestReplay(dir: string): string | null {
  let best: { file: string; mtime: number } | null = null;
  for (const name of fs.readdirSync(dir)) {
    if (!REPLAY_FILE.test(name) || SIDECAR.test(name)) continue;
    const file = path.join(dir, name);
    const st = fs.statSync(file);
    if (!st.isFile()) continue;
    if (!best || st.mtimeMs > best.mtime || (st.mtimeMs === best.mtime && file > best.file))
      best = { file, mtime: st.mtimeMs };
  }
  return best?.file ?? null;
}

type LoadedReplay =
  | {
      readonly kind: "reading";
      readonly done: Promise<void>;
      progress: { bytesRead: number; bytes: number };
      readonly since: number;
    }
  | { readonly kind: "loaded"; readonly api: ReplayApi }
  | { readonly kind: "failed"; readonly error: unknown };

// One per process: instrumentation.ts and the pages are bundled apart, each with its own copy of this
// module, and a replay read twice costs its decode twice and its memory twice.
const shared = globalThis as { __untornReplays?: Map<string, { stamp: string; state: LoadedReplay }> };
shared.__untornReplays ??= new Map();
const replays = shared.__untornReplays;

/**
 * The replay at `file` as far as it has been read: loaded, failed, or being read, the read started
 * here when it has not been (readReplayApi streams the file, so the event loop keeps serving pages
 * meanwhile). A new size or mtime starts a new read; the previous replay is let go.
 */
function loadReplay(file: string): { state: LoadedReplay; stamp: string } {
  const st = fs.statSync(file);
  const stamp = `${st.size}:${st.mtimeMs}`;
  const cached = replays.get(file);
  if (cached?.stamp === stamp) return cached;
  const progress = { bytesRead: 0, bytes: st.size };
  const since = Date.now();
  console.log(`untorn: reading the replay ${file} (${mb(st.size)} MB)`);
  const entry: { stamp: string; state: LoadedReplay } = {
    stamp,
    state: {
      kind: "reading",
      progress,
      since,
      done: largeWork(() =>
        readReplayApi(
          {
            chunks: () => fs.createReadStream(file, { highWaterMark: READ_CHUNK }),
            whole: () => fs.promises.readFile(file),
          },
          {
            onProgress: (p) => {
              progress.bytesRead = p.bytesRead;
            },
          },
        ),
      ).then(
        (api) => {
          entry.state = { kind: "loaded", api };
          console.log(`untorn: read the replay ${file} in ${((Date.now() - since) / 1000).toFixed(1)} s`);
        },
        (error: unknown) => {
          entry.state = { kind: "failed", error };
          console.error(`untorn: cannot read the replay ${file}: ${(error as Error).message}`);
        },
      ),
    },
  };
  replays.set(file, entry);
  return entry;
}

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);
/** Bytes of a replay file read at a time: the event loop turns between chunks. */
const READ_CHUNK = 256 * 1024;

/** Forgets every replay read (data.ts resetCaches); a read under way still finishes, unused. */
export function forgetReplays(): void {
  replays.clear();
}

let client: { url: string; timeoutMs: number; api: PromClient } | null = null;

function liveClient(url: string, timeoutMs: number): PromClient {
  if (client?.url !== url || client.timeoutMs !== timeoutMs) {
    // One client per process: it caps requests in flight so the app cannot stampede Prometheus.
    client = {
      url,
      timeoutMs,
      api: new PromClient({
        baseUrl: url,
        timeoutMs,
        totalTimeoutMs: 2 * timeoutMs,
        retries: 1,
        maxConcurrency: 4,
      }),
    };
  }
  return client.api;
}

/**
 * The replay file the console serves with no PROMETHEUS_URL (UNTORN_REPLAY, else the newest recording),
 * without reading it; null in live mode or when there is none.
 */
export function replayFile(e: Env, cwd: string = process.cwd()): string | null {
  if (e.PROMETHEUS_URL) return null;
  if (e.UNTORN_REPLAY) return path.resolve(cwd, e.UNTORN_REPLAY);
  const dir = e.UNTORN_RECORDINGS_DIR ? path.resolve(cwd, e.UNTORN_RECORDINGS_DIR) : findRecordingsDir(cwd);
  try {
    return dir ? newestReplay(dir) : null;
  } catch {
    return null;
  }
}

/**
 * The source as it is now: a replay file still being read is `reading` (no api yet; the read is started
 * if it has not been); readSource waits for it.
 */
export function resolveSource(e: Env, cwd: string = process.cwd()): CurrentSource {
  const declaredFile = e.UNTORN_METADATA_FILE ? path.resolve(cwd, e.UNTORN_METADATA_FILE) : null;
  if (e.PROMETHEUS_URL) {
    const api = liveClient(e.PROMETHEUS_URL, e.UNTORN_PROM_TIMEOUT_MS);
    return {
      info: { kind: "live", url: api.baseUrl },
      key: `live:${api.baseUrl}${metadataStamp(declaredFile)}`,
      api,
      factsOptions: { window: e.UNTORN_WINDOW },
      replay: null,
      metadataFile: declaredFile,
    };
  }
  let file: string | null;
  let searched: string | null = null;
  if (e.UNTORN_REPLAY) file = path.resolve(cwd, e.UNTORN_REPLAY);
  else {
    searched = e.UNTORN_RECORDINGS_DIR ? path.resolve(cwd, e.UNTORN_RECORDINGS_DIR) : findRecordingsDir(cwd);
    if (!searched)
      return none(
        null,
        `no PROMETHEUS_URL, no UNTORN_REPLAY, and no ${RECORDINGS_DIR} directory above the working directory`,
      );
    const shown = shownPath(searched, cwd);
    try {
      file = newestReplay(searched);
    } catch (err) {
      return none(shown, `cannot read ${shown}: ${redactForReaders((err as Error).message)}`);
    }
    if (!file) return none(shown, `no replay file (*.json.gz) in ${shown}`);
  }
  try {
    const { state, stamp } = loadReplay(file);
    if (state.kind === "failed") throw state.error;
    if (state.kind === "reading")
      return {
        info: {
          kind: "reading",
          file: shownPath(file, cwd),
          bytesRead: state.progress.bytesRead,
          bytes: state.progress.bytes,
          since: state.since,
        },
        key: `reading:${file}:${stamp}`,
        api: null,
        factsOptions: null,
        replay: null,
        metadataFile: null,
        reading: state.done,
      };
    const { api } = state;
    const m = api.meta;
    const metadataFile = replayMetadataFile(declaredFile, file);
    return {
      info: {
        kind: "recorded",
        file: shownPath(file, cwd),
        recordedAt: m.recordedAt,
        recordedFrom: shownRecordedFrom(m.recordedFrom),
        window: m.window,
        end: m.end,
        note: m.note ?? null,
      },
      key: replayKey(file, stamp, metadataFile),
      api,
      factsOptions: replayFactsOptions(m),
      replay: m,
      metadataFile,
    };
  } catch (err) {
    const error =
      (err as NodeJS.ErrnoException).code === "ENOENT"
        ? "file not found"
        : redactForReaders((err as Error).message);
    return {
      info: { kind: "invalid", file: shownPath(file, cwd), error },
      key: `invalid:${file}`,
      api: null,
      factsOptions: null,
      replay: null,
      metadataFile: null,
    };
  }
}

function none(searched: string | null, reason: string): ResolvedSource {
  return {
    info: { kind: "none", searched, reason },
    key: `none:${searched}`,
    api: null,
    factsOptions: null,
    replay: null,
    metadataFile: null,
  };
}

/** The declared metadata file overlaid on a replay: UNTORN_METADATA_FILE, else its sidecar when present. */
function replayMetadataFile(declaredFile: string | null, file: string): string | null {
  const sidecar = sidecarMetadataPath(file);
  return declaredFile ?? (fs.existsSync(sidecar) ? sidecar : null);
}

const replayKey = (file: string, stamp: string, metadataFile: string | null) =>
  `replay:${file}:${stamp}${metadataStamp(metadataFile)}`;

/** The replay file the console serves, known without reading it (replayIdentity). */
export interface ReplayIdentity {
  readonly file: string;
  readonly size: number;
  readonly mtimeMs: number;
  /** The ResolvedSource.key the file has once read. */
  readonly key: string;
  readonly metadataFile: string | null;
}

/**
 * The replay file the console serves (replayFile), its size, mtime and the key resolveSource gives it
 * once read, without reading it or starting a read; null in live mode, when there is none or it cannot
 * be stat'ed.
 */
export function replayIdentity(e: Env, cwd: string = process.cwd()): ReplayIdentity | null {
  const file = replayFile(e, cwd);
  if (!file) return null;
  let st: fs.Stats;
  try {
    st = fs.statSync(file);
  } catch {
    return null;
  }
  const declaredFile = e.UNTORN_METADATA_FILE ? path.resolve(cwd, e.UNTORN_METADATA_FILE) : null;
  const metadataFile = replayMetadataFile(declaredFile, file);
  return {
    file,
    size: st.size,
    mtimeMs: st.mtimeMs,
    key: replayKey(file, `${st.size}:${st.mtimeMs}`, metadataFile),
    metadataFile,
  };
}

/** resolveSource once a replay file it names has been read (or has failed to be). */
export async function readSource(e: Env, cwd: string = process.cwd()): Promise<ResolvedSource> {
  for (;;) {
    const src = resolveSource(e, cwd);
    if (!("reading" in src)) return src;
    await src.reading;
  }
}
