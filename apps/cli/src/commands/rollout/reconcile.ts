/** `untorn rollout reconcile`: one reconciler pass, or with --watch a loop of them. */
import { parseDuration } from "@untorn/prom/duration";
import { type LoopPass, startReconcilerLoop } from "@untorn/rollout-runner/loop";
import { replayReconcileOptions } from "@untorn/rollout-runner/replay";
import {
  hooksFileSchema,
  type ReconcileOptions,
  type ReconcileSummary,
  type RunnerDeps,
  reconcileRollouts,
} from "@untorn/rollout-runner/runner";
import type { Command } from "commander";
import { CliError, EXIT } from "../../errors.js";
import { type Io, readJsonFile } from "../../io.js";
import { metadataOption, readMetadata } from "../../metadata.js";
import { openSource, sourceOptions } from "../../source.js";
import { type CommonFlags, commonOptions, parseId } from "./options.js";
import type { PlanFlags } from "./plan-input.js";
import { depsOf, withStore } from "./store.js";

const DEFAULT_WATCH_INTERVAL = "30s";
/** Bounds of --interval: a pass every second at most (each one queries Prometheus), and at least daily. */
const WATCH_INTERVAL_BOUNDS = { min: 1, max: 86_400 };

type ReconcileFlags = PlanFlags &
  CommonFlags & { id?: string; hooks?: string; watch?: boolean; interval?: string };

/** --watch's interval in seconds, or undefined for one pass. */
function parseWatch(flags: ReconcileFlags): number | undefined {
  if (!flags.watch) {
    if (flags.interval !== undefined)
      throw new CliError(
        "--interval paces --watch: add --watch, or drop --interval for one pass",
        EXIT.usage,
      );
    return undefined;
  }
  if (flags.now !== undefined)
    throw new CliError(
      "--watch runs on the wall clock: --now would judge the same moment at every pass",
      EXIT.usage,
    );
  if (flags.at !== undefined)
    throw new CliError(
      "--watch runs on the wall clock: --at would judge the same moment at every pass",
      EXIT.usage,
    );
  const text = flags.interval ?? DEFAULT_WATCH_INTERVAL;
  let ms: number;
  try {
    ms = parseDuration(text);
  } catch (e) {
    throw new CliError(
      `--interval ${JSON.stringify(text)}: ${(e as Error).message.replace(/^invalid PromQL duration "[^"]*": /, "")}`,
      EXIT.usage,
    );
  }
  const seconds = ms / 1000;
  if (seconds < WATCH_INTERVAL_BOUNDS.min || seconds > WATCH_INTERVAL_BOUNDS.max)
    throw new CliError(
      `--interval ${JSON.stringify(text)}: expected from ${WATCH_INTERVAL_BOUNDS.min}s to 24h`,
      EXIT.usage,
    );
  return seconds;
}

const notReconciled = (r: ReconcileSummary) =>
  r.rollouts.filter((p) => p.outcome === "observation-failed" || p.outcome === "invalid-document");

/** One line per pass: when, how long, and what each rollout did. */
function passLine(p: LoopPass): string {
  const head = `${new Date(p.startedAt * 1000).toISOString()} pass ${p.n} (${p.durationSeconds.toFixed(1)}s)`;
  if (p.error) return `${head}: failed: ${p.error.message}`;
  const r = p.summary;
  if (!r.acquired) return `${head}: another reconciler holds the lock, nothing done`;
  if (r.rollouts.length === 0) return `${head}: no active rollouts`;
  const parts = r.rollouts.map(
    (x) =>
      `${x.id} ${x.outcome} ${x.status}${x.events.length ? ` [${x.events.map((e) => e.type).join(", ")}]` : ""}`,
  );
  return `${head}: ${parts.join("; ")}`;
}

/** Runs the loop until SIGINT or SIGTERM; the pass in flight finishes first. */
async function watch(
  io: Io,
  deps: RunnerDeps,
  opts: ReconcileOptions,
  intervalSeconds: number,
  json: boolean,
): Promise<void> {
  const controller = new AbortController();
  const stop = (signal: NodeJS.Signals) => {
    if (!controller.signal.aborted) io.err(`${signal}: stopping after the pass in flight\n`);
    controller.abort();
  };
  process.on("SIGINT", stop);
  process.on("SIGTERM", stop);
  try {
    const loop = startReconcilerLoop(deps, {
      ...opts,
      intervalSeconds,
      signal: controller.signal,
      onPass: (p) => {
        if (json)
          io.out(
            `${JSON.stringify({
              pass: p.n,
              startedAt: new Date(p.startedAt * 1000).toISOString(),
              durationSeconds: Math.round(p.durationSeconds * 1000) / 1000,
              ...(p.error ? { error: p.error.message } : p.summary),
            })}\n`,
          );
        else io.out(`${passLine(p)}\n`);
        if (p.summary) for (const x of notReconciled(p.summary)) io.err(`warning: ${x.id}: ${x.error}\n`);
      },
    });
    const { passes, failed } = await loop.done;
    io.err(`stopped after ${passes} pass(es), ${failed} failed\n`);
  } finally {
    process.off("SIGINT", stop);
    process.off("SIGTERM", stop);
  }
}

/** `rollout reconcile`: one reconciler pass, or a loop. */
export function registerReconcile(rollout: Command, io: Io): void {
  commonOptions(
    metadataOption(
      sourceOptions(
        rollout
          .command("reconcile")
          .description(
            "One reconciler pass: fire step hooks, fetch the observations each active rollout needs, advance time-based gates. Run it from cron or a timer; one process at a time does the work.",
          ),
      ),
    ),
    false,
  )
    .option("--id <id>", "only this rollout")
    .option("--hooks <file>", "step hooks by name (rollout-hooks.schema.json)")
    .option("--now <time>", "evaluation time (default: --at, the replay's end, or now)")
    .option(
      "--watch",
      "keep reconciling, one pass per --interval, until SIGINT or SIGTERM (which finish the pass in flight, then exit 0)",
    )
    .option("--interval <duration>", `time between passes with --watch (default ${DEFAULT_WATCH_INTERVAL})`)
    .action(async (flags: ReconcileFlags, cmd: Command) => {
      const all = { ...cmd.optsWithGlobals(), ...flags } as ReconcileFlags;
      const id = all.id === undefined ? undefined : parseId(all.id);
      const intervalSeconds = parseWatch(all);
      const hooks =
        all.hooks === undefined
          ? undefined
          : await readJsonFile(all.hooks, hooksFileSchema, "hooks file (rollout-hooks.schema.json)");
      const metadata = await readMetadata(all.metadata);
      const source = await openSource(all, io);
      if (intervalSeconds !== undefined && source.replay)
        throw new CliError(
          "--watch reads a live Prometheus: a replay file is one fixed moment (run one pass without --watch)",
          EXIT.usage,
        );
      const now = all.now ?? (source.replay ? String(source.facts.at) : all.at);
      await withStore(all, io, async (store) => {
        const deps = depsOf(store, now === undefined ? {} : { now }, io);
        const opts: ReconcileOptions = {
          api: source.api,
          // On a recording: its own query texts; what it does not hold reads as no data.
          ...(source.replay ? replayReconcileOptions(source.api, source.replay) : {}),
          ...(id ? { rolloutId: id } : {}),
          ...(hooks ? { hooks: hooks.hooks } : {}),
          ...(metadata ? { metadata } : {}),
        };
        if (intervalSeconds !== undefined) {
          await watch(io, deps, opts, intervalSeconds, Boolean(all.json));
          return;
        }
        const r = await reconcileRollouts(deps, opts);
        if (all.json) io.out(`${JSON.stringify(r, null, 2)}\n`);
        else if (!r.acquired) io.out("another reconciler is running: nothing done\n");
        else {
          if (r.rollouts.length === 0) io.out("no active rollouts\n");
          for (const p of r.rollouts) {
            io.out(
              `${p.id}: ${p.outcome}, ${p.status}${p.wakeAt ? `; next at ${new Date(p.wakeAt * 1000).toISOString()}` : ""}\n`,
            );
            for (const e of p.events) io.out(`  ${e.type}: ${e.message}\n`);
            if (p.error) io.err(`warning: ${p.id}: ${p.error}\n`);
          }
        }
        const failed = notReconciled(r);
        if (failed.length)
          throw new CliError(
            `${failed.length} rollout(s) not reconciled: ${failed.map((p) => `${p.id}: ${p.error}`).join("; ")}`,
            EXIT.failure,
          );
      });
    });
}
