/**
 * Rollouts kept in @untorn/store and moved by @untorn/rollout: create, commands, reconcile. The one
 * place the pure core meets the store, Prometheus, hooks and Grafana; the CLI and the console both
 * call it, and so can a test. Every write goes through `commitRollout` with the version it read, so
 * two writers get a conflict rather than a lost update, and the core's state is parsed with its zod
 * schema on the way out of the store and on the way in.
 */
import { randomUUID } from "node:crypto";
import { DEFAULT_WINDOW } from "@untorn/catalog/signals";
import type { PromQueryApi } from "@untorn/fleet/api";
import {
  type Command,
  type CommandInput,
  type CreateCommandInput,
  commandSchema,
  createCommandSchema,
  type Refusal,
} from "@untorn/rollout/commands";
import type { RolloutEvent } from "@untorn/rollout/events";
import type { Health, ObservationsInput, ReadBack } from "@untorn/rollout/observations";
import type { ActiveRollout } from "@untorn/rollout/plan";
import { planRollout } from "@untorn/rollout/plan";
import {
  applyCommand,
  canonicalJson,
  createRollout,
  FINAL_STATUSES,
  nextActions,
  parseRolloutState,
  ROLLOUT_STATUSES,
  type RolloutState,
  reconcile,
  type Transition,
  touchedInstances,
} from "@untorn/rollout/state";
import { NotFoundError, VersionConflictError } from "@untorn/store/errors";
import type { Rollout, Store } from "@untorn/store/store";
import type { JsonObject } from "@untorn/store/validation";
import { z } from "zod";
import { type Annotator, createAnnotator } from "./annotations.js";
import { type HookResult, hookSchema, runHook } from "./hooks.js";
import { fetchBakes, fetchShared, type ObserveOptions, type ReplicationSource } from "./observe.js";

/** Statuses the reconciler still looks at (everything but the final ones). */
export const ACTIVE_STATUSES = ROLLOUT_STATUSES.filter((s) => !FINAL_STATUSES.includes(s));

/** Hooks by name, as a rollout's policy `applier: { kind: "hook", hook: "<name>" }` refers to them. */
export const hooksFileSchema = z
  .strictObject({
    $schema: z.string().optional(),
    hooks: z.record(z.string().min(1).max(128), hookSchema),
  })
  .meta({ id: "RolloutHooks", description: "Step hooks the reconciler may run, by name." });
export type HooksFile = z.input<typeof hooksFileSchema>;

/** The stored rollout document does not parse with the core's schema (edited by hand, or a newer Untorn). */
export class RolloutDocumentError extends Error {
  override name = "RolloutDocumentError";
  constructor(
    readonly rolloutId: string,
    readonly issues: string,
  ) {
    super(`rollout ${rolloutId}: the stored state does not match this Untorn's rollout schema: ${issues}`);
  }
}

/** The core refused a command (wrong phase, unknown instance, reused key...): nothing changed but the audit. */
export class RolloutRefusedError extends Error {
  override name = "RolloutRefusedError";
  constructor(
    readonly rolloutId: string,
    readonly refusal: Refusal,
  ) {
    super(`rollout ${rolloutId} refused the command (${refusal.code}): ${refusal.message}`);
  }
}

/** A create whose explicit targets include instances the plan excludes (e.g. the safety gate is unverified). */
export class RolloutTargetsRefusedError extends Error {
  override name = "RolloutTargetsRefusedError";
  constructor(
    readonly exclusions: readonly { instance: string; reason: string; detail: string; toVerify: string[] }[],
  ) {
    super(
      `refused: ${exclusions.length} target(s) can't take this change:\n${exclusions
        .map(
          (e) =>
            `  ${e.instance}: ${e.reason}: ${e.detail}${e.toVerify.length ? ` (to verify: ${e.toVerify.join("; ")})` : ""}`,
        )
        .join("\n")}`,
    );
  }
}

export interface RunnerDeps {
  store: Store;
  /** Unix seconds; default the wall clock. */
  clock?: () => number;
  annotator?: Annotator;
  log?: (message: string) => void;
}

export interface StoredRollout {
  state: RolloutState;
  version: number;
  updatedAt: Date;
  updatedBy: string;
}

export interface CommandOutcome {
  ok: boolean;
  /** The same idempotency key was seen before: nothing was written. */
  replayed: boolean;
  refusal: Refusal | null;
  state: RolloutState;
  version: number;
  events: readonly RolloutEvent[];
}

const now = (deps: RunnerDeps) => (deps.clock ? deps.clock() : Date.now() / 1000);

function parseStored(row: Rollout): StoredRollout {
  try {
    return {
      state: parseRolloutState(row.document),
      version: row.version,
      updatedAt: row.updatedAt,
      updatedBy: row.updatedBy,
    };
  } catch (e) {
    const issues =
      e instanceof z.ZodError
        ? e.issues
            .slice(0, 5)
            .map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`)
            .join("; ")
        : String(e);
    throw new RolloutDocumentError(row.id, issues);
  }
}

const storeEvents = (events: readonly RolloutEvent[]) =>
  events.map((e) => ({ type: e.type, evidence: e as unknown as JsonObject, at: new Date(e.at * 1000) }));

async function annotateAll(deps: RunnerDeps, id: string, events: readonly RolloutEvent[]): Promise<void> {
  const a = deps.annotator;
  if (!a?.enabled) return;
  for (const e of events) {
    if (e.type === "command-refused") continue;
    await a.annotate({
      rolloutId: id,
      time: new Date(e.at * 1000),
      text: e.message,
      tags: [
        e.type,
        ...(e.instance ? [e.instance] : []),
        ...(e.wave !== undefined ? [`wave-${e.wave}`] : []),
      ],
    });
  }
}

export async function getRollout(deps: RunnerDeps, id: string): Promise<StoredRollout> {
  const row = await deps.store.getRollout(id);
  if (!row) throw new NotFoundError("rollout", id);
  return parseStored(row);
}

export async function listRollouts(
  deps: RunnerDeps,
  filter: { statuses?: readonly string[]; limit?: number } = {},
): Promise<StoredRollout[]> {
  const rows = await deps.store.listRollouts({
    ...(filter.statuses ? { states: [...filter.statuses] } : {}),
    limit: filter.limit ?? 100,
  });
  return rows.map(parseStored);
}

/** Other active rollouts and the instances they touch (for the plan and the pre-wave gate). */
export async function activeRollouts(deps: RunnerDeps, except?: string): Promise<ActiveRollout[]> {
  const rows = await deps.store.listRollouts({ states: [...ACTIVE_STATUSES], limit: 1000 });
  return rows
    .filter((r) => r.id !== except)
    .map((r) => {
      const s = parseStored(r).state;
      return { rolloutId: s.id, instances: touchedInstances(s) };
    });
}

/**
 * Plans and stores a new rollout. Explicit `targets` the plan excludes are refused with each reason
 * (a target whose safety gate is not verified never silently drops out of the rollout). The same
 * idempotency key again returns the rollout it created.
 */
export async function createStoredRollout(
  deps: RunnerDeps,
  input: Omit<CreateCommandInput, "id"> & { id?: string },
): Promise<{ stored: StoredRollout; replayed: boolean }> {
  const known = await deps.store.getRolloutCommand(input.key).catch(() => null);
  if (known && known.command === "create") {
    return { stored: await getRollout(deps, known.rolloutId), replayed: true };
  }
  const active = await activeRollouts(deps);
  const cmd = createCommandSchema.parse({
    ...input,
    id: input.id ?? randomUUID(),
    input: { ...input.input, activeRollouts: [...(input.input.activeRollouts ?? []), ...active] },
  });
  const plan = planRollout(cmd.input);
  if (cmd.input.targets?.length) {
    const refused = plan.exclusions.filter((e) => cmd.input.targets!.includes(e.instance));
    if (refused.length) throw new RolloutTargetsRefusedError(refused);
  }
  const t = now(deps);
  const state = createRollout(cmd, t);
  const row = await deps.store.createRollout({
    id: state.id,
    name: state.title,
    change: state.plan.change as unknown as JsonObject,
    // What it changes; a plan that excludes everything still names what it was asked to change.
    targets: [
      ...new Set(
        state.instances.length
          ? state.instances.map((i) => i.instance)
          : (cmd.input.targets ?? cmd.input.instances.map((f) => f.identity.instance)),
      ),
    ],
    waves: state.waves as unknown as JsonObject[],
    state: state.status,
    document: state as unknown as JsonObject,
    idempotencyKey: cmd.key,
    events: storeEvents(state.events),
    actor: cmd.actor.id,
  });
  const stored = parseStored(row);
  if (row.id !== state.id) return { stored, replayed: true };
  await annotateAll(deps, state.id, state.events);
  return { stored, replayed: false };
}

async function commitTransition(
  deps: RunnerDeps,
  id: string,
  expectedVersion: number,
  actor: string,
  command: string,
  t: Transition,
  key?: string,
  request?: unknown,
): Promise<{ version: number; replayed: boolean }> {
  const r = await deps.store.commitRollout({
    id,
    expectedVersion,
    actor,
    command,
    ...(key ? { idempotencyKey: key, request: request as JsonObject } : {}),
    state: t.state.status,
    document: t.state as unknown as JsonObject,
    waves: t.state.waves as unknown as JsonObject[],
    events: storeEvents(t.events),
    outcome: t.ok ? { ok: true } : { ok: false, code: t.refusal.code, message: t.refusal.message },
    // In the audit row: a refusal changed nothing a person decided on (see personBehind).
    refused: !t.ok,
  });
  if (!r.replayed) await annotateAll(deps, id, t.events);
  return { version: r.version, replayed: r.replayed };
}

/**
 * Commands the runner records on its own: the reconciler's bookkeeping (a read-back counted, a gate
 * re-checked) and hooks. None of them is a person's decision.
 */
export const AUTOMATIC_COMMANDS: ReadonlySet<string> = new Set(["reconcile", "hook-started", "hook-result"]);

/** A person's command on a rollout, as a conflicting writer should hear of it. */
export interface PersonChange {
  actor: string;
  at: Date;
  /** The command, e.g. `pause`, `approve`. */
  action: string;
  /** The rollout's version it produced. */
  version: number;
  /** What the timeline says of it (e.g. "Paused: lag on orders."), when found. */
  message: string | null;
}

/**
 * The store's conflict with the person behind it: `changedBy` names the last person who changed the
 * rollout and what they did, not the reconciler's or a hook's later bookkeeping nor a command the
 * engine refused (the last writer is kept in `lastWriter`). `personSince` says whether a person
 * changed it after the caller's version at all; `refusalsOnlySince`, whether every commit since was a
 * refused command (the status is then the one the caller saw).
 */
export class RolloutConflictError extends VersionConflictError {
  constructor(
    base: VersionConflictError,
    readonly lastPerson: PersonChange | null,
    readonly personSince: boolean,
    readonly refusalsOnlySince = false,
    readonly lastWriter = base.changedBy,
  ) {
    super(
      base.entity,
      base.id,
      base.expectedVersion,
      base.actualVersion,
      base.actualState,
      lastPerson ? { actor: lastPerson.actor, at: lastPerson.at, action: lastPerson.action } : base.changedBy,
    );
  }
}

/**
 * Who, of the people, last changed rollout `id`, whether anyone did after `expectedVersion`, and
 * whether every commit after it was a refused command. A command the engine refused is recorded (its
 * key and a `command-refused` event: a new version) but changes nothing anyone decided on: like the
 * reconciler's bookkeeping, it is no person's change here.
 */
async function personBehind(
  deps: RunnerDeps,
  id: string,
  expectedVersion: number,
): Promise<{ last: PersonChange | null; since: boolean; refusalsOnlySince: boolean }> {
  const rows = await deps.store.listAudit({ entity: "rollout", entityId: id, limit: 1000 });
  const details = (r: (typeof rows)[number]) =>
    (r.details ?? {}) as { version?: unknown; refused?: unknown; from?: unknown; to?: unknown };
  const versionOf = (r: (typeof rows)[number]) => {
    const v = details(r).version;
    return typeof v === "number" ? v : null;
  };
  // Refusals recorded before the runner marked them carry no `refused`: they count as changes, as before.
  const refusedOf = (r: (typeof rows)[number]) =>
    details(r).refused === true && details(r).from === details(r).to;
  const commandOf = (r: (typeof rows)[number]) => r.action.replace(/^rollout\./, "");
  // Newest first; rows without a version are not commits (e.g. a deletion's or a gate override's).
  const commits = rows.filter((r) => r.action.startsWith("rollout.") && versionOf(r) !== null);
  const newer = commits.filter((r) => versionOf(r)! > expectedVersion);
  const people = commits.filter((r) => !AUTOMATIC_COMMANDS.has(commandOf(r)) && !refusedOf(r));
  const since = people.some((r) => versionOf(r)! > expectedVersion);
  const refusalsOnlySince = newer.length > 0 && newer.every(refusedOf);
  const row = people[0];
  if (!row) return { last: null, since, refusalsOnlySince };
  const state = await getRollout(deps, id).then(
    (x) => x.state,
    () => null,
  );
  const event = state?.events
    .filter((e) => e.actor.kind === "operator" && e.actor.id === row.actor && e.type !== "command-refused")
    .at(-1);
  return {
    last: {
      actor: row.actor,
      at: row.at,
      action: commandOf(row),
      version: versionOf(row)!,
      message: event?.message ?? null,
    },
    since,
    refusalsOnlySince,
  };
}

async function explainConflict(deps: RunnerDeps, id: string, e: VersionConflictError): Promise<Error> {
  try {
    const p = await personBehind(deps, id, e.expectedVersion);
    return new RolloutConflictError(e, p.last, p.since, p.refusalsOnlySince);
  } catch {
    // The audit could not be read: the store's own conflict names the last writer; when that was the
    // reconciler or a hook, no person is known to have acted since.
    const action = e.changedBy?.action ?? null;
    return new RolloutConflictError(e, null, action === null || !AUTOMATIC_COMMANDS.has(action));
  }
}

/**
 * One command on a stored rollout. `expectedVersion` (what the caller last saw) turns any person's
 * change since into a RolloutConflictError naming the last person who changed it and what they did;
 * without it the command applies to the current state, which the core validates. Commands the engine
 * refused since (recorded: their key and event) are no change: when they are all there is, the command
 * applies to the current state. With `expectedStatus` too, the reconciler's and hooks' bookkeeping
 * since is no conflict either while the rollout's status is still the one the caller saw. A refused
 * command is recorded and returned with `ok: false`.
 */
export async function runCommand(
  deps: RunnerDeps,
  id: string,
  input: CommandInput,
  opts: { expectedVersion?: number; expectedStatus?: string } = {},
): Promise<CommandOutcome> {
  // A reconciler that writes its bookkeeping every few seconds can land between this command's read and
  // its write more than once: go through such changes a few times before calling it a conflict.
  let expected = opts.expectedVersion;
  for (let attempt = 1; ; attempt++) {
    try {
      return await runCommandAt(deps, id, input, expected);
    } catch (err) {
      if (!isRolloutConflict(err)) throw err;
      const told = await explainConflict(deps, id, err);
      const bookkeepingOnly =
        told instanceof RolloutConflictError &&
        !told.personSince &&
        (told.refusalsOnlySince ||
          (opts.expectedStatus !== undefined && told.actualState === opts.expectedStatus));
      if (!bookkeepingOnly || attempt >= BOOKKEEPING_RETRIES) throw told;
      expected = told.actualVersion;
    }
  }
}

/**
 * A store conflict on a rollout, told by its name: a bundler (the console's) can load the store's
 * module twice, and then `instanceof` fails on an error from the other copy.
 */
function isRolloutConflict(err: unknown): err is VersionConflictError {
  return (
    err instanceof Error &&
    err.name === "VersionConflictError" &&
    (err as Partial<VersionConflictError>).entity === "rollout"
  );
}

/** How many times a command goes through bookkeeping and refusals before it is a conflict. */
const BOOKKEEPING_RETRIES = 5;

async function runCommandAt(
  deps: RunnerDeps,
  id: string,
  input: CommandInput,
  expectedVersion: number | undefined,
): Promise<CommandOutcome> {
  const cmd: Command = commandSchema.parse(input);
  const cur = await getRollout(deps, id);
  const t = applyCommand(cur.state, cmd, now(deps));
  const refusal = t.ok ? null : t.refusal;
  if (t.duplicate) {
    return { ok: t.ok, replayed: true, refusal, state: cur.state, version: cur.version, events: [] };
  }
  const c = await commitTransition(
    deps,
    id,
    expectedVersion ?? cur.version,
    cmd.actor.id,
    cmd.type,
    t,
    cmd.key,
    cmd,
  );
  if (c.replayed) {
    const again = await getRollout(deps, id);
    return { ok: t.ok, replayed: true, refusal, state: again.state, version: again.version, events: [] };
  }
  return { ok: t.ok, replayed: false, refusal, state: t.state, version: c.version, events: t.events };
}

export interface ReconcileOptions {
  /** Where observations come from: a PromClient or a replay. */
  api: PromQueryApi;
  /** Only this rollout; default every active one. */
  rolloutId?: string;
  hooks?: HooksFile["hooks"];
  replication?: ReplicationSource;
  metadata?: ObserveOptions["metadata"];
  /** rate() window of the read-backs and bake series; default 5m (shorter for short bakes). */
  rateWindow?: ObserveOptions["rateWindow"];
  /** Step of the bake series in seconds; default about 240 points per window, at least 15 s. */
  bakeStepSeconds?: number;
  /** Facts options of the pre-wave gate's fresh facts (a replay's own, `replayReconcileOptions`). */
  factsOptions?: ObserveOptions["factsOptions"];
  /** Name of the single-writer lock; default `rollout-reconciler`. */
  lockName?: string;
}

export type RolloutPassOutcome =
  /** Events were committed. */
  | "advanced"
  /** State stored without a new event (e.g. a first matching read-back). */
  | "observed"
  /** Nothing to record now. */
  | "unchanged"
  /** Prometheus failed: nothing written, retried on the next pass. */
  | "observation-failed"
  /** Someone acted on the rollout meanwhile: retried on the next pass. */
  | "conflict"
  | "invalid-document";

export interface RolloutPass {
  id: string;
  outcome: RolloutPassOutcome;
  status: string;
  events: readonly RolloutEvent[];
  hooks: { instance: string; hook: string; result: HookResult | null; error?: string }[];
  queries: number;
  /** Next time a time-based gate moves by itself (Unix seconds), or null. */
  wakeAt: number | null;
  error?: string;
  warnings: string[];
}

export interface ReconcileSummary {
  /** False when another reconciler holds the lock: this pass did nothing. */
  acquired: boolean;
  at: number;
  rollouts: RolloutPass[];
}

async function fireHooks(
  deps: RunnerDeps,
  id: string,
  start: StoredRollout,
  opts: ReconcileOptions,
  pass: RolloutPass,
): Promise<RolloutState> {
  let state = start.state;
  let version = start.version;
  const wanted = nextActions(state, now(deps)).hooks;
  for (const h of wanted) {
    const actor = { id: `hook:${h.hook}`, kind: "hook" as const };
    const base = `${id}:${h.wave}:${h.instance}`;
    const startCmd = {
      type: "hook-started" as const,
      key: `hook-started:${base}`,
      actor,
      instance: h.instance,
    };
    const started = applyCommand(state, startCmd, now(deps));
    if (!started.ok || started.duplicate) continue;
    // The key goes to the store too: a second writer with the same step would get the stored
    // outcome (replayed) instead of running the hook again.
    const c = await commitTransition(
      deps,
      id,
      version,
      actor.id,
      "hook-started",
      started,
      startCmd.key,
      startCmd,
    );
    if (c.replayed) continue;
    version = c.version;
    state = started.state;
    pass.events = [...pass.events, ...started.events];
    const configured = opts.hooks?.[h.hook];
    let result: HookResult | null = null;
    let output: string;
    let ok = false;
    let exitCode: number | null = null;
    if (!configured) {
      output = `no hook named ${h.hook} is configured on this reconciler (--hooks)`;
    } else {
      const step = state.plan.steps.find((x) => x.instance === h.instance);
      result = await runHook(configured, {
        rolloutId: id,
        instance: h.instance,
        step: `wave-${h.wave}/${h.instance}/apply`,
        change: state.plan.change,
        details: step ?? null,
      });
      ok = result.ok;
      exitCode = result.code;
      output = `${result.error ? `${result.error}\n` : ""}${result.output}${result.truncated ? "\n(output truncated to its last 64 KiB)" : ""}`;
    }
    pass.hooks.push({ instance: h.instance, hook: h.hook, result, ...(configured ? {} : { error: output }) });
    const doneCmd = {
      type: "hook-result" as const,
      key: `hook-result:${base}`,
      actor,
      instance: h.instance,
      ok,
      exitCode,
      output,
    };
    const done = applyCommand(state, doneCmd, now(deps));
    if (done.duplicate) continue;
    version = (await commitTransition(deps, id, version, actor.id, "hook-result", done, doneCmd.key, doneCmd))
      .version;
    state = done.state;
    pass.events = [...pass.events, ...done.events];
  }
  return state;
}

/** Read-backs and health of every rollout of a pass, fetched once for all (requests constant in fleet size). */
interface Shared {
  readBacks: Map<string, ReadBack>;
  health: Map<string, Health>;
  queries: number;
  warnings: string[];
}

async function reconcileOne(
  deps: RunnerDeps,
  cur: StoredRollout,
  t0: number,
  shared: Shared | Error,
  active: ActiveRollout[],
  opts: ReconcileOptions,
): Promise<RolloutPass> {
  const id = cur.state.id;
  const pass: RolloutPass = {
    id,
    outcome: "unchanged",
    status: cur.state.status,
    events: [],
    hooks: [],
    queries: 0,
    wakeAt: null,
    warnings: [],
  };
  try {
    const needs = nextActions(cur.state, t0).observations;
    const needsData = needs.readBacks.length + needs.health.length + needs.bakes.length > 0;
    let observations: ObservationsInput;
    try {
      if (shared instanceof Error) {
        if (needsData) throw shared;
        observations = { health: [], readBacks: [], bakes: [], activeRollouts: null };
      } else {
        const bakes = await fetchBakes(opts.api, needs.bakes, {
          window: opts.rateWindow ?? DEFAULT_WINDOW,
          ...(opts.bakeStepSeconds ? { stepSeconds: opts.bakeStepSeconds } : {}),
        });
        pass.queries = bakes.queries;
        pass.warnings = bakes.warnings;
        observations = {
          health: needs.health.flatMap((i) => shared.health.get(i) ?? []),
          readBacks: needs.readBacks.flatMap((i) => shared.readBacks.get(i) ?? []),
          bakes: bakes.series,
          activeRollouts: needs.activeRollouts ? active.filter((a) => a.rolloutId !== id) : null,
        };
      }
    } catch (e) {
      pass.outcome = "observation-failed";
      pass.error = `observations not fetched, nothing recorded, retried on the next pass: ${(e as Error).message}`;
      pass.wakeAt = nextActions(cur.state, t0).wakeAt;
      deps.log?.(`rollout ${id}: ${pass.error}`);
      return pass;
    }
    const t = reconcile(cur.state, observations as Parameters<typeof reconcile>[1], t0);
    // Some progress has no event (a first matching read-back counts towards verifyConsecutive):
    // it is stored too, or the next pass would start over. Compared by content, keys sorted: the
    // stored document's key order (jsonb's, then the schema's) is no change, and a pass that changes
    // nothing must not commit (a new version every pass turns every person's command into a conflict).
    const changed = t.events.length > 0 || canonicalJson(t.state) !== canonicalJson(cur.state);
    let after: StoredRollout = cur;
    if (changed) {
      const c = await commitTransition(deps, id, cur.version, "reconciler", "reconcile", t);
      after = { ...cur, state: t.state, version: c.version };
      pass.events = [...t.events];
    }
    // Hooks after the gates: a wave that just started has its steps applied in the same pass.
    const last = nextActions(after.state, t0).hooks.length
      ? await fireHooks(deps, id, after, opts, pass)
      : after.state;
    pass.status = last.status;
    pass.wakeAt = nextActions(last, now(deps)).wakeAt;
    pass.outcome = pass.events.length > 0 ? "advanced" : changed ? "observed" : "unchanged";
  } catch (e) {
    if (e instanceof Error && e.name === "VersionConflictError") {
      pass.outcome = "conflict";
      pass.error = `${e.message}; retried on the next pass`;
    } else throw e;
  }
  return pass;
}

/**
 * One reconciler pass over every active rollout (or one), under the single-writer lock: fetches the
 * read-backs and fresh facts every rollout needs in one go, then per rollout its bake series,
 * advances its gates, commits its events and fires the hooks it asks for. Returns `acquired: false`
 * at once when another process is reconciling.
 */
export async function reconcileRollouts(deps: RunnerDeps, opts: ReconcileOptions): Promise<ReconcileSummary> {
  const at = now(deps);
  const r = await deps.store.tryExclusive(opts.lockName ?? "rollout-reconciler", async () => {
    const rows = opts.rolloutId
      ? [await deps.store.getRollout(opts.rolloutId)].filter((x) => x !== null)
      : await deps.store.listRollouts({ states: [...ACTIVE_STATUSES], limit: 1000 });
    if (opts.rolloutId && rows.length === 0) throw new NotFoundError("rollout", opts.rolloutId);
    const out: RolloutPass[] = [];
    const current: StoredRollout[] = [];
    for (const row of rows) {
      try {
        current.push(parseStored(row));
      } catch (e) {
        if (!(e instanceof RolloutDocumentError)) throw e;
        out.push({
          id: row.id,
          outcome: "invalid-document",
          status: row.state,
          events: [],
          hooks: [],
          queries: 0,
          wakeAt: null,
          error: e.message,
          warnings: [],
        });
      }
    }
    const all = opts.rolloutId
      ? (await deps.store.listRollouts({ states: [...ACTIVE_STATUSES], limit: 1000 })).flatMap((x) => {
          try {
            return [parseStored(x)];
          } catch {
            return [];
          }
        })
      : current;
    const active: ActiveRollout[] = all.map((x) => ({
      rolloutId: x.state.id,
      instances: touchedInstances(x.state),
    }));
    const needs = current.map((c) => nextActions(c.state, at).observations);
    let shared: Shared | Error;
    try {
      shared = await fetchShared(opts.api, {
        now: at,
        readBacks: [...new Set(needs.flatMap((n) => n.readBacks))],
        health: [...new Set(needs.flatMap((n) => n.health))],
        ...(opts.metadata ? { metadata: opts.metadata } : {}),
        ...(opts.replication ? { replication: opts.replication } : {}),
        ...(opts.factsOptions ? { factsOptions: opts.factsOptions } : {}),
        rateWindow: opts.rateWindow ?? DEFAULT_WINDOW,
      });
    } catch (e) {
      shared = e as Error;
    }
    for (const c of current) out.push(await reconcileOne(deps, c, at, shared, active, opts));
    if (!(shared instanceof Error) && out[0]) {
      out[0].queries += shared.queries;
      out[0].warnings = [...new Set([...out[0].warnings, ...shared.warnings])];
    }
    return out;
  });
  return r.acquired ? { acquired: true, at, rollouts: r.value } : { acquired: false, at, rollouts: [] };
}

export { createAnnotator };
