/**
 * `untorn rollout ...`: staged rollouts kept in the store (PGlite data directory or PostgreSQL), moved
 * by @untorn/rollout through @untorn/rollout-runner, the same functions the console calls.
 */
import { randomUUID } from "node:crypto";
import { readFile, writeFile } from "node:fs/promises";
import type { InstanceFacts } from "@untorn/advisor/facts";
import { parseDuration } from "@untorn/prom/duration";
import { type BakeEstimate, estimateBakes } from "@untorn/rollout/bake-estimate";
import { type Change, changeSchema } from "@untorn/rollout/change";
import type { CommandInput } from "@untorn/rollout/commands";
import { type PlanInputJson, planInputSchema, planRollout } from "@untorn/rollout/plan";
import { policySchema } from "@untorn/rollout/policy";
import { buildReport, renderReportMarkdown } from "@untorn/rollout/report";
import { nextActions, ROLLOUT_STATUSES, type RolloutState } from "@untorn/rollout/state";
import { createAnnotator } from "@untorn/rollout-runner/annotations";
import { planBakeEstimates } from "@untorn/rollout-runner/bake-estimate";
import { loadRunnerEnv, RunnerEnvError } from "@untorn/rollout-runner/env";
import { type LoopPass, startReconcilerLoop } from "@untorn/rollout-runner/loop";
import { candidateFacts } from "@untorn/rollout-runner/observe";
import { replayReconcileOptions } from "@untorn/rollout-runner/replay";
import {
  type CommandOutcome,
  createStoredRollout,
  getRollout,
  hooksFileSchema,
  listRollouts,
  type ReconcileOptions,
  type ReconcileSummary,
  RolloutDocumentError,
  RolloutTargetsRefusedError,
  type RunnerDeps,
  reconcileRollouts,
  runCommand,
  type StoredRollout,
} from "@untorn/rollout-runner/runner";
import {
  IdempotencyKeyReuseError,
  NotFoundError,
  StoreError,
  StoreOpenError,
  StoreValidationError,
  VersionConflictError,
} from "@untorn/store/errors";
import { openStore, type Store } from "@untorn/store/store";
import type { Command } from "commander";
import { z } from "zod";
import { CliError, describeIssues, EXIT } from "../errors.js";
import { type Io, readJsonFile } from "../io.js";
import { metadataOption, readMetadata } from "../metadata.js";
import { explain, openSource, parseAt, type Source, type SourceFlags, sourceOptions } from "../source.js";
import { DESCRIPTIONS } from "./descriptions.js";

interface StoreFlags {
  dataDir?: string;
  databaseUrl?: string;
}
interface CommonFlags extends StoreFlags {
  actor?: string;
  key?: string;
  expectedVersion?: string;
  now?: string;
  json?: boolean;
}

const DEFAULT_DATA_DIR = ".untorn-data";

/** The store, actor and time flags every rollout subcommand but `plan` shares. */
function commonOptions(cmd: Command, write = true): Command {
  cmd
    .option("--data-dir <dir>", `embedded store directory (default: $UNTORN_DATA_DIR or ${DEFAULT_DATA_DIR})`)
    .option("--database-url <url>", "PostgreSQL store instead of the data directory (default: $DATABASE_URL)")
    .option("--json", "print JSON");
  if (write)
    cmd
      .option("--actor <name>", "who does this, kept in the audit (default: $UNTORN_ACTOR, else $USER)")
      .option(
        "--key <key>",
        "idempotency key: the same key again gives the stored outcome instead of acting twice (default: a new random key)",
      )
      .option(
        "--expected-version <n>",
        "refuse with exit 5 if the rollout changed since you saw this version (shown by `show`)",
      )
      .option("--now <time>", "the command's time: RFC 3339 or Unix seconds (default: now; for replays)");
  return cmd;
}

const EnvSchema = z.object({
  UNTORN_DATA_DIR: z.string().min(1).optional().catch(undefined),
  DATABASE_URL: z.string().min(1).optional().catch(undefined),
  UNTORN_ACTOR: z.string().min(1).optional().catch(undefined),
  USER: z.string().min(1).optional().catch(undefined),
});

const POSTGRES_URL = /^postgres(ql)?:\/\//;

async function withStore<T>(flags: StoreFlags, io: Io, fn: (store: Store) => Promise<T>): Promise<T> {
  const env = EnvSchema.parse(io.env);
  const databaseUrl = flags.databaseUrl ?? env.DATABASE_URL;
  if (databaseUrl !== undefined && !POSTGRES_URL.test(databaseUrl))
    throw new CliError(
      `${flags.databaseUrl !== undefined ? "--database-url" : "DATABASE_URL"}: expected a postgres:// or postgresql:// URL`,
      EXIT.usage,
    );
  let store: Store;
  try {
    store = await openStore(
      databaseUrl ? { databaseUrl } : { dataDir: flags.dataDir ?? env.UNTORN_DATA_DIR ?? DEFAULT_DATA_DIR },
    );
  } catch (e) {
    if (e instanceof StoreOpenError) throw new CliError(`cannot open the store: ${e.message}`, EXIT.failure);
    throw e;
  }
  try {
    return await fn(store);
  } catch (e) {
    throw rolloutError(e);
  } finally {
    await store.close();
  }
}

/** The runner's and the store's errors as messages with the CLI's exit codes. */
export function rolloutError(e: unknown): unknown {
  if (e instanceof CliError) return e;
  if (e instanceof VersionConflictError || e instanceof IdempotencyKeyReuseError)
    return new CliError(e.message, EXIT.refused);
  if (e instanceof RolloutTargetsRefusedError) return new CliError(e.message, EXIT.refused);
  if (e instanceof NotFoundError)
    return new CliError(`${e.message}; \`untorn rollout list\` shows the ids`, EXIT.usage);
  if (e instanceof StoreValidationError) return new CliError(e.message, EXIT.invalidInput);
  if (e instanceof RolloutDocumentError) return new CliError(e.message, EXIT.failure);
  if (e instanceof z.ZodError)
    return new CliError(`invalid input:\n${describeIssues(e.issues)}`, EXIT.invalidInput);
  if (e instanceof StoreError) return new CliError(e.message, EXIT.failure);
  return explain(e);
}

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

function parseInt10(text: string, flag: string, min: number, max: number): number {
  if (!/^\d+$/.test(text) || Number(text) < min || Number(text) > max)
    throw new CliError(
      `${flag} ${JSON.stringify(text)}: expected a whole number from ${min} to ${max}`,
      EXIT.usage,
    );
  return Number(text);
}

const ID = z.uuid();
function parseId(text: string): string {
  if (!ID.safeParse(text).success)
    throw new CliError(
      `rollout id ${JSON.stringify(text)}: expected a UUID as \`untorn rollout list\` shows it`,
      EXIT.usage,
    );
  return text.toLowerCase();
}

const KEY = /^[\x21-\x7e]{8,200}$/;
function parseKey(text: string | undefined): string {
  if (text === undefined) return randomUUID();
  if (!KEY.test(text))
    throw new CliError(
      `--key ${JSON.stringify(text)}: expected 8 to 200 printable ASCII characters without spaces`,
      EXIT.usage,
    );
  return text;
}

function actorOf(flags: CommonFlags, io: Io): { id: string; kind: "operator" } {
  const env = EnvSchema.parse(io.env);
  const id = (flags.actor ?? env.UNTORN_ACTOR ?? env.USER ?? "").trim();
  if (!id || id.length > 256)
    throw new CliError(
      flags.actor !== undefined
        ? `--actor ${JSON.stringify(flags.actor)}: expected a name of 1 to 256 characters`
        : "who is acting? pass --actor <name> or set UNTORN_ACTOR",
      EXIT.usage,
    );
  return { id, kind: "operator" };
}

/** parseAt, with the flag's own name in the error. */
function parseTime(text: string, flag: string): number {
  try {
    return parseAt(text);
  } catch (e) {
    if (e instanceof CliError) throw new CliError(e.message.replace(/^--at/, flag), e.exitCode);
    throw e;
  }
}

function clockOf(flags: { now?: string }): () => number {
  if (flags.now === undefined) return () => Date.now() / 1000;
  const t = parseTime(flags.now, "--now");
  return () => t;
}

function depsOf(store: Store, flags: { now?: string }, io: Io): RunnerDeps {
  let env: ReturnType<typeof loadRunnerEnv>;
  try {
    env = loadRunnerEnv(io.env);
  } catch (e) {
    if (e instanceof RunnerEnvError) throw new CliError(e.message, EXIT.usage);
    throw e;
  }
  const log = (m: string) => io.err(`warning: ${m}\n`);
  return {
    store,
    clock: clockOf(flags),
    annotator: createAnnotator(
      env.GRAFANA_URL
        ? { url: env.GRAFANA_URL, ...(env.GRAFANA_TOKEN ? { token: env.GRAFANA_TOKEN } : {}) }
        : null,
      log,
    ),
    log,
  };
}

/** `--change` is inline JSON or @file. */
async function readChange(text: string): Promise<Change> {
  let raw = text;
  if (text.startsWith("@")) {
    try {
      raw = await readFile(text.slice(1), "utf8");
    } catch (e) {
      throw new CliError(
        `cannot read --change file ${text.slice(1)}: ${(e as Error).message}`,
        EXIT.invalidInput,
      );
    }
  }
  let data: unknown;
  try {
    data = JSON.parse(raw);
  } catch {
    // A bare kind such as doublewrite-off.
    data = { kind: raw.trim() };
  }
  const r = changeSchema.safeParse(data);
  if (!r.success)
    throw new CliError(
      `--change ${JSON.stringify(text.length > 80 ? `${text.slice(0, 80)}…` : text)} is not a valid change (rollout-plan-input.schema.json, property change):\n${describeIssues(r.error.issues)}`,
      EXIT.invalidInput,
    );
  return r.data;
}

function parseTargets(text: string | undefined): string[] | undefined {
  if (text === undefined) return undefined;
  const list = text
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean);
  if (list.length === 0)
    throw new CliError("--targets: expected a comma-separated list of instance labels", EXIT.usage);
  if (new Set(list).size !== list.length) throw new CliError("--targets lists an instance twice", EXIT.usage);
  return list;
}

interface PlanFlags extends SourceFlags {
  input?: string;
  change?: string;
  targets?: string;
  policy?: string;
  metadata?: string;
  json?: boolean;
}

/** The plan input from --input, or from --change/--targets/--policy and the facts the source serves. */
async function planInput(
  flags: PlanFlags,
  io: Io,
): Promise<{ input: PlanInputJson; at: number; warnings: string[]; source: Source | null }> {
  if (flags.input !== undefined) {
    if (flags.change !== undefined || flags.targets !== undefined || flags.policy !== undefined)
      throw new CliError("give either --input <file> or --change/--targets/--policy, not both", EXIT.usage);
    const input = await readJsonFile(
      flags.input,
      planInputSchema,
      "rollout plan input (rollout-plan-input.schema.json)",
    );
    return { input: input as PlanInputJson, at: Date.now() / 1000, warnings: [], source: null };
  }
  if (flags.change === undefined)
    throw new CliError(
      "what to roll out? pass --change <json|@file|kind> (e.g. --change doublewrite-off) or --input <file>",
      EXIT.usage,
    );
  const change = await readChange(flags.change);
  const targets = parseTargets(flags.targets);
  const policy =
    flags.policy === undefined ? {} : await readJsonFile(flags.policy, policySchema, "rollout policy");
  const metadata = await readMetadata(flags.metadata);
  const source = await openSource(flags, io);
  const at = source.facts.at ?? Math.floor(Date.now() / 1000);
  let facts: { facts: InstanceFacts[]; warnings: string[] };
  try {
    const { at: _at, selector: _selector, onProgress: _p, onAdvising: _a, ...factsOptions } = source.facts;
    facts = await candidateFacts(source.api, {
      at,
      window: source.facts.window,
      // A replay answers its own query texts only: the recording's step, statistics and source.
      factsOptions,
      ...(source.facts.selector ? { selector: source.facts.selector } : {}),
      ...(metadata ? { metadata } : {}),
    });
  } catch (e) {
    throw explain(e, source);
  }
  if (facts.facts.length === 0)
    throw new CliError(
      `no MySQL/MariaDB instances with facts found ${source.url ? `at ${source.url}` : `in ${source.replay?.file}`}: nothing to plan`,
      EXIT.failure,
    );
  const known = new Set(facts.facts.map((f) => f.identity.instance));
  const unknown = (targets ?? []).filter((t) => !known.has(t));
  if (unknown.length)
    throw new CliError(
      `--targets: no facts for ${unknown.join(", ")} (known: ${[...known].join(", ")})`,
      EXIT.usage,
    );
  return {
    input: { change, instances: facts.facts, ...(targets ? { targets } : {}), policy },
    at,
    warnings: facts.warnings,
    source,
  };
}

function planText(plan: ReturnType<typeof planRollout>, estimates: readonly BakeEstimate[]): string {
  const lines: string[] = [];
  lines.push(
    `Change: ${JSON.stringify(plan.change)}${plan.removesTornPageProtection ? " (removes torn-page protection: needs a verified safety gate)" : ""}`,
  );
  lines.push(`Hypothesis: ${plan.hypothesis.summary}`);
  lines.push("");
  for (const w of plan.waves)
    lines.push(
      `wave ${w.index} (${w.kind}): ${w.instances.join(", ")}${w.controls.length ? `; control ${w.controls.join(", ")}` : ""}`,
    );
  lines.push("");
  lines.push("instance\tcurrent → target\trestart\tgate\texpected gain");
  for (const r of plan.dryRun) {
    const gain = r.expectedGain ? `${r.expectedGain.title}` : "-";
    lines.push(
      `${r.instance}\t${r.current ?? "?"} → ${r.target ?? "?"}\t${r.restart === null ? "?" : r.restart ? "yes" : "no"}\t${r.gate}\t${r.excluded ? `excluded: ${r.excluded}` : gain}`,
    );
  }
  if (estimates.length) {
    lines.push("");
    lines.push("Time to a verdict:");
    for (const e of estimates) lines.push(`  ${e.message}`);
  }
  if (plan.exclusions.length) {
    lines.push("");
    for (const e of plan.exclusions)
      lines.push(
        `excluded ${e.instance}: ${e.reason}: ${e.detail}${e.toVerify.length ? ` (to verify: ${e.toVerify.join("; ")})` : ""}`,
      );
  }
  return `${lines.join("\n")}\n`;
}

function summary(s: StoredRollout): string {
  const st = s.state;
  const lines = [
    `${st.id}  ${st.title}`,
    `status ${st.status}${st.pause ? ` (${st.pause.reason}: ${st.pause.message})` : ""}, version ${s.version}, last change by ${s.updatedBy} at ${s.updatedAt.toISOString()}`,
  ];
  for (const w of st.waves)
    lines.push(
      `  wave ${w.index} ${w.kind} ${w.phase}: ${w.instances
        .map((i) => `${i} ${st.instances.find((x) => x.instance === i)?.status ?? "?"}`)
        .join(", ")}${w.controls.length ? `; control ${w.controls.join(", ")}` : ""}`,
    );
  return `${lines.join("\n")}\n`;
}

function nextText(state: RolloutState, now: number): string {
  const n = nextActions(state, now);
  const lines = n.human.map((h) => `next: ${h.message}`);
  if (n.wakeAt !== null)
    lines.push(`the reconciler moves it next at ${new Date(n.wakeAt * 1000).toISOString()}`);
  return lines.length ? `${lines.join("\n")}\n` : "";
}

function printOutcome(io: Io, json: boolean | undefined, o: CommandOutcome, id: string): void {
  if (json) {
    io.out(
      `${JSON.stringify({ ok: o.ok, replayed: o.replayed, refusal: o.refusal, id, status: o.state.status, version: o.version, events: o.events }, null, 2)}\n`,
    );
  } else {
    if (o.replayed) io.out("already done with this --key: nothing changed\n");
    for (const e of o.events) if (e.type !== "command-refused") io.out(`${e.type}: ${e.message}\n`);
    io.out(`rollout ${id}: ${o.state.status}, version ${o.version}\n`);
  }
  if (!o.ok && o.refusal)
    throw new CliError(
      `rollout ${id} refused the command (${o.refusal.code}): ${o.refusal.message}`,
      EXIT.refused,
    );
}

type Build = (
  f: CommonFlags & Record<string, string | boolean | undefined>,
  key: string,
  actor: { id: string; kind: "operator" },
  clock: () => number,
) => CommandInput;

/** A subcommand that sends one command to a stored rollout. */
function commandVerb(
  parent: Command,
  io: Io,
  name: string,
  description: string,
  setup: (c: Command) => Command,
  build: Build,
): void {
  commonOptions(setup(parent.command(`${name} <id>`).description(description))).action(
    async (idText: string, flags: CommonFlags & Record<string, string | boolean | undefined>) => {
      const id = parseId(idText);
      const key = parseKey(flags.key);
      const actor = actorOf(flags, io);
      const expectedVersion =
        flags.expectedVersion === undefined
          ? undefined
          : parseInt10(flags.expectedVersion, "--expected-version", 1, 2 ** 31 - 1);
      const clock = clockOf(flags);
      const cmd = build(flags, key, actor, clock);
      await withStore(flags, io, async (store) => {
        const o = await runCommand(
          depsOf(store, flags, io),
          id,
          cmd,
          expectedVersion === undefined ? {} : { expectedVersion },
        );
        printOutcome(io, flags.json, o, id);
      });
    },
  );
}

const reasonOf = (flags: Record<string, string | boolean | undefined>, verb: string): string => {
  const r = typeof flags["reason"] === "string" ? flags["reason"].trim() : "";
  if (!r || r.length > 4000)
    throw new CliError(`${verb} needs --reason <text> (1 to 4000 characters), kept in the audit`, EXIT.usage);
  return r;
};
const noteOf = (flags: Record<string, string | boolean | undefined>) => {
  const n = flags["note"];
  if (typeof n !== "string") return {};
  if (n.length > 4000) throw new CliError("--note: at most 4000 characters", EXIT.usage);
  return { note: n };
};

/** `rollout plan`: the dry run, with each wave's time to a verdict. */
function registerPlan(rollout: Command, io: Io): void {
  metadataOption(
    sourceOptions(
      rollout
        .command("plan")
        .description(
          "Dry run: waves, per-instance current → target, restart, safety gate and expected gain; nothing is stored.",
        ),
    ),
  )
    .option(
      "--change <json|@file|kind>",
      'the change, e.g. doublewrite-off or \'{"kind":"doublewrite-pages","pages":128}\'',
    )
    .option("--targets <list>", "comma-separated instances to change (default: every eligible instance)")
    .option("--policy <file>", "rollout policy JSON (property policy of rollout-plan-input.schema.json)")
    .option(
      "--input <file>",
      "a whole plan input (rollout-plan-input.schema.json) instead of the flags above",
    )
    .option("--json", "print the plan as JSON (rollout-plan.schema.json)")
    .action(async (flags: PlanFlags, cmd: Command) => {
      const all = { ...cmd.optsWithGlobals(), ...flags } as PlanFlags;
      const { input, at, warnings, source } = await planInput(all, io);
      let plan: ReturnType<typeof planRollout>;
      let parsed: ReturnType<typeof planInputSchema.parse>;
      try {
        parsed = planInputSchema.parse(input);
        plan = planRollout(parsed);
      } catch (e) {
        throw rolloutError(e);
      }
      // Time to a verdict per wave, from the baseline the bake would be judged against (none from --input).
      const replayed = source?.replay ? replayReconcileOptions(source.api, source.replay) : null;
      const estimated = source
        ? await planBakeEstimates(replayed?.api ?? source.api, plan, parsed.policy, {
            now: at,
            ...(replayed ? { rateWindow: replayed.rateWindow } : {}),
            ...(replayed?.bakeStepSeconds ? { bakeStepSeconds: replayed.bakeStepSeconds } : {}),
          })
        : { estimates: estimateBakes(plan, parsed.policy, []), warnings: [] };
      io.out(
        all.json
          ? `${JSON.stringify({ ...plan, bakeEstimates: estimated.estimates }, null, 2)}\n`
          : planText(plan, estimated.estimates),
      );
      for (const w of [...warnings, ...estimated.warnings]) io.err(`warning: ${w}\n`);
    });
}

/** `rollout create`: plan and store a rollout. */
function registerCreate(rollout: Command, io: Io): void {
  commonOptions(
    metadataOption(
      sourceOptions(
        rollout
          .command("create")
          .description(
            "Plan and store a rollout; refused (exit 5) when a --targets instance can't take the change, e.g. its safety gate is not verified.",
          ),
      ),
    ),
  )
    .requiredOption("--title <text>", "what the rollout is for, e.g. the change ticket")
    .option("--change <json|@file|kind>", "the change, e.g. doublewrite-off")
    .option("--targets <list>", "comma-separated instances to change (default: every eligible instance)")
    .option("--policy <file>", "rollout policy JSON")
    .option("--input <file>", "a whole plan input (rollout-plan-input.schema.json)")
    .action(async (flags: PlanFlags & CommonFlags & { title: string }, cmd: Command) => {
      const all = { ...cmd.optsWithGlobals(), ...flags } as PlanFlags & CommonFlags & { title: string };
      const title = all.title.trim();
      if (!title || title.length > 200)
        throw new CliError("--title: expected 1 to 200 characters", EXIT.usage);
      const key = parseKey(all.key);
      const actor = actorOf(all, io);
      const { input, at, warnings } = await planInput(all, io);
      // On a recording, "now" is its clock (the facts' time), unless --now says otherwise.
      const clock = all.now === undefined && all.replay !== undefined ? { ...all, now: String(at) } : all;
      await withStore(all, io, async (store) => {
        const r = await createStoredRollout(depsOf(store, clock, io), {
          type: "create",
          key,
          actor,
          title,
          input,
        });
        const s = r.stored;
        if (all.json)
          io.out(
            `${JSON.stringify({ id: s.state.id, replayed: r.replayed, version: s.version, state: s.state }, null, 2)}\n`,
          );
        else {
          if (r.replayed) io.out("already created with this --key: nothing changed\n");
          io.out(summary(s));
          io.out(nextText(s.state, clockOf(all)()));
        }
      });
      for (const w of warnings) io.err(`warning: ${w}\n`);
    });
}

/** `rollout list`. */
function registerList(rollout: Command, io: Io): void {
  commonOptions(rollout.command("list").description("Rollouts, newest first."), false)
    .option("--status <list>", `comma-separated statuses: ${ROLLOUT_STATUSES.join(", ")}`)
    .option("--limit <n>", "at most this many (1-1000, default 100)")
    .action(async (flags: StoreFlags & { status?: string; limit?: string; json?: boolean }) => {
      const statuses = flags.status?.split(",").map((s) => s.trim());
      const bad = statuses?.filter((s) => !(ROLLOUT_STATUSES as readonly string[]).includes(s)) ?? [];
      if (bad.length)
        throw new CliError(`--status ${bad.join(", ")}: expected ${ROLLOUT_STATUSES.join(", ")}`, EXIT.usage);
      const limit = flags.limit === undefined ? 100 : parseInt10(flags.limit, "--limit", 1, 1000);
      await withStore(flags, io, async (store) => {
        const list = await listRollouts({ store }, { ...(statuses ? { statuses } : {}), limit });
        if (flags.json) {
          io.out(
            `${JSON.stringify(
              list.map((s) => ({
                id: s.state.id,
                title: s.state.title,
                status: s.state.status,
                version: s.version,
                updatedAt: s.updatedAt.toISOString(),
                updatedBy: s.updatedBy,
                currentWave: s.state.currentWave,
                waves: s.state.waves.length,
              })),
              null,
              2,
            )}\n`,
          );
          return;
        }
        if (list.length === 0) io.out("no rollouts\n");
        for (const s of list)
          io.out(
            `${s.state.id}  ${s.state.status.padEnd(9)}  wave ${s.state.currentWave ?? "-"}/${s.state.waves.length}  v${s.version}  ${s.state.title}\n`,
          );
      });
    });
}

/** `rollout show <id>`. */
function registerShow(rollout: Command, io: Io): void {
  commonOptions(
    rollout.command("show <id>").description("One rollout: waves, instances, what happens next."),
    false,
  )
    .option("--events", "list the audit events too")
    .action(async (idText: string, flags: StoreFlags & { json?: boolean; events?: boolean }) => {
      const id = parseId(idText);
      await withStore(flags, io, async (store) => {
        const s = await getRollout({ store }, id);
        const now = Date.now() / 1000;
        if (flags.json) {
          io.out(
            `${JSON.stringify({ version: s.version, updatedAt: s.updatedAt.toISOString(), updatedBy: s.updatedBy, state: s.state, next: nextActions(s.state, now) }, null, 2)}\n`,
          );
          return;
        }
        io.out(summary(s));
        io.out(nextText(s.state, now));
        if (flags.events)
          for (const e of s.state.events)
            io.out(
              `${new Date(e.at * 1000).toISOString()}  ${e.actor.id.padEnd(12)} ${e.type}: ${e.message}\n`,
            );
      });
    });
}

/** The operator's verbs: approve, step-done, pause, resume, abort, revert, revert-done. */
function registerVerbs(rollout: Command, io: Io): void {
  commandVerb(
    rollout,
    io,
    "attest-backup",
    "Attest a backup taken at --taken-at (the pre-wave gate needs a recent one).",
    (c) =>
      c
        .requiredOption("--taken-at <time>", "when the backup was taken: RFC 3339 or Unix seconds")
        .option("--note <text>", "where it is"),
    (f, key, actor) => ({
      type: "attest-backup",
      key,
      actor,
      takenAt: parseTime(String(f["takenAt"]), "--taken-at"),
      ...noteOf(f),
    }),
  );
  commandVerb(
    rollout,
    io,
    "approve",
    "Open a pending wave, or accept an inconclusive wave's result.",
    (c) =>
      c.requiredOption("--wave <n>", "wave number (0 = canary)").option("--note <text>", "kept in the audit"),
    (f, key, actor) => ({
      type: "approve",
      key,
      actor,
      wave: parseInt10(String(f["wave"]), "--wave", 0, 10_000),
      ...noteOf(f),
    }),
  );
  commandVerb(
    rollout,
    io,
    "step",
    "Mark an instance's step done (you applied the change; now is the comparison's change point), or with --revert its revert.",
    (c) =>
      c
        .requiredOption("--instance <label>", "the Prometheus instance label")
        .option("--revert", "the instance's revert step was done, not its change")
        .option("--note <text>", "kept in the audit"),
    (f, key, actor) => {
      const instance = String(f["instance"]).trim();
      if (!instance || instance.length > 256)
        throw new CliError("--instance: expected an instance label", EXIT.usage);
      return { type: f["revert"] ? "revert-done" : "step-done", key, actor, instance, ...noteOf(f) };
    },
  );
  commandVerb(
    rollout,
    io,
    "pause",
    "Pause: no new wave or step starts; read-backs are still recorded.",
    (c) => c.option("--reason <text>", "why (required)"),
    (f, key, actor) => ({ type: "pause", key, actor, reason: reasonOf(f, "pause") }),
  );
  commandVerb(
    rollout,
    io,
    "resume",
    "Resume a paused rollout (an inconclusive wave is judged again).",
    (c) => c.option("--note <text>", "kept in the audit"),
    (f, key, actor) => ({ type: "resume", key, actor, ...noteOf(f) }),
  );
  commandVerb(
    rollout,
    io,
    "abort",
    "Stop the rollout where it stands; changed instances keep the change.",
    (c) => c.option("--reason <text>", "why (required)"),
    (f, key, actor) => ({ type: "abort", key, actor, reason: reasonOf(f, "abort") }),
  );
  commandVerb(
    rollout,
    io,
    "revert",
    "Revert every changed instance to its previous value (then `step --revert` each).",
    (c) => c.option("--reason <text>", "why (required)"),
    (f, key, actor) => ({ type: "revert", key, actor, reason: reasonOf(f, "revert") }),
  );
}

/** `rollout command <id>`: one command as JSON. */
function registerCommand(rollout: Command, io: Io): void {
  commonOptions(
    rollout
      .command("command <id>")
      .description(
        "Send any command as JSON (rollout-command.schema.json): what the console sends, for scripts.",
      ),
    false,
  )
    .requiredOption("--input <file>", "the command JSON, or - for stdin")
    .option("--expected-version <n>", "refuse with exit 5 if the rollout changed since this version")
    .option("--now <time>", "the command's time (default: now)")
    .action(async (idText: string, flags: CommonFlags & { input: string }) => {
      const id = parseId(idText);
      const { commandSchema } = await import("@untorn/rollout/commands");
      const cmd = await readJsonFile(
        flags.input,
        commandSchema,
        "rollout command (rollout-command.schema.json)",
      );
      const expectedVersion =
        flags.expectedVersion === undefined
          ? undefined
          : parseInt10(flags.expectedVersion, "--expected-version", 1, 2 ** 31 - 1);
      await withStore(flags, io, async (store) => {
        const o = await runCommand(
          depsOf(store, flags, io),
          id,
          cmd,
          expectedVersion === undefined ? {} : { expectedVersion },
        );
        printOutcome(io, flags.json, o, id);
      });
    });
}

/** `rollout reconcile`: one reconciler pass, or a loop. */
function registerReconcile(rollout: Command, io: Io): void {
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

/** `rollout report <id>`. */
function registerReport(rollout: Command, io: Io): void {
  commonOptions(
    rollout
      .command("report <id>")
      .description("The change report, as Markdown (default) or JSON (rollout-report.schema.json)."),
    false,
  )
    .option("--format <format>", "md or json (default md; --json = json)")
    .option("--out <file>", "write it to this file instead of stdout")
    .action(async (idText: string, flags: StoreFlags & { json?: boolean; format?: string; out?: string }) => {
      const id = parseId(idText);
      const format = flags.format ?? (flags.json ? "json" : "md");
      if (format !== "md" && format !== "json")
        throw new CliError(`--format ${JSON.stringify(format)}: expected md or json`, EXIT.usage);
      if (flags.json && flags.format === "md")
        throw new CliError("--json and --format md contradict each other", EXIT.usage);
      await withStore(flags, io, async (store) => {
        const s = await getRollout({ store }, id);
        const report = buildReport(s.state, Date.now() / 1000);
        const text =
          format === "json" ? `${JSON.stringify(report, null, 2)}\n` : renderReportMarkdown(report);
        if (flags.out === undefined) io.out(text);
        else {
          try {
            await writeFile(flags.out, text);
          } catch (e) {
            throw new CliError(`cannot write ${flags.out}: ${(e as Error).message}`, EXIT.failure);
          }
          io.err(`wrote ${flags.out}\n`);
        }
      });
    });
}

export function registerRollout(program: Command, io: Io): void {
  const rollout = program.command("rollout").description(DESCRIPTIONS.rollout);
  registerPlan(rollout, io);
  registerCreate(rollout, io);
  registerList(rollout, io);
  registerShow(rollout, io);
  registerVerbs(rollout, io);
  registerCommand(rollout, io);
  registerReconcile(rollout, io);
  registerReport(rollout, io);
}
