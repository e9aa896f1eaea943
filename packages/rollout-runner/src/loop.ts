/**
 * The reconciler as a long-running loop: one `reconcileRollouts` pass, then a wait, until stopped.
 * `untorn rollout reconcile --watch` runs it; so can the console. A stop request never cuts a pass
 * short: the pass in flight finishes (its commits, hooks and the lock release), then the loop ends.
 * Passes run one after another, never overlapping; a pass that fails (store or Prometheus down) is
 * reported and the loop goes on, since the next pass may well succeed.
 */
import {
  type ReconcileOptions,
  type ReconcileSummary,
  type RunnerDeps,
  reconcileRollouts,
} from "./runner.js";

/** Shortest wait between passes, whatever `wakeAt` says (a gate due now that does not move waits this long). */
export const MIN_LOOP_WAIT_SECONDS = 1;

export interface ReconcilerLoopOptions extends ReconcileOptions {
  /** Seconds from the start of one pass to the start of the next, at most. */
  intervalSeconds: number;
  /** Abort to stop: the pass in flight finishes, the wait ends at once. */
  signal?: AbortSignal;
  /** After every pass: its summary, or the error that ended it. */
  onPass?: (pass: LoopPass) => void;
}

export type LoopPass =
  | { n: number; startedAt: number; durationSeconds: number; summary: ReconcileSummary; error?: undefined }
  | { n: number; startedAt: number; durationSeconds: number; summary?: undefined; error: Error };

export interface ReconcilerLoop {
  /** Asks the loop to stop after the pass in flight (same as aborting `signal`). */
  stop(): void;
  /** Settles once the loop has stopped, with the number of passes it ran. */
  readonly done: Promise<{ passes: number; failed: number }>;
}

/**
 * Seconds to wait before the next pass: the interval from the start of this one, shortened to the
 * earliest `wakeAt` still ahead (a bake ending, a re-evaluation), never below MIN_LOOP_WAIT_SECONDS.
 * `wakeAt` is on the rollouts' clock, so it is taken relative to the pass's own time (`summary.at`);
 * one already past means the gate waits for something else (data, a human): the interval applies.
 */
export function nextWaitSeconds(
  intervalSeconds: number,
  elapsedSeconds: number,
  summary: ReconcileSummary | undefined,
): number {
  let until = intervalSeconds;
  for (const r of summary?.rollouts ?? []) {
    if (r.wakeAt === null) continue;
    const d = r.wakeAt - summary!.at;
    if (d > elapsedSeconds && d < until) until = d;
  }
  return Math.max(MIN_LOOP_WAIT_SECONDS, until - elapsedSeconds);
}

/** Starts the loop at once (the first pass runs now). */
export function startReconcilerLoop(deps: RunnerDeps, opts: ReconcilerLoopOptions): ReconcilerLoop {
  if (!(Number.isFinite(opts.intervalSeconds) && opts.intervalSeconds > 0))
    throw new RangeError(`intervalSeconds must be a positive number, got ${opts.intervalSeconds}`);
  const controller = new AbortController();
  const stopped = () => controller.signal.aborted || Boolean(opts.signal?.aborted);
  const onAbort = () => controller.abort();
  opts.signal?.addEventListener("abort", onAbort, { once: true });
  // The wait uses the wall clock even when deps.clock is a replay's: it paces the process, not the rollout.
  const wall = () => Date.now() / 1000;
  const wait = (seconds: number) =>
    new Promise<void>((resolve) => {
      if (stopped()) return resolve();
      const timer = setTimeout(done, seconds * 1000);
      function done() {
        clearTimeout(timer);
        controller.signal.removeEventListener("abort", done);
        resolve();
      }
      controller.signal.addEventListener("abort", done, { once: true });
    });
  const { intervalSeconds, signal: _signal, onPass, ...reconcile } = opts;
  const run = async () => {
    let passes = 0;
    let failed = 0;
    try {
      while (!stopped()) {
        const startedAt = wall();
        passes++;
        let summary: ReconcileSummary | undefined;
        try {
          summary = await reconcileRollouts(deps, reconcile);
          onPass?.({ n: passes, startedAt, durationSeconds: wall() - startedAt, summary });
        } catch (e) {
          failed++;
          const error = e instanceof Error ? e : new Error(String(e));
          deps.log?.(`reconciler pass ${passes} failed: ${error.message}`);
          onPass?.({ n: passes, startedAt, durationSeconds: wall() - startedAt, error });
        }
        await wait(nextWaitSeconds(intervalSeconds, wall() - startedAt, summary));
      }
    } finally {
      opts.signal?.removeEventListener("abort", onAbort);
    }
    return { passes, failed };
  };
  return { stop: () => controller.abort(), done: run() };
}
