import "server-only";
/**
 * The kept fleet read on the server (file format: kept-file.ts): where it lives (UNTORN_CACHE_DIR,
 * default UNTORN_DATA_DIR; `off` keeps nothing), which build this is (Next's BUILD_ID, which server.mjs
 * reads; under `next start` or `next dev` there is none and nothing is kept), saving it after each good
 * read, with the snapshot's advice and its inputs digest (one write at a time, the latest read wins),
 * and loading it at start-up for the source the
 * console serves. Each outcome is one log line.
 */
import path from "node:path";
import type { FleetFacts } from "@untorn/fleet/facts";
import { adviceInputs, type Snapshot } from "@untorn/fleet/pipeline";
import type { Env } from "../../env.js";
import { errorMessage } from "../../lib/format.js";
import { serverInfo } from "../../lib/server-info.js";
import { largeWork } from "./collect.js";
import {
  KEPT_FILE,
  type KeptRead,
  type KeptSource,
  type KeptSourceIdentity,
  keptSourceKey,
  readKeptRead,
  removeLeftovers,
  writeKeptRead,
} from "./kept-file.js";

export { type KeptRead, type KeptSource, type KeptSourceIdentity, keptSourceKey } from "./kept-file.js";

/** The directory of the kept read, or null when it is turned off (UNTORN_CACHE_DIR=off). */
export function keptDir(e: Env): string | null {
  if (e.UNTORN_CACHE_DIR === "off") return null;
  return path.resolve(e.UNTORN_CACHE_DIR ?? e.UNTORN_DATA_DIR);
}

/** The build this server runs (server.mjs reads .next/BUILD_ID), or null under `next start` / `next dev`. */
export const thisBuild = (): string | null => serverInfo()?.buildId ?? null;

/** Why no read is kept, or null when one is. */
export function keptOff(e: Env): string | null {
  if (!keptDir(e)) return "UNTORN_CACHE_DIR=off";
  if (!thisBuild())
    return "the build is unknown: the console runs from `next start` or `next dev`, not server.mjs (npm start, the Docker image)";
  return null;
}

interface Writes {
  running: Promise<void> | null;
  next: (() => Promise<void>) | null;
}
// One per process: instrumentation.ts and the pages are bundled apart, each with its own copy of this module.
const shared = globalThis as { __untornKeptWrites?: Writes };
shared.__untornKeptWrites ??= { running: null, next: null };
const writes: Writes = shared.__untornKeptWrites;

const mb = (bytes: number) => (bytes / 2 ** 20).toFixed(1);

/**
 * Keeps `fleet` (the measured facts of a good read, before any metadata) with the advice `snapshot`
 * (built from them) keeps of each instance, for the next start, in the background: a write under way finishes first, and only the newest read waiting behind it is written.
 * Never throws; a failure is logged and the previous kept read stays.
 */
export function saveKeptRead(
  e: Env,
  source: KeptSource,
  fleet: FleetFacts,
  read: { readonly fetchedAt: number; readonly fetchMs: number },
  snapshot: Pick<Snapshot, "advice" | "metadata" | "declaredMeta">,
): void {
  const dir = keptDir(e);
  const build = thisBuild();
  if (!dir || !build) return;
  writes.next = async () => {
    const t0 = performance.now();
    try {
      const w = await writeKeptRead(
        dir,
        { build, source, at: fleet.at, fetchedAt: read.fetchedAt, fetchMs: read.fetchMs },
        fleet,
        (instance) => {
          const advice = snapshot.advice.get(instance);
          return advice ? { advice, inputs: adviceInputs(snapshot, instance) } : null;
        },
      );
      console.log(
        `untorn: kept the fleet read (${fleet.facts.length} instances, ${mb(w.bytes)} MB) in ${w.file} for the next start, in ${((performance.now() - t0) / 1000).toFixed(1)} s`,
      );
    } catch (err) {
      console.error(
        `untorn: cannot keep the fleet read in ${path.join(dir, KEPT_FILE)} (the previous one, if any, stays): ${errorMessage(err)}`,
      );
    }
  };
  if (!writes.running) writes.running = drain();
}

/** Runs the waiting writes one after another, as one piece of large work (collect.ts). */
function drain(): Promise<void> {
  return largeWork(async () => {
    while (writes.next) {
      const job = writes.next;
      writes.next = null;
      await job();
    }
    writes.running = null;
  });
}

/** Settles when no write of the kept read is under way or waiting (tests). */
export async function keptWritesSettled(): Promise<void> {
  while (writes.running) await writes.running;
}

/**
 * The kept read for the source `expect` when there is one of this build and that source; else null,
 * with one log line saying why (none yet, or the reason it is ignored; nothing when it is off, which
 * instrumentation.ts says once). Removes temporary files a killed writer left.
 */
export async function loadKeptRead(e: Env, expect: KeptSourceIdentity): Promise<KeptRead | null> {
  const off = keptOff(e);
  const dir = keptDir(e);
  const build = thisBuild();
  if (off || !dir || !build) return null;
  await removeLeftovers(dir);
  const r = await readKeptRead(dir, { build, sourceKey: keptSourceKey(expect) });
  if (r.ok) return r.read;
  if (r.missing) console.log(`untorn: no kept fleet read in ${dir} yet: the fleet is read from the source`);
  else
    console.warn(
      `untorn: the kept fleet read ${path.join(dir, KEPT_FILE)} is ignored, ${r.reason}; the fleet is read from the source and the next good read replaces it`,
    );
  return null;
}
