import "server-only";
/**
 * Gives a fleet read's garbage back once the read is done. A read of a large fleet allocates hundreds of
 * MB for a moment (the answers' JSON, their decoded samples, the facts' drafts; at 10,000 instances the
 * heap grows by about 200 MB of which less than half stays alive), and V8 collects its old space only
 * when the heap grows again: on a console that then mostly serves pages, that can be never, and the
 * process keeps the read's peak as its resident memory. A round of full collections after the read (and
 * after the kept read's write that follows it) returns it: the first frees the read's objects, the next
 * ones give back the pages its sweeping emptied (one collection alone left about 100 MB of them committed
 * at 10,000 instances; BENCHMARKS.md, "The console's memory").
 *
 * The collection is server.mjs's (npm start, the Docker image); under `next start` or `next dev` there
 * is none and this does nothing. A round starts once the process has been quiet for COLLECT_DELAY_MS, so
 * a burst of reads and writes costs one round, at most one round per COLLECT_MIN_INTERVAL_MS, and work
 * that begins meanwhile ends the round.
 */
import { serverInfo } from "../../lib/server-info.js";

/** Quiet time after the last read or write before collecting (past a first page served right after a read). */
export const COLLECT_DELAY_MS = 3_000;
/** At most one round this often (a full collection of a 10,000-instance console: 0.1–0.3 s). */
export const COLLECT_MIN_INTERVAL_MS = 10_000;
/** The collections of a round, in ms after the previous one (the first at the end of the quiet time). */
export const COLLECT_PASSES_MS: readonly number[] = [0, 100, 5_000];

interface Collector {
  timer: ReturnType<typeof setTimeout> | null;
  last: number;
  busy: number;
  /** Work that left garbage has ended since the last round began. */
  wanted: boolean;
  runs: number;
}
// One per process: instrumentation.ts and the pages are bundled apart, each with its own copy of this module.
const shared = globalThis as { __untornCollector?: Collector };
shared.__untornCollector ??= {
  timer: null,
  last: Number.NEGATIVE_INFINITY,
  busy: 0,
  wanted: false,
  runs: 0,
};
const c: Collector = shared.__untornCollector;

/**
 * Work that allocates a lot (a replay's decode, a fleet read, loading or writing the kept read) has
 * begun: no collection until it ends.
 */
export function largeWorkBegins(): void {
  c.busy++;
  if (c.timer) {
    clearTimeout(c.timer);
    c.timer = null;
  }
}

/**
 * That work has ended (whether it succeeded or not): collect once everything is quiet. `leftGarbage`
 * false: it turned out to allocate nothing to speak of (no kept read to load), so it asks for no round.
 */
export function largeWorkEnds(leftGarbage = true): void {
  c.busy = Math.max(0, c.busy - 1);
  if (leftGarbage) c.wanted = true;
  if (c.busy > 0 || !c.wanted) return;
  const collect = serverInfo()?.collectGarbage;
  if (!collect) return;
  if (c.timer) clearTimeout(c.timer);
  const pass = (i: number) => {
    c.timer = null;
    if (c.busy > 0) return;
    if (i === 0) {
      c.last = Date.now();
      c.wanted = false;
      c.runs++;
    }
    collect();
    if (i + 1 < COLLECT_PASSES_MS.length) later(() => pass(i + 1), COLLECT_PASSES_MS[i + 1]!);
  };
  later(() => pass(0), Math.max(COLLECT_DELAY_MS, c.last + COLLECT_MIN_INTERVAL_MS - Date.now()));
}

function later(fn: () => void, ms: number): void {
  c.timer = setTimeout(fn, ms);
  c.timer.unref?.();
}

/** `work` as large work: begun now (synchronously), ended when its promise settles either way. */
export function largeWork<T>(work: () => Promise<T>): Promise<T> {
  largeWorkBegins();
  let running: Promise<T>;
  try {
    running = work();
  } catch (err) {
    running = Promise.reject(err);
  }
  return running.finally(() => largeWorkEnds());
}

/** Rounds of collections begun so far in this process (tests). */
export const collections = (): number => c.runs;
