/**
 * Embedded store: PGlite (PostgreSQL compiled to WASM, shipped inside the npm package: nothing is
 * downloaded at run time) over files in a data directory.
 *
 * Layout of the data directory:
 *   untorn-store.json   marker: proves Untorn created the directory; "initialising" until the first
 *                       start has migrated, "ready" after
 *   untorn.lock         lock file (lock.ts) while a process has it open
 *   pgdata/             PGlite's PostgreSQL cluster
 * Untorn never writes into a non-empty directory without the marker, never re-initialises a
 * "ready" store whose files are missing or damaged: it stops with StoreOpenError saying what to do.
 *
 * Durability: PGlite starts PostgreSQL with `-F` (fsync off), and Emscripten's Node filesystem turns
 * fsync(2) into a no-op and fdatasync(2) into a stub, so out of the box a commit is acknowledged before
 * its WAL reaches the disk and an OS crash or power loss can lose it. A durable store (the default)
 * starts without `-F`, with `wal_sync_method=fsync`, and gives the filesystem a real fsync: a commit
 * returns after its WAL record is on stable storage, as on PostgreSQL. `durable: false` keeps PGlite's
 * defaults, for tests and benchmarks only (BENCHMARKS.md has the cost).
 */
import fs from "node:fs";
import path from "node:path";
import { PGlite } from "@electric-sql/pglite";
import { NodeFS } from "@electric-sql/pglite/nodefs";
import { drizzle } from "drizzle-orm/pglite";
import { z } from "zod";
import { StoreOpenError } from "./errors.js";
import { acquireDirLock, type DirLock, LOCK_FILE } from "./lock.js";
import type { Db } from "./migrate.js";

export const MARKER_FILE = "untorn-store.json";
export const PGDATA_DIR = "pgdata";
const FORMAT_VERSION = 1;

const markerSchema = z.object({
  format: z.literal("untorn-store"),
  formatVersion: z.number().int().positive(),
  engine: z.literal("pglite"),
  state: z.enum(["initialising", "ready"]),
  createdAt: z.string(),
});
type Marker = z.infer<typeof markerSchema>;

export interface PgliteBackend {
  db: Db;
  location: string;
  /** Marks a first start complete; call after migrations succeeded. */
  markReady(): void;
  close(): Promise<void>;
}

const RECOVER =
  "Restore the directory from a backup, or move it away to start with an empty store (Untorn will not overwrite it).";

function errno(e: unknown): string {
  return (e as NodeJS.ErrnoException).code ?? "error";
}

function prepareDir(dir: string): void {
  let stat: fs.Stats;
  try {
    stat = fs.statSync(dir);
  } catch (e) {
    if (errno(e) !== "ENOENT") {
      throw new StoreOpenError(
        dir,
        `cannot use data directory ${dir} (${errno(e)}): ${(e as Error).message}`,
        {
          cause: e,
        },
      );
    }
    try {
      fs.mkdirSync(dir, { recursive: true, mode: 0o700 });
      return;
    } catch (e2) {
      throw new StoreOpenError(
        dir,
        `cannot create data directory ${dir} (${errno(e2)}): ${(e2 as Error).message}. Create it, or choose another data directory.`,
        { cause: e2 },
      );
    }
  }
  if (!stat.isDirectory()) {
    throw new StoreOpenError(
      dir,
      `data directory ${dir} is a file, not a directory. Move the file away or choose another data directory.`,
    );
  }
  try {
    fs.accessSync(dir, fs.constants.R_OK | fs.constants.W_OK | fs.constants.X_OK);
  } catch (e) {
    const uid = process.getuid?.();
    throw new StoreOpenError(
      dir,
      `data directory ${dir} is not readable and writable by this user${uid === undefined ? "" : ` (uid ${uid})`} (${errno(e)}). Fix its owner or permissions (chown/chmod), or choose another data directory.`,
      { cause: e },
    );
  }
}

function writeMarker(dir: string, marker: Marker): void {
  const file = path.join(dir, MARKER_FILE);
  const tmp = `${file}.tmp`;
  fs.writeFileSync(tmp, `${JSON.stringify(marker, null, 2)}\n`, { flush: true });
  fs.renameSync(tmp, file);
}

/** Decides what the directory holds; returns the marker to start with, or throws. */
function inspect(dir: string): { marker: Marker; fresh: boolean } {
  const markerPath = path.join(dir, MARKER_FILE);
  let text: string | null = null;
  try {
    text = fs.readFileSync(markerPath, "utf8");
  } catch (e) {
    if (errno(e) !== "ENOENT") {
      throw new StoreOpenError(dir, `cannot read ${markerPath} (${errno(e)}): ${(e as Error).message}`, {
        cause: e,
      });
    }
  }
  if (text === null) {
    const others = fs.readdirSync(dir).filter((f) => f !== LOCK_FILE && !f.startsWith(`${LOCK_FILE}.`));
    if (others.length > 0) {
      const shown = others.slice(0, 5).join(", ") + (others.length > 5 ? ", ..." : "");
      throw new StoreOpenError(
        dir,
        `${dir} is not an Untorn data directory: it holds ${shown} but no ${MARKER_FILE}. Untorn only writes into an empty directory or one it created; choose another data directory.`,
      );
    }
    return {
      fresh: true,
      marker: {
        format: "untorn-store",
        formatVersion: FORMAT_VERSION,
        engine: "pglite",
        state: "initialising",
        createdAt: new Date().toISOString(),
      },
    };
  }
  let marker: Marker;
  try {
    marker = markerSchema.parse(JSON.parse(text));
  } catch (e) {
    throw new StoreOpenError(dir, `${markerPath} is damaged (not an Untorn store marker). ${RECOVER}`, {
      cause: e,
    });
  }
  if (marker.formatVersion > FORMAT_VERSION) {
    throw new StoreOpenError(
      dir,
      `${dir} was created by a newer Untorn (store format ${marker.formatVersion}, this build reads ${FORMAT_VERSION}). Upgrade Untorn.`,
    );
  }
  if (marker.state === "initialising") {
    // The first start died before the store was handed to anyone: nothing user-made can be inside.
    fs.rmSync(path.join(dir, PGDATA_DIR), { recursive: true, force: true });
    return { fresh: true, marker };
  }
  const pgVersion = path.join(dir, PGDATA_DIR, "PG_VERSION");
  if (!fs.existsSync(pgVersion)) {
    throw new StoreOpenError(
      dir,
      `data directory ${dir} is damaged: ${path.join(PGDATA_DIR, "PG_VERSION")} is missing, so the database files are gone or incomplete. ${RECOVER}`,
    );
  }
  return { fresh: false, marker };
}

/** PostgreSQL's own FATAL/PANIC lines with their DETAIL/HINT, from the captured server log. */
function serverComplaint(log: string[]): string {
  const lines = log
    .map((l) =>
      l
        .replace(/^\S+ \S+ \S+ \[\d+\] /, "")
        .replace(/\s+/g, " ")
        .trim(),
    )
    .filter((l) => /^(FATAL|PANIC|ERROR|DETAIL):/.test(l));
  return lines.slice(-4).join(" ");
}

/** Calls of fsync(2) the durable filesystem made in this process (tests check that commits sync). */
export let fsyncCalls = 0;

interface EmscriptenStream {
  nfd?: number;
}
interface EmscriptenModule {
  NODEFS: { stream_ops: { fsync?: (stream: EmscriptenStream) => number } };
}

/**
 * PGlite's Node filesystem with fsync(2) passed through to the file: Emscripten's NODEFS has no fsync
 * in its stream operations, so PostgreSQL's pg_fsync() returned at once without syncing anything.
 */
class DurableNodeFS extends NodeFS {
  override async init(pg: PGlite, opts: Parameters<NodeFS["init"]>[1]) {
    const { emscriptenOpts } = await super.init(pg, opts);
    const preRun = [
      ...((emscriptenOpts.preRun as ((mod: unknown) => void)[] | undefined) ?? []),
      (mod: unknown) => {
        (mod as EmscriptenModule).NODEFS.stream_ops.fsync = (stream) => {
          if (stream.nfd === undefined) return 0;
          fs.fsyncSync(stream.nfd);
          fsyncCalls++;
          return 0;
        };
      },
    ];
    return { emscriptenOpts: { ...emscriptenOpts, preRun } as typeof emscriptenOpts };
  }
}

/**
 * Memory of the embedded PostgreSQL. Its default `shared_buffers` (128 MB) is paged in by PGlite's WASM
 * memory at start-up and was the largest part of the console's resident memory with a small fleet (about
 * 80 MB of it, measured with and without this setting); the store holds rollouts, metadata, users and the
 * audit log (megabytes), so 16 MB of buffer cache holds all of it.
 */
export const EMBEDDED_SHARED_BUFFERS = "16MB";

/** PGlite's start parameters, relaxed (PGlite's defaults: fsync off), with the embedded memory settings. */
export function relaxedStartParams(defaults: readonly string[] = PGlite.defaultStartParams): string[] {
  return [...defaults, "-c", `shared_buffers=${EMBEDDED_SHARED_BUFFERS}`];
}

/** PGlite's start parameters, durable: fsync on (no `-F`), WAL synced with fsync(2). */
export function durableStartParams(defaults: readonly string[] = PGlite.defaultStartParams): string[] {
  return [
    ...relaxedStartParams(defaults.filter((p) => p !== "-F")),
    "-c",
    "fsync=on",
    "-c",
    "wal_sync_method=fsync",
  ];
}

export interface PgliteOptions {
  /**
   * Default true: a commit returns once its WAL is on disk. False skips every fsync (PGlite's own
   * default): only for tests and benchmarks, where losing the store to an OS crash costs nothing.
   */
  durable?: boolean;
}

export async function openPglite(dataDir: string, options: PgliteOptions = {}): Promise<PgliteBackend> {
  const durable = options.durable ?? true;
  const dir = path.resolve(dataDir);
  prepareDir(dir);
  const lock: DirLock = acquireDirLock(dir);
  try {
    const { marker, fresh } = inspect(dir);
    if (fresh) {
      writeMarker(dir, marker);
      fs.mkdirSync(path.join(dir, PGDATA_DIR), { recursive: true, mode: 0o700 });
    }
    const log: string[] = [];
    const capture = (line: string) => {
      log.push(line);
      if (log.length > 200) log.shift();
      return false;
    };
    let client: PGlite;
    try {
      const pgdata = path.join(dir, PGDATA_DIR);
      client = await PGlite.create(
        durable
          ? { fs: new DurableNodeFS(pgdata), startParams: durableStartParams(), onStderr: capture }
          : { dataDir: pgdata, startParams: relaxedStartParams(), onStderr: capture },
      );
    } catch (e) {
      const said = serverComplaint(log);
      const hint = /incompatible with server/.test(said)
        ? `The files are damaged or were written by another PostgreSQL/PGlite version: after an Untorn upgrade, open them with the Untorn version that created them and export the data; otherwise ${RECOVER.charAt(0).toLowerCase()}${RECOVER.slice(1)}`
        : RECOVER;
      const reason = (said || (e as Error).message).replace(/\.$/, "");
      throw new StoreOpenError(
        dir,
        `cannot open the embedded database in ${path.join(dir, PGDATA_DIR)}: ${reason}. ${hint}`,
        {
          cause: e,
        },
      );
    }
    let closed = false;
    return {
      db: drizzle({ client }) as unknown as Db,
      location: dir,
      markReady() {
        if (marker.state !== "ready") writeMarker(dir, { ...marker, state: "ready" });
      },
      async close() {
        if (closed) return;
        closed = true;
        try {
          await client.close();
        } finally {
          lock.release();
        }
      },
    };
  } catch (e) {
    lock.release();
    throw e;
  }
}
