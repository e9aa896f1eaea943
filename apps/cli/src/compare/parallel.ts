// compare (@untorn/compare, which does no I/O and starts no threads) on several threads: each
// instance's analysis is independent of the others' (its random numbers come from a seed derived from
// its id and the metric's), so instances are handed out one at a time to the calling thread and a
// pool of worker threads, and the results put back in input order: the same result, bit for bit, as
// compare on one thread.
import { availableParallelism, loadavg } from "node:os";
import { Worker } from "node:worker_threads";
import {
  type ComparisonPlan,
  compare,
  finishComparison,
  type InstanceAnalysis,
  instanceAnalyser,
  planComparison,
} from "@untorn/compare/compare";
import type { ComparisonInput, Instance } from "@untorn/compare/input";
import type { ComparisonResult } from "@untorn/compare/result";

/**
 * Samples (before and after, all series) from which compareParallel uses idle cores by default.
 * A worker costs about 0.2–0.5 CPU s (starting it, and compiling the analysis again in its isolate)
 * and some 100 MB of peak RSS on the 20 × 8 × 7-day input; a 1-day window of 8 metrics at 15 s on
 * 20 instances (1.8 M samples) takes some 0.6 CPU s to compare on one thread.
 */
export const PARALLEL_THRESHOLD_SAMPLES = 1_000_000;

/** Sample slots in the input's windows (NaN and null included). */
export function sampleCount(input: ComparisonInput): number {
  let n = 0;
  for (const inst of input.instances)
    for (const pair of Object.values(inst.series)) n += pair.before.v.length + pair.after.v.length;
  return n;
}

/**
 * Threads compareParallel uses when not told: for inputs of PARALLEL_THRESHOLD_SAMPLES or more, the
 * cores the 1-minute load average leaves idle (at least 1, at most every core); else 1. On a saturated
 * machine another thread only adds its start-up and compile CPU and its memory, and takes the core
 * from someone else.
 */
export function defaultThreads(
  input: ComparisonInput,
  machine: { cores: number; load: number } = { cores: availableParallelism(), load: loadavg()[0]! },
): number {
  if (sampleCount(input) < PARALLEL_THRESHOLD_SAMPLES) return 1;
  return Math.max(1, Math.min(machine.cores, Math.floor(machine.cores - machine.load + 0.5)));
}

export interface ParallelOptions {
  /**
   * Threads, the calling one included (default defaultThreads(input)): n − 1 workers start; 1 runs
   * compare on the calling thread alone.
   */
  readonly threads?: number;
}

/** @internal What a worker starts with. */
export interface WorkerSetup {
  readonly plan: ComparisonPlan;
  /** The control instances, in input order (copied to every worker). */
  readonly controls: readonly Instance[];
}
/** @internal One instance to analyse: a treated one sent whole, or a control by its position. */
export interface ToWorker {
  readonly index: number;
  readonly instance?: Instance;
  readonly control?: number;
}
type FromWorker =
  | { readonly index: number; readonly analysis: InstanceAnalysis }
  | { readonly index: number; readonly error: { name: string; message: string; stack?: string } };

const BUILT_IN_ERRORS: Record<string, ErrorConstructor> = {
  Error,
  TypeError,
  RangeError,
  SyntaxError,
  ReferenceError,
  EvalError,
  URIError,
};

/** The worker's error as the calling thread's: same class (for built-in errors), name, message, stack. */
function revive(e: { name: string; message: string; stack?: string }): Error {
  const err = new (BUILT_IN_ERRORS[e.name] ?? Error)(e.message);
  if (err.name !== e.name) err.name = e.name;
  if (e.stack !== undefined) err.stack = e.stack;
  return err;
}

/**
 * Where the worker's script is: beside this module once built; from the sources (tests run with the
 * `@untorn/source` condition), the built one (a worker cannot load TypeScript: build before testing).
 */
const WORKER_URL = new URL(
  import.meta.url.endsWith(".ts") ? "../../dist/compare/compare-worker.js" : "./compare-worker.js",
  import.meta.url,
);

/**
 * The parent's Node options but `--conditions`, when it has any: under the test runner
 * (`@untorn/source`) the built worker would otherwise import the packages' TypeScript sources.
 * Otherwise the worker inherits them as Node does (per-process flags such as V8's are then let be).
 */
const CONDITION = /^(--conditions|-C)(=|$)/;
const WORKER_OPTIONS: { execArgv?: string[] } = process.execArgv.some((a) => CONDITION.test(a))
  ? {
      execArgv: process.execArgv.filter(
        (a, i, all) => !CONDITION.test(a) && !/^(--conditions|-C)$/.test(all[i - 1] ?? ""),
      ),
    }
  : {};

/**
 * The sample arrays of the treated instances that can be moved to a worker instead of copied: each
 * the whole of an ArrayBuffer that no other array of the input uses. The caller's input loses them
 * (detached, length 0) once sent.
 */
function movableBuffers(input: ComparisonInput): Set<ArrayBuffer> {
  const uses = new Map<ArrayBufferLike, number>();
  const whole = new Set<ArrayBuffer>();
  for (const inst of input.instances) {
    for (const pair of Object.values(inst.series)) {
      for (const w of [pair.before, pair.after]) {
        for (const a of "t" in w ? [w.t, w.v] : [w.v]) {
          uses.set(a.buffer, (uses.get(a.buffer) ?? 0) + 1);
          if (
            inst.role === "treated" &&
            a.buffer instanceof ArrayBuffer &&
            a.byteOffset === 0 &&
            a.byteLength === a.buffer.byteLength
          )
            whole.add(a.buffer);
        }
      }
    }
  }
  for (const b of whole) if (uses.get(b) !== 1) whole.delete(b);
  return whole;
}

/**
 * compare on the calling thread and threads − 1 worker threads (node:worker_threads): the same result
 * as compare(input), bit for bit, and the same error when an instance's analysis throws (that of the
 * first such instance in input order). The controls are copied to every worker; the sample arrays of
 * a treated instance a worker analyses are moved (transferred, not copied) to it, so they are detached
 * in the input afterwards: do not reuse the input.
 */
export async function compareParallel(
  input: ComparisonInput,
  options: ParallelOptions = {},
): Promise<ComparisonResult> {
  const threads = Math.min(options.threads ?? defaultThreads(input), input.instances.length);
  if (!(threads > 1)) return compare(input);
  const plan = planComparison(input);
  const controls = input.instances.filter((i) => i.role === "control");
  const controlIndex = new Map(controls.map((c, k) => [c, k]));
  const movable = movableBuffers(input);
  const analyses: (InstanceAnalysis | undefined)[] = new Array(input.instances.length);
  const errors: { index: number; error: Error }[] = [];
  let next = 0;
  const workers: Worker[] = [];

  const send = (worker: Worker): boolean => {
    if (next >= input.instances.length) return false;
    const index = next++;
    const inst = input.instances[index]!;
    const control = controlIndex.get(inst);
    if (control !== undefined) {
      worker.postMessage({ index, control } satisfies ToWorker);
      return true;
    }
    const transfer = new Set<ArrayBuffer>();
    for (const pair of Object.values(inst.series))
      for (const w of [pair.before, pair.after])
        for (const a of "t" in w ? [w.t, w.v] : [w.v])
          if (movable.has(a.buffer as ArrayBuffer)) transfer.add(a.buffer as ArrayBuffer);
    worker.postMessage({ index, instance: inst } satisfies ToWorker, [...transfer]);
    return true;
  };

  // The calling thread analyses instances too, between the workers' messages: one isolate fewer to
  // start and to hold (about 40 MB and 0.2 CPU s each here) than a worker per core.
  const local = instanceAnalyser(plan, input.instances);
  const onThisThread = async () => {
    for (;;) {
      // Let the workers' answers in first, so they are fed before this thread takes the next one.
      await new Promise((resolve) => setImmediate(resolve));
      if (next >= input.instances.length) return;
      const index = next++;
      try {
        analyses[index] = local(input.instances[index]!);
      } catch (err) {
        errors.push({ index, error: err as Error });
      }
    }
  };
  const onWorker = async () => {
    const worker = new Worker(WORKER_URL, {
      workerData: { plan, controls } satisfies WorkerSetup,
      ...WORKER_OPTIONS,
    });
    workers.push(worker);
    await new Promise<void>((resolve, reject) => {
      let pending = 0;
      // Two in flight: the worker never waits for this thread to hand it the next instance.
      const feed = () => {
        while (pending < 2 && send(worker)) pending++;
        if (pending === 0) resolve();
      };
      worker.on("message", (m: FromWorker) => {
        pending--;
        if ("error" in m) errors.push({ index: m.index, error: revive(m.error) });
        else analyses[m.index] = m.analysis;
        feed();
      });
      worker.on("error", reject);
      worker.on("exit", (code) => {
        if (pending > 0)
          reject(new Error(`a compare worker thread exited (code ${code}) before it answered`));
      });
      feed();
    });
  };
  try {
    await Promise.all([onThisThread(), ...Array.from({ length: threads - 1 }, onWorker)]);
  } finally {
    await Promise.all(workers.map((w) => w.terminate()));
  }
  if (errors.length > 0) throw errors.reduce((a, b) => (b.index < a.index ? b : a)).error;
  return finishComparison(plan, analyses as InstanceAnalysis[]);
}
