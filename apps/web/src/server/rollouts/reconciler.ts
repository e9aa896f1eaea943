import "server-only";
/**
 * The console's reconciler: time-based gates (pre-wave checks, read-backs, bake ends, re-judgements)
 * advance without anyone watching a page. One pass every UNTORN_RECONCILE_SECONDS (0 = off), and one
 * soon after a command; the runner's pass holds the store's single-writer lock (tryExclusive), so
 * several consoles and `untorn rollout reconcile` can run side by side and only one acts at a time.
 * Off without a data source (nothing to observe). In replay mode it reads the recording at its end, with
 * the recording's own query texts (replayReconcileOptions). Step hooks come from UNTORN_HOOKS_FILE, read
 * once at start (loadHooks): a rollout whose policy names a hook has its steps run by this process.
 */
import { readFile } from "node:fs/promises";
import path from "node:path";
import { replayReconcileOptions } from "@untorn/rollout-runner/replay";
import {
  ACTIVE_STATUSES,
  type HooksFile,
  hooksFileSchema,
  reconcileRollouts,
} from "@untorn/rollout-runner/runner";
import { type Env, env } from "../../env.js";
import { readSource, replayFile } from "../fleet/source.js";
import { getStore } from "../store.js";
import { declarations, runnerDeps } from "./rollout-deps.js";

interface Loop {
  timer: NodeJS.Timeout | null;
  running: Promise<void> | null;
  intervalMs: number;
  hooks: HooksFile["hooks"] | undefined;
}

/** What the reconciler's last pass did with one rollout, for its page. */
export interface PassNote {
  /** Wall clock, Unix seconds. */
  readonly at: number;
  /** The runner's outcome (e.g. `observation-failed`), or `pass-failed` when the whole pass failed. */
  readonly outcome: string;
  /** Why it could not move the rollout, or null. */
  readonly error: string | null;
}

// One per process even when a dev server reloads this module; the pages read the notes from here too.
const shared = globalThis as {
  __untornReconciler?: Loop;
  __untornReconcilerNotes?: { byRollout: Map<string, PassNote>; pass: PassNote | null };
};

function notes() {
  shared.__untornReconcilerNotes ??= { byRollout: new Map(), pass: null };
  return shared.__untornReconcilerNotes;
}

/**
 * The last pass's note on rollout `id`: its own outcome, or the failure of the whole pass when that
 * came later; null when no pass has looked at it in this process (or the reconciler is off).
 */
export function lastPassOf(id: string): PassNote | null {
  const n = notes();
  const own = n.byRollout.get(id) ?? null;
  if (n.pass && (!own || n.pass.at > own.at)) return n.pass;
  return own;
}

const log = (m: string) => console.log(`untorn: reconciler: ${m}`);

/** One pass over every active rollout; logs what moved and what failed, never throws. */
export async function reconcileOnce(
  e: Env = env(),
  hooks: HooksFile["hooks"] | undefined = shared.__untornReconciler?.hooks,
): Promise<void> {
  // A pass with no rollout under way reads nothing: a replay file the fleet pages serve from the kept
  // fleet read is then not read at all.
  const any = await getStore(e)
    .then((store) => store.listRollouts({ states: [...ACTIVE_STATUSES], limit: 1 }))
    .catch(() => null);
  if (any?.length === 0) return;
  const src = await readSource(e);
  if (!src.api) return;
  try {
    const deps = await runnerDeps(e);
    // On a recording: its own query texts, and what it does not hold reads as no data (rollout-runner/replay).
    const replayed = src.replay ? replayReconcileOptions(src.api, src.replay) : null;
    const r = await reconcileRollouts(deps, {
      api: src.api,
      ...replayed,
      metadata: await declarations(e),
      ...(hooks ? { hooks } : {}),
    });
    if (!r.acquired) return;
    const n = notes();
    const at = Date.now() / 1000;
    n.pass = null;
    for (const p of r.rollouts) {
      n.byRollout.set(p.id, { at, outcome: p.outcome, error: p.error ?? null });
      for (const ev of p.events) log(`${p.id}: ${ev.type}: ${ev.message}`);
      if (p.error) log(`${p.id}: ${p.outcome}: ${p.error}`);
    }
  } catch (err) {
    log(`pass failed, retried on the next one: ${(err as Error).message}`);
    notes().pass = { at: Date.now() / 1000, outcome: "pass-failed", error: (err as Error).message };
  }
}

function schedule(loop: Loop, ms: number): void {
  if (loop.timer) clearTimeout(loop.timer);
  loop.timer = setTimeout(() => {
    loop.timer = null;
    loop.running = reconcileOnce().finally(() => {
      loop.running = null;
      if (loop.intervalMs > 0) schedule(loop, loop.intervalMs);
    });
  }, ms);
  loop.timer.unref();
}

/**
 * The step hooks of UNTORN_HOOKS_FILE (relative to the working directory), validated; undefined when
 * unset. Throws naming the file and every problem: the server does not start with a broken one.
 */
export async function loadHooks(e: Env = env()): Promise<HooksFile["hooks"] | undefined> {
  if (!e.UNTORN_HOOKS_FILE) return undefined;
  const file = path.resolve(e.UNTORN_HOOKS_FILE);
  let data: unknown;
  try {
    data = JSON.parse(await readFile(file, "utf8"));
  } catch (err) {
    throw new Error(`UNTORN_HOOKS_FILE=${file} cannot be read as JSON: ${(err as Error).message}`);
  }
  const parsed = hooksFileSchema.safeParse(data);
  if (!parsed.success)
    throw new Error(
      `UNTORN_HOOKS_FILE=${file} is not a hooks file (rollout-hooks.schema.json): ${parsed.error.issues
        .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
        .join("; ")}`,
    );
  return parsed.data.hooks;
}

/**
 * Starts the loop once per process (instrumentation.ts) with the hooks loadHooks read; returns why it
 * is off, or null when on.
 */
export function startReconciler(e: Env = env(), hooks?: HooksFile["hooks"]): string | null {
  if (e.UNTORN_RECONCILE_SECONDS === 0) return "UNTORN_RECONCILE_SECONDS=0";
  // Nothing is read here: the first fleet view (instrumentation.ts) reads the source, or serves the
  // kept fleet read without reading a replay file.
  const source = e.PROMETHEUS_URL ?? replayFile(e);
  if (!source) return "no data source to observe (none)";
  if (shared.__untornReconciler) return null;
  const loop: Loop = { timer: null, running: null, intervalMs: e.UNTORN_RECONCILE_SECONDS * 1000, hooks };
  shared.__untornReconciler = loop;
  schedule(loop, Math.min(loop.intervalMs, 5000));
  const named = hooks ? Object.keys(hooks) : [];
  log(
    `every ${e.UNTORN_RECONCILE_SECONDS} s against ${e.PROMETHEUS_URL ? e.PROMETHEUS_URL : "the recording, at its end time"}, ${named.length ? `step hooks ${named.join(", ")}` : "no step hooks"}`,
  );
  return null;
}

/** A pass soon (after a command that a gate may now act on), unless one is already due or running. */
export function kickReconciler(): void {
  const loop = shared.__untornReconciler;
  if (!loop || loop.running) return;
  schedule(loop, 500);
}
