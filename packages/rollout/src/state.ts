/**
 * The rollout state machine. Every transition is a pure function of (state, command | observations,
 * now) returning the new state and the events it appended, or a typed refusal. All state lives in the
 * (JSON) state object, so a restarted reconciler resumes where it stood (as Argo Rollouts keeps it in
 * the object's status).
 */
import { z } from "zod";
import { CATCH_UP_SIGNALS } from "./catch-up.js";
import { describeChange } from "./change.js";
import {
  type Command,
  type CreateCommand,
  commandSchema,
  createCommandSchema,
  type Refusal,
  type RefusalCode,
} from "./commands.js";
import {
  type Actor,
  eventSchema,
  type GateResult,
  gateResultSchema,
  type RolloutEvent,
  SYSTEM,
} from "./events.js";
import { defaultMetrics, judgeBake, preWaveGate, readBackChecks } from "./gates.js";
import type { Observations, ReadBack } from "./observations.js";
import { type Plan, planRollout, planSchema } from "./plan.js";
import { judgedMetricSchema, policySchema } from "./policy.js";

export const ROLLOUT_STATUSES = [
  "active",
  "paused",
  "halted",
  "completed",
  "aborted",
  "reverting",
  "reverted",
] as const;
export type RolloutStatus = (typeof ROLLOUT_STATUSES)[number];
/** No command but `revert` (completed, aborted) moves a final rollout. */
export const FINAL_STATUSES: readonly RolloutStatus[] = ["completed", "aborted", "reverted"];

export const WAVE_PHASES = ["pending", "applying", "baking", "passed", "failed", "inconclusive"] as const;
export type WavePhase = (typeof WAVE_PHASES)[number];

export const INSTANCE_STATUSES = [
  "pending",
  "applying",
  "applied",
  "verified",
  "failed",
  "reverting",
  "revert-applied",
  "reverted",
] as const;
export type InstanceStatus = (typeof INSTANCE_STATUSES)[number];

const actorOrNull = z
  .strictObject({ id: z.string(), kind: z.enum(["operator", "hook", "system"]) })
  .nullable();

/** A safety gate's status, as a wave's start keeps it. */
const gateStatusSchema = z.enum(["verified", "unverified", "unsafe"]);

export const instanceStateSchema = z.strictObject({
  instance: z.string(),
  wave: z.number().int(),
  status: z.enum(INSTANCE_STATUSES),
  /** The safety gate when its wave's pre-wave gate passed (null: the change does not need it). */
  gateAtStart: gateStatusSchema.nullable(),
  appliedAt: z.number().nullable(),
  appliedBy: actorOrNull,
  verifiedAt: z.number().nullable(),
  matches: z.number().int().min(0),
  lastReadBackAt: z.number().nullable(),
  lastReadBack: z.record(z.string(), z.unknown()).nullable(),
  revertAppliedAt: z.number().nullable(),
  timedOut: z.boolean(),
});
export type InstanceState = z.infer<typeof instanceStateSchema>;

export const waveStateSchema = z.strictObject({
  index: z.number().int(),
  kind: z.enum(["canary", "replicas", "controls", "primaries"]),
  instances: z.array(z.string()),
  controls: z.array(z.string()),
  phase: z.enum(WAVE_PHASES),
  approvedAt: z.number().nullable(),
  approvedBy: actorOrNull,
  startedAt: z.number().nullable(),
  bakeStart: z.number().nullable(),
  bakeEnd: z.number().nullable(),
  nextEvaluationAt: z.number().nullable(),
  evaluations: z.number().int().min(0),
  consecutive: z.strictObject({
    pass: z.number().int().min(0),
    fail: z.number().int().min(0),
    inconclusive: z.number().int().min(0),
  }),
  /** Outcome + summary of the last pre-wave gate, so repeated identical results are not re-logged. */
  lastPreWave: z.string().nullable(),
  decidedAt: z.number().nullable(),
});
export type WaveState = z.infer<typeof waveStateSchema>;

export const rolloutStateSchema = z
  .strictObject({
    schemaVersion: z.literal(1),
    id: z.string(),
    title: z.string(),
    createdAt: z.number(),
    createdBy: z.strictObject({ id: z.string(), kind: z.enum(["operator", "hook", "system"]) }),
    /** Increases with every transition that changes the state: the store's optimistic-concurrency version. */
    revision: z.number().int().min(0),
    // A rollout stored before the sequential judgement existed keeps the fixed bake it was created
    // with; a new one has the field (policySchema's default is sequential).
    policy: z.preprocess(
      (p) => (p !== null && typeof p === "object" && !("judgement" in p) ? { ...p, judgement: "fixed" } : p),
      policySchema,
    ),
    metrics: z.array(judgedMetricSchema),
    plan: planSchema,
    status: z.enum(ROLLOUT_STATUSES),
    pause: z
      .strictObject({
        reason: z.enum(["operator", "inconclusive", "hook-failed"]),
        at: z.number(),
        message: z.string(),
      })
      .nullable(),
    currentWave: z.number().int().nullable(),
    waves: z.array(waveStateSchema),
    instances: z.array(instanceStateSchema),
    backup: z
      .strictObject({
        takenAt: z.number(),
        attestedAt: z.number(),
        by: z.strictObject({ id: z.string(), kind: z.enum(["operator", "hook", "system"]) }),
        note: z.string().nullable(),
      })
      .nullable(),
    /** Idempotency keys seen: a fingerprint of the command and its outcome. */
    keys: z.record(
      z.string(),
      z.strictObject({
        fingerprint: z.string(),
        outcome: z.enum(["applied", "refused"]),
        code: z.string().nullable(),
        message: z.string().nullable(),
      }),
    ),
    events: z.array(eventSchema),
  })
  .meta({ id: "RolloutState", description: "The whole state of one rollout, plan and audit included." });
export type RolloutState = z.infer<typeof rolloutStateSchema>;

export type Transition =
  | {
      readonly ok: true;
      readonly state: RolloutState;
      readonly events: readonly RolloutEvent[];
      readonly duplicate: boolean;
    }
  | {
      readonly ok: false;
      readonly state: RolloutState;
      readonly events: readonly RolloutEvent[];
      readonly refusal: Refusal;
      readonly duplicate: boolean;
    };

/** JSON with sorted keys: equal commands give equal fingerprints whatever their key order. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== "object") return JSON.stringify(value) ?? "null";
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  const entries = Object.entries(value as Record<string, unknown>)
    .filter(([, v]) => v !== undefined)
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
}

/** 32-bit FNV-1a: a stable seed for the bootstrap from the rollout id, wave and evaluation. */
function fnv1a(s: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < s.length; i++) {
    h ^= s.charCodeAt(i);
    h = Math.imul(h, 0x01000193) >>> 0;
  }
  return h >>> 0;
}

/** Mutable draft of a transition: copies the state once, appends events. */
class Draft {
  readonly s: RolloutState;
  readonly events: RolloutEvent[] = [];
  constructor(
    state: RolloutState,
    readonly now: number,
  ) {
    // The plan and appended events are never mutated: share them, copy the rest. Spreading `state`
    // first keeps its key order, so a transition that changes nothing serializes as its input did.
    const { events, plan, ...rest } = state;
    this.s = { ...state, ...structuredClone(rest), plan, events: [...events] };
  }
  emit(e: Omit<RolloutEvent, "seq" | "at"> & { at?: number }): void {
    const event = { ...e, at: e.at ?? this.now, seq: this.s.events.length + 1 } as RolloutEvent;
    this.s.events.push(event);
    this.events.push(event);
  }
  inst(id: string): InstanceState | undefined {
    return this.s.instances.find((i) => i.instance === id);
  }
  wave(i: number | null): WaveState | undefined {
    return i === null ? undefined : this.s.waves[i];
  }
  done(): RolloutState {
    if (this.events.length > 0) this.s.revision += 1;
    return this.s;
  }
}

/**
 * Creates a rollout: plans it and returns the initial state with its `created` event. The command
 * must be validated (createCommandSchema.parse). The first wave waits for a backup attestation and,
 * by default, an approve.
 */
export function createRollout(command: CreateCommand, now: number): RolloutState {
  const plan: Plan = planRollout(command.input);
  const policy = command.input.policy;
  const metrics = policy.metrics ?? defaultMetrics(command.input.change);
  const waveOf = new Map<string, number>();
  for (const w of plan.waves) for (const i of w.instances) waveOf.set(i, w.index);
  const state: RolloutState = {
    schemaVersion: 1,
    id: command.id,
    title: command.title,
    createdAt: now,
    createdBy: command.actor,
    revision: 0,
    policy,
    metrics,
    plan,
    status: plan.waves.length === 0 ? "completed" : "active",
    pause: null,
    currentWave: plan.waves.length === 0 ? null : 0,
    waves: plan.waves.map((w) => ({
      index: w.index,
      kind: w.kind,
      instances: [...w.instances],
      controls: [...w.controls],
      phase: "pending",
      approvedAt: null,
      approvedBy: null,
      startedAt: null,
      bakeStart: null,
      bakeEnd: null,
      nextEvaluationAt: null,
      evaluations: 0,
      consecutive: { pass: 0, fail: 0, inconclusive: 0 },
      lastPreWave: null,
      decidedAt: null,
    })),
    instances: plan.steps.map((s) => ({
      instance: s.instance,
      wave: waveOf.get(s.instance)!,
      status: "pending",
      gateAtStart: null,
      appliedAt: null,
      appliedBy: null,
      verifiedAt: null,
      matches: 0,
      lastReadBackAt: null,
      lastReadBack: null,
      revertAppliedAt: null,
      timedOut: false,
    })),
    backup: null,
    keys: {
      [command.key]: { fingerprint: canonicalJson(command), outcome: "applied", code: null, message: null },
    },
    events: [],
  };
  const d = new Draft(state, now);
  d.emit({
    actor: command.actor,
    type: "created",
    key: command.key,
    message: `Rollout of ${describeChange(plan.change)}: ${plan.waves.length} wave(s), ${plan.steps.length} instance(s), ${plan.exclusions.length} excluded.`,
  });
  if (plan.waves.length === 0)
    d.emit({
      actor: SYSTEM,
      type: "completed",
      message: "Nothing to do: every instance is excluded (see the plan).",
    });
  const out = d.done();
  out.revision = 1;
  return out;
}

export { commandSchema, createCommandSchema };

const stepIndex = new WeakMap<
  RolloutState["plan"]["steps"],
  Map<string, RolloutState["plan"]["steps"][number]>
>();
/** The planned step of an instance (indexed once per plan: reconcile runs over thousands of instances). */
const step = (s: RolloutState, instance: string) => {
  let index = stepIndex.get(s.plan.steps);
  if (!index) {
    index = new Map(s.plan.steps.map((x) => [x.instance, x]));
    stepIndex.set(s.plan.steps, index);
  }
  return index.get(instance);
};

/**
 * Refused commands' keys kept in the document, newest: without a bound, refused commands (each with
 * its note in the fingerprint) grow a rollout without limit. An older refused key sent again is judged
 * afresh; the store's command table (rollout_commands) and the audit log keep every one.
 */
export const MAX_REFUSED_KEYS = 20;

function refuse(d: Draft, c: Command, code: RefusalCode, message: string): Refusal {
  d.s.keys[c.key] = { fingerprint: canonicalJson(c), outcome: "refused", code, message };
  const refused = Object.keys(d.s.keys).filter((k) => d.s.keys[k]?.outcome === "refused");
  for (const k of refused.slice(0, Math.max(0, refused.length - MAX_REFUSED_KEYS))) delete d.s.keys[k];
  d.emit({ actor: c.actor, type: "command-refused", key: c.key, message: `${c.type}: ${message}` });
  return { code, message };
}

/**
 * Applies one command (validated with commandSchema) at `now`. Same key and same command → the same
 * outcome again with no new effect (`duplicate: true`); same key, different command → refused.
 */
export function applyCommand(state: RolloutState, command: Command, now: number): Transition {
  const seen = state.keys[command.key];
  if (seen) {
    if (seen.fingerprint === canonicalJson(command)) {
      return seen.outcome === "applied"
        ? { ok: true, state, events: [], duplicate: true }
        : {
            ok: false,
            state,
            events: [],
            duplicate: true,
            refusal: { code: seen.code as RefusalCode, message: seen.message ?? "" },
          };
    }
    return {
      ok: false,
      state,
      events: [],
      duplicate: false,
      refusal: {
        code: "key-reused",
        message: `Idempotency key ${command.key} was already used for another command.`,
      },
    };
  }
  const d = new Draft(state, now);
  const refusal = apply(d, command);
  if (refusal) return { ok: false, state: d.done(), events: d.events, refusal, duplicate: false };
  d.s.keys[command.key] = {
    fingerprint: canonicalJson(command),
    outcome: "applied",
    code: null,
    message: null,
  };
  return { ok: true, state: d.done(), events: d.events, duplicate: false };
}

type CommandOf<T extends Command["type"]> = Extract<Command, { type: T }>;

function onAttestBackup(d: Draft, c: CommandOf<"attest-backup">): Refusal | null {
  const s = d.s;
  const final = FINAL_STATUSES.includes(s.status);
  const base = { actor: c.actor, key: c.key };
  if (final) return refuse(d, c, "final", `The rollout is ${s.status}.`);
  if (c.takenAt > d.now) return refuse(d, c, "backup-in-future", "The backup's time is in the future.");
  s.backup = { takenAt: c.takenAt, attestedAt: d.now, by: c.actor, note: c.note ?? null };
  d.emit({
    ...base,
    type: "backup-attested",
    message: `Backup taken at ${iso(c.takenAt)} attested.${c.note ? ` ${c.note}` : ""}`,
  });
  return null;
}

function onApprove(d: Draft, c: CommandOf<"approve">): Refusal | null {
  const s = d.s;
  const base = { actor: c.actor, key: c.key };
  const w = s.waves[c.wave];
  if (!w) return refuse(d, c, "unknown-wave", `There is no wave ${c.wave}.`);
  if (s.currentWave !== c.wave)
    return refuse(
      d,
      c,
      "not-current-wave",
      `Wave ${c.wave} is not the current wave (${s.currentWave ?? "none"}).`,
    );
  if (s.status === "paused" && s.pause?.reason === "inconclusive" && w.phase === "inconclusive") {
    w.phase = "passed";
    w.decidedAt = d.now;
    s.status = "active";
    s.pause = null;
    d.emit({
      ...base,
      type: "wave-passed",
      wave: w.index,
      message: `Inconclusive result accepted by ${c.actor.id}.${c.note ? ` ${c.note}` : ""}`,
    });
    advance(d);
    return null;
  }
  if (s.status !== "active" && s.status !== "paused")
    return refuse(d, c, "not-active", `The rollout is ${s.status}.`);
  if (w.phase !== "pending") return refuse(d, c, "wave-not-pending", `Wave ${c.wave} is ${w.phase}.`);
  if (w.approvedAt !== null) return refuse(d, c, "already-approved", `Wave ${c.wave} is already approved.`);
  w.approvedAt = d.now;
  w.approvedBy = c.actor;
  d.emit({
    ...base,
    type: "wave-approved",
    wave: w.index,
    message: `Wave ${w.index} approved.${c.note ? ` ${c.note}` : ""}`,
  });
  return null;
}

function onStepCommand(d: Draft, c: CommandOf<"step-done" | "hook-started" | "hook-result">): Refusal | null {
  const s = d.s;
  const base = { actor: c.actor, key: c.key };
  const i = d.inst(c.instance);
  if (!i) return refuse(d, c, "unknown-instance", `${c.instance} is not in this rollout's plan.`);
  if (s.status !== "active" && s.status !== "paused")
    return refuse(d, c, "not-active", `The rollout is ${s.status}.`);
  const w = s.waves[i.wave]!;
  if (w.phase !== "applying")
    return refuse(
      d,
      c,
      "wave-not-applying",
      `Wave ${w.index} is ${w.phase}: its pre-wave gate has not passed.`,
    );
  if (c.type === "hook-started") {
    if (s.policy.applier.kind !== "hook")
      return refuse(d, c, "not-hook-applier", "This rollout's steps are applied by the operator.");
    if (i.status !== "pending") return refuse(d, c, "step-already-done", `${c.instance} is ${i.status}.`);
    i.status = "applying";
    d.emit({
      ...base,
      type: "hook-started",
      wave: w.index,
      instance: i.instance,
      message: `Hook ${s.policy.applier.hook} started on ${i.instance}.`,
    });
    return null;
  }
  if (c.type === "hook-result") {
    if (s.policy.applier.kind !== "hook")
      return refuse(d, c, "not-hook-applier", "This rollout's steps are applied by the operator.");
    if (i.status !== "applying")
      return refuse(d, c, "hook-not-started", `${c.instance} is ${i.status}, not applying.`);
    const output = c.output.length > 65_536 ? `${c.output.slice(0, 65_536)}\n[truncated]` : c.output;
    d.emit({
      ...base,
      type: "hook-result",
      wave: w.index,
      instance: i.instance,
      message: `Hook ${c.ok ? "succeeded" : "failed"} on ${i.instance}${c.exitCode != null ? ` (exit ${c.exitCode})` : ""}.`,
      output,
    });
    if (c.ok) markApplied(d, i, c.actor, c.key);
    else {
      i.status = "pending";
      if (s.status === "active") {
        s.status = "paused";
        s.pause = { reason: "hook-failed", at: d.now, message: `The hook failed on ${i.instance}.` };
        d.emit({
          actor: SYSTEM,
          type: "paused",
          wave: w.index,
          instance: i.instance,
          message: `Paused: the hook failed on ${i.instance}; resume to run it again.`,
        });
      }
    }
    return null;
  }
  if (i.status !== "pending" && i.status !== "applying")
    return refuse(d, c, "step-already-done", `${c.instance} is ${i.status}.`);
  markApplied(d, i, c.actor, c.key, c.note);
  return null;
}

function onPause(d: Draft, c: CommandOf<"pause">): Refusal | null {
  const s = d.s;
  const base = { actor: c.actor, key: c.key };
  if (s.status === "paused") return refuse(d, c, "already-paused", "The rollout is already paused.");
  if (s.status !== "active") return refuse(d, c, "not-active", `The rollout is ${s.status}.`);
  s.status = "paused";
  s.pause = { reason: "operator", at: d.now, message: c.reason };
  d.emit({ ...base, type: "paused", message: `Paused: ${c.reason}` });
  return null;
}

function onResume(d: Draft, c: CommandOf<"resume">): Refusal | null {
  const s = d.s;
  const base = { actor: c.actor, key: c.key };
  if (s.status !== "paused") return refuse(d, c, "not-paused", `The rollout is ${s.status}, not paused.`);
  const w = d.wave(s.currentWave);
  if (s.pause?.reason === "inconclusive" && w && w.phase === "inconclusive") {
    // Judge again from scratch: the anti-flap counters restart, the after window keeps growing.
    w.phase = "baking";
    w.evaluations = 0;
    w.consecutive = { pass: 0, fail: 0, inconclusive: 0 };
    w.nextEvaluationAt = d.now;
    w.decidedAt = null;
    // Sequential: a further maximum bake from now, judged as a second test at the same level.
    if (s.policy.judgement === "sequential" && w.bakeEnd !== null && w.bakeEnd <= d.now)
      w.bakeEnd = d.now + s.policy.bakeSeconds;
  }
  s.status = "active";
  s.pause = null;
  d.emit({ ...base, type: "resumed", message: `Resumed.${c.note ? ` ${c.note}` : ""}` });
  return null;
}

function onAbort(d: Draft, c: CommandOf<"abort">): Refusal | null {
  const s = d.s;
  const final = FINAL_STATUSES.includes(s.status);
  const base = { actor: c.actor, key: c.key };
  if (final) return refuse(d, c, "final", `The rollout is ${s.status}.`);
  if (s.status === "reverting")
    return refuse(d, c, "not-active", "The rollout is reverting: finish the revert.");
  s.status = "aborted";
  s.pause = null;
  d.emit({ ...base, type: "aborted", message: `Aborted: ${c.reason}` });
  return null;
}

function onRevert(d: Draft, c: CommandOf<"revert">): Refusal | null {
  const s = d.s;
  const base = { actor: c.actor, key: c.key };
  if (s.status === "reverting" || s.status === "reverted")
    return refuse(d, c, "not-active", `The rollout is already ${s.status}.`);
  const changed = s.instances.filter(
    (i) => i.status === "applied" || i.status === "verified" || i.status === "failed",
  );
  if (changed.length === 0) return refuse(d, c, "nothing-to-revert", "No instance was changed.");
  for (const i of changed) {
    i.status = "reverting";
    i.matches = 0;
    i.timedOut = false;
  }
  s.status = "reverting";
  s.pause = null;
  d.emit({
    ...base,
    type: "revert-started",
    message: `Revert of ${changed.map((i) => i.instance).join(", ")}: ${c.reason}`,
  });
  return null;
}

function onRevertDone(d: Draft, c: CommandOf<"revert-done">): Refusal | null {
  const s = d.s;
  const base = { actor: c.actor, key: c.key };
  const i = d.inst(c.instance);
  if (!i) return refuse(d, c, "unknown-instance", `${c.instance} is not in this rollout's plan.`);
  if (s.status !== "reverting")
    return refuse(d, c, "not-reverting", `The rollout is ${s.status}, not reverting.`);
  if (i.status !== "reverting") return refuse(d, c, "step-already-done", `${c.instance} is ${i.status}.`);
  i.status = "revert-applied";
  i.revertAppliedAt = d.now;
  i.matches = 0;
  d.emit({
    ...base,
    type: "revert-applied",
    wave: i.wave,
    instance: i.instance,
    message: `Revert step done on ${i.instance}.${c.note ? ` ${c.note}` : ""}`,
  });
  return null;
}

/** Each command's handler: it changes the draft and emits events, or refuses (and changes nothing else). */
function apply(d: Draft, c: Command): Refusal | null {
  switch (c.type) {
    case "attest-backup":
      return onAttestBackup(d, c);
    case "approve":
      return onApprove(d, c);
    case "step-done":
    case "hook-started":
    case "hook-result":
      return onStepCommand(d, c);
    case "pause":
      return onPause(d, c);
    case "resume":
      return onResume(d, c);
    case "abort":
      return onAbort(d, c);
    case "revert":
      return onRevert(d, c);
    case "revert-done":
      return onRevertDone(d, c);
  }
}

function markApplied(d: Draft, i: InstanceState, actor: Actor, key: string, note?: string): void {
  i.status = "applied";
  i.appliedAt = d.now;
  i.appliedBy = actor;
  i.matches = 0;
  d.emit({
    actor,
    key,
    type: "step-applied",
    wave: i.wave,
    instance: i.instance,
    message: `Step done on ${i.instance} by ${actor.id}: ${step(d.s, i.instance)?.title ?? ""}.${note ? ` ${note}` : ""}`,
  });
}

function iso(t: number): string {
  return new Date(t * 1000).toISOString();
}

/** Moves to the next wave after a pass, or completes. */
function advance(d: Draft): void {
  const s = d.s;
  const next = (s.currentWave ?? -1) + 1;
  if (next >= s.waves.length) {
    s.currentWave = null;
    s.status = "completed";
    d.emit({ actor: SYSTEM, type: "completed", message: "Every wave passed." });
    return;
  }
  s.currentWave = next;
  if (s.policy.approval === "first-wave") {
    const w = s.waves[next]!;
    w.approvedAt = d.now;
    w.approvedBy = SYSTEM;
  }
}

const gateEvent = (d: Draft, g: GateResult, instance?: string) =>
  d.emit({
    actor: SYSTEM,
    type: "gate",
    wave: g.wave,
    ...(instance ? { instance } : {}),
    message: `${g.gate} gate ${g.outcome}: ${g.summary}`,
    gate: gateResultSchema.parse(g),
  });

function latestReadBacks(obs: Observations): Map<string, ReadBack[]> {
  const out = new Map<string, ReadBack[]>();
  for (const rb of [...obs.readBacks].sort((a, b) => a.at - b.at))
    out.set(rb.instance, [...(out.get(rb.instance) ?? []), rb]);
  return out;
}

/**
 * Advances time-based and observation-based gates: the pre-wave gate of an approved wave, the read-back
 * of applied steps (and reverts), the bake judgement. Deterministic in (state, observations, now);
 * calling it again with the same inputs adds nothing.
 */
export function reconcile(state: RolloutState, observations: Observations, now: number): Transition {
  const d = new Draft(state, now);
  const s = d.s;
  const rbs = latestReadBacks(observations);
  if (s.status === "reverting") {
    reconcileRevert(d, rbs);
    return { ok: true, state: d.done(), events: d.events, duplicate: false };
  }
  // Read-backs of applied steps count even while paused: they record what happened.
  if (s.status === "active" || s.status === "paused") verifySteps(d, rbs);
  for (let guard = 0; guard <= s.waves.length && s.status === "active"; guard++) {
    const w = d.wave(s.currentWave);
    if (!w) break;
    const before = `${w.index}:${w.phase}`;
    if (w.phase === "pending") startWave(d, w, observations);
    if (w.phase === "applying") finishApplying(d, w);
    if (w.phase === "baking") judgeWave(d, w, observations);
    if (w.phase === "passed") advance(d);
    const after = `${d.s.currentWave}:${d.wave(d.s.currentWave)?.phase}`;
    if (before === after) break;
  }
  return { ok: true, state: d.done(), events: d.events, duplicate: false };
}

/**
 * Replicas whose replication the pre-wave gate checks: the wave's own and its controls; for a wave of
 * primaries, every replica of their clusters (the switchover targets, as RDS Blue/Green's guardrails).
 */
export function gateReplicas(s: RolloutState, w: WaveState): string[] {
  const topo = new Map(s.plan.topology.map((t) => [t.instance, t]));
  const ids = new Set([...w.instances, ...w.controls]);
  if (w.kind === "primaries" || w.instances.some((i) => topo.get(i)?.role === "primary")) {
    const clusters = new Set(w.instances.map((i) => topo.get(i)?.cluster).filter((c) => c != null));
    for (const t of s.plan.topology)
      if (t.role === "replica" && t.cluster !== null && clusters.has(t.cluster)) ids.add(t.instance);
  }
  return [...ids].filter((id) => topo.get(id)?.role === "replica").sort();
}

function startWave(d: Draft, w: WaveState, obs: Observations): void {
  const s = d.s;
  if (w.approvedAt === null) return;
  const replicas = gateReplicas(s, w);
  const g = preWaveGate({
    rolloutId: s.id,
    wave: w.index,
    change: s.plan.change,
    needsGate:
      s.plan.removesTornPageProtection || w.instances.some((i) => step(s, i)?.removesTornPageProtection),
    targets: w.instances,
    controls: w.controls,
    replicas,
    backup: s.backup,
    health: obs.health,
    activeRollouts: obs.activeRollouts,
    policy: s.policy,
    now: d.now,
  });
  const signature = `${g.outcome}|${g.summary}`;
  if (signature !== w.lastPreWave) {
    w.lastPreWave = signature;
    gateEvent(d, g);
  }
  if (g.outcome !== "pass") return;
  w.phase = "applying";
  w.startedAt = d.now;
  for (const id of w.instances) {
    const i = d.inst(id)!;
    const c = g.checks.find((x) => x.id === "safety-gate" && x.instance === id);
    // The check's observed value is the gate's status; anything else is kept as unknown, never stored raw.
    const status = gateStatusSchema.safeParse(c?.observed);
    i.gateAtStart = status.success ? status.data : null;
  }
  d.emit({
    actor: SYSTEM,
    type: "wave-started",
    wave: w.index,
    message: `Wave ${w.index} (${w.kind}) started: ${w.instances.join(", ")}${w.controls.length ? `; control ${w.controls.join(", ")}` : ""}.`,
  });
}

function verifySteps(d: Draft, rbs: Map<string, ReadBack[]>): void {
  const s = d.s;
  for (const i of s.instances) {
    if (i.status !== "applied" || i.appliedAt === null) continue;
    const st = step(s, i.instance)!;
    for (const rb of rbs.get(i.instance) ?? []) {
      if (rb.at <= i.appliedAt || (i.lastReadBackAt !== null && rb.at <= i.lastReadBackAt)) continue;
      i.lastReadBackAt = rb.at;
      i.lastReadBack = { ...rb };
      const checks = readBackChecks(i.instance, st.expect, rb);
      const outcome = checks.every((c) => c.outcome === "pass") ? "pass" : "mismatch";
      i.matches = outcome === "pass" ? i.matches + 1 : 0;
      if (i.matches >= s.policy.verifyConsecutive) {
        i.status = "verified";
        i.verifiedAt = rb.at;
        const g: GateResult = {
          gate: "step",
          wave: i.wave,
          instance: i.instance,
          outcome: "pass",
          at: d.now,
          summary: `Read-back matches ${st.target} in ${i.matches} reading(s) in a row.`,
          checks,
        };
        gateEvent(d, g, i.instance);
        d.emit({
          actor: SYSTEM,
          type: "step-verified",
          wave: i.wave,
          instance: i.instance,
          message: `${i.instance} verified: ${st.variable} = ${st.target}.`,
        });
        break;
      }
    }
    if (i.status === "applied" && d.now - i.appliedAt > s.policy.verifyTimeoutSeconds) {
      const last = (i.lastReadBack as ReadBack | null) ?? null;
      const checks = readBackChecks(i.instance, st.expect, last);
      const g: GateResult = {
        gate: "step",
        wave: i.wave,
        instance: i.instance,
        outcome: last === null ? "no-data" : "fail",
        at: d.now,
        summary: `No matching read-back within ${s.policy.verifyTimeoutSeconds} s: ${
          checks
            .filter((c) => c.outcome !== "pass")
            .map((c) => c.message)
            .join(" ") || "no read-back"
        }`,
        checks,
      };
      i.status = "failed";
      i.timedOut = true;
      gateEvent(d, g, i.instance);
      d.emit({
        actor: SYSTEM,
        type: "step-failed",
        wave: i.wave,
        instance: i.instance,
        message: `${i.instance}: the change was not verified.`,
      });
      halt(d, i.wave, `the step on ${i.instance} was not verified from metrics`);
    }
  }
}

function halt(d: Draft, wave: number, why: string): void {
  const s = d.s;
  if (s.status === "halted") return;
  s.status = "halted";
  s.pause = null;
  const changed = s.instances.filter(
    (i) => i.status === "applied" || i.status === "verified" || i.status === "failed",
  );
  d.emit({
    actor: SYSTEM,
    type: "revert-proposed",
    wave,
    message: `Halted: ${why}. Proposed: revert ${changed.map((i) => `${i.instance} to ${step(s, i.instance)?.revert.previousValue ?? "its previous value"}`).join(", ") || "nothing (no instance changed)"}.`,
  });
}

function finishApplying(d: Draft, w: WaveState): void {
  const s = d.s;
  const mine = s.instances.filter((i) => i.wave === w.index);
  if (!mine.every((i) => i.status === "verified")) return;
  const lastApplied = Math.max(...mine.map((i) => i.appliedAt ?? 0));
  const restart = mine.some((i) => step(s, i.instance)?.restart);
  w.phase = "baking";
  w.bakeStart = lastApplied + (restart ? s.policy.warmupSeconds : 0);
  w.bakeEnd = w.bakeStart + s.policy.bakeSeconds;
  const sequential = s.policy.judgement === "sequential";
  w.nextEvaluationAt = sequential ? Math.min(w.bakeStart + s.policy.lookEverySeconds, w.bakeEnd) : w.bakeEnd;
  d.emit({
    actor: SYSTEM,
    type: "bake-started",
    wave: w.index,
    message: sequential
      ? `Every step of wave ${w.index} verified; bake from ${iso(w.bakeStart)}${restart ? ` (after ${s.policy.warmupSeconds} s of warm-up)` : ""}, judged every ${s.policy.lookEverySeconds} s against ${Math.round(s.policy.baselineSeconds / 60)} min of baseline from history and ended as soon as decided; at most until ${iso(w.bakeEnd)}.`
      : `Every step of wave ${w.index} verified; bake from ${iso(w.bakeStart)}${restart ? ` (after ${s.policy.warmupSeconds} s of warm-up)` : ""} to ${iso(w.bakeEnd)}.`,
  });
}

/** The windows the bake judgement of a wave uses at `now`: before the first change point, then the bake. */
export function bakeWindows(state: RolloutState, wave: number, now: number) {
  const w = state.waves[wave];
  if (!w || w.bakeStart === null || w.bakeEnd === null) return null;
  const mine = state.instances.filter((i) => i.wave === wave);
  const firstApplied = Math.min(...mine.map((i) => i.appliedAt ?? Number.POSITIVE_INFINITY));
  if (state.policy.judgement === "sequential") {
    // The bake so far (at most the maximum bake) against the baseline from history before the change.
    const end = Math.min(w.bakeEnd, Math.max(now, w.bakeStart + 1));
    return {
      before: { start: firstApplied - state.policy.baselineSeconds, end: firstApplied },
      after: { start: w.bakeStart, end },
    };
  }
  const afterEnd = Math.max(w.bakeEnd, Math.min(now, w.nextEvaluationAt ?? now));
  const length = afterEnd - w.bakeStart;
  return {
    before: { start: firstApplied - length, end: firstApplied },
    after: { start: w.bakeStart, end: afterEnd },
  };
}

/** Whether every changed instance of the wave is a replica (by the plan's roles): catch-up applies. */
function waveOfReplicas(s: RolloutState, wave: number): boolean {
  const ids = s.plan.waves[wave]?.instances ?? [];
  return (
    ids.length > 0 && ids.every((id) => s.plan.dryRun.find((r) => r.instance === id)?.role === "replica")
  );
}

function judgeWave(d: Draft, w: WaveState, obs: Observations): void {
  const s = d.s;
  if (w.nextEvaluationAt === null || d.now < w.nextEvaluationAt) return;
  const want = bakeWindows(s, w.index, d.now)!;
  const sequential = s.policy.judgement === "sequential";
  // Sequential: any series reaching this look will do (it was fetched at or after the look's time).
  const needEnd = sequential ? Math.min(w.nextEvaluationAt, w.bakeEnd ?? w.nextEvaluationAt) : want.after.end;
  const series = obs.bakes.find(
    (b) =>
      b.wave === w.index &&
      b.windows.after.start >= want.after.start &&
      b.windows.after.end >= needEnd &&
      b.windows.after.end <= d.now,
  );
  if (!series) return;
  const g = judgeBake({
    wave: w.index,
    seed: fnv1a(`${s.id}/${w.index}/${w.evaluations}`),
    treated: w.instances,
    controls: w.controls,
    metrics: s.metrics,
    policy: s.policy,
    series,
    now: d.now,
    replicas: waveOfReplicas(s, w.index),
  });
  w.evaluations += 1;
  if (sequential) {
    judgeLook(d, w, g, series.windows.after.end >= (w.bakeEnd ?? 0));
    return;
  }
  w.nextEvaluationAt = d.now + s.policy.evaluationIntervalSeconds;
  const o = g.outcome;
  w.consecutive = {
    pass: o === "pass" ? w.consecutive.pass + 1 : 0,
    fail: o === "fail" ? w.consecutive.fail + 1 : 0,
    inconclusive: o === "inconclusive" || o === "no-data" ? w.consecutive.inconclusive + 1 : 0,
  };
  gateEvent(d, g);
  if (w.consecutive.pass >= s.policy.consecutiveSuccessLimit) {
    w.phase = "passed";
    w.decidedAt = d.now;
    d.emit({
      actor: SYSTEM,
      type: "wave-passed",
      wave: w.index,
      message: `Wave ${w.index} passed ${w.consecutive.pass} judgement(s) in a row.`,
    });
  } else if (w.consecutive.fail >= s.policy.failureLimit) {
    w.phase = "failed";
    w.decidedAt = d.now;
    d.emit({
      actor: SYSTEM,
      type: "wave-failed",
      wave: w.index,
      message: `Wave ${w.index} failed ${w.consecutive.fail} judgement(s) in a row: ${g.summary}`,
    });
    halt(d, w.index, `wave ${w.index} failed its bake`);
  } else if (
    w.consecutive.inconclusive >= s.policy.inconclusiveLimit ||
    w.evaluations >= s.policy.maxEvaluations
  ) {
    w.phase = "inconclusive";
    w.decidedAt = d.now;
    s.status = "paused";
    s.pause = { reason: "inconclusive", at: d.now, message: g.summary };
    d.emit({
      actor: SYSTEM,
      type: "wave-inconclusive",
      wave: w.index,
      message: `Wave ${w.index} is inconclusive: ${g.summary}`,
    });
    d.emit({
      actor: SYSTEM,
      type: "paused",
      wave: w.index,
      message: "Paused for a human: approve to accept the result, resume to judge again, or revert.",
    });
  }
}

/**
 * One look of a sequential bake: its interval holds alpha over every look up to the maximum bake, so
 * the first decided look decides the wave (no run of passes needed). Undecided before the maximum:
 * the next look; at the maximum: inconclusive, paused for a human. No data counts towards
 * inconclusiveLimit as in a fixed bake, so a wave without series does not wait out the maximum.
 */
function judgeLook(d: Draft, w: WaveState, g: GateResult, finalLook: boolean): void {
  const s = d.s;
  const o = g.outcome;
  w.consecutive = {
    pass: o === "pass" ? w.consecutive.pass + 1 : 0,
    fail: o === "fail" ? w.consecutive.fail + 1 : 0,
    inconclusive: o === "no-data" ? w.consecutive.inconclusive + 1 : 0,
  };
  gateEvent(d, g);
  const bakeMinutes = Math.round((d.now - (w.bakeStart ?? d.now)) / 6) / 10;
  if (o === "pass") {
    w.phase = "passed";
    w.decidedAt = d.now;
    d.emit({
      actor: SYSTEM,
      type: "wave-passed",
      wave: w.index,
      message: `Wave ${w.index} passed after ${bakeMinutes} min of bake (sequential judgement, look ${w.evaluations}).`,
    });
  } else if (o === "fail") {
    w.phase = "failed";
    w.decidedAt = d.now;
    d.emit({
      actor: SYSTEM,
      type: "wave-failed",
      wave: w.index,
      message: `Wave ${w.index} failed after ${bakeMinutes} min of bake: ${g.summary}`,
    });
    halt(d, w.index, `wave ${w.index} failed its bake`);
  } else if (finalLook || w.consecutive.inconclusive >= s.policy.inconclusiveLimit) {
    w.phase = "inconclusive";
    w.decidedAt = d.now;
    s.status = "paused";
    s.pause = { reason: "inconclusive", at: d.now, message: g.summary };
    d.emit({
      actor: SYSTEM,
      type: "wave-inconclusive",
      wave: w.index,
      message: finalLook
        ? `Wave ${w.index} is inconclusive after the maximum bake of ${Math.round(s.policy.bakeSeconds / 60)} min: ${g.summary}`
        : `Wave ${w.index} is inconclusive: ${g.summary}`,
    });
    d.emit({
      actor: SYSTEM,
      type: "paused",
      wave: w.index,
      message: "Paused for a human: approve to accept the result, resume to judge again, or revert.",
    });
  } else {
    w.nextEvaluationAt = Math.min(d.now + s.policy.lookEverySeconds, w.bakeEnd ?? d.now);
  }
}

function reconcileRevert(d: Draft, rbs: Map<string, ReadBack[]>): void {
  const s = d.s;
  for (const i of s.instances) {
    if (i.status !== "revert-applied" || i.revertAppliedAt === null) continue;
    const st = step(s, i.instance)!;
    for (const rb of rbs.get(i.instance) ?? []) {
      if (rb.at <= i.revertAppliedAt || (i.lastReadBackAt !== null && rb.at <= i.lastReadBackAt)) continue;
      i.lastReadBackAt = rb.at;
      i.lastReadBack = { ...rb };
      const checks = readBackChecks(i.instance, st.revert.expect, rb);
      const hasObservable = checks.some((c) => c.id !== "read-back");
      const pass = hasObservable ? checks.every((c) => c.outcome === "pass") : rb.up === true;
      i.matches = pass ? i.matches + 1 : 0;
      if (i.matches >= s.policy.verifyConsecutive) {
        i.status = "reverted";
        gateEvent(
          d,
          {
            gate: "revert",
            wave: i.wave,
            instance: i.instance,
            outcome: "pass",
            at: d.now,
            summary: `Read-back matches the previous value ${st.revert.previousValue ?? "(unknown)"}.`,
            checks,
          },
          i.instance,
        );
        d.emit({
          actor: SYSTEM,
          type: "instance-reverted",
          wave: i.wave,
          instance: i.instance,
          message: `${i.instance} reverted.`,
        });
        break;
      }
    }
    if (
      i.status === "revert-applied" &&
      !i.timedOut &&
      d.now - i.revertAppliedAt > s.policy.verifyTimeoutSeconds
    ) {
      i.timedOut = true;
      const checks = readBackChecks(
        i.instance,
        st.revert.expect,
        (i.lastReadBack as ReadBack | null) ?? null,
      );
      gateEvent(
        d,
        {
          gate: "revert",
          wave: i.wave,
          instance: i.instance,
          outcome: "fail",
          at: d.now,
          summary: `The revert of ${i.instance} is not verified after ${s.policy.verifyTimeoutSeconds} s: check the server by hand.`,
          checks,
        },
        i.instance,
      );
    }
  }
  const reverting = s.instances.filter((i) => i.status === "reverting" || i.status === "revert-applied");
  if (reverting.length === 0) {
    s.status = "reverted";
    d.emit({
      actor: SYSTEM,
      type: "reverted",
      message: "Every changed instance is back at its previous value.",
    });
  }
}

export interface BakeRequest {
  readonly wave: number;
  readonly instances: readonly { readonly id: string; readonly role: "treated" | "control" }[];
  /** Catalog signal ids with the compare kind. */
  readonly metrics: readonly {
    readonly metric: string;
    readonly kind: "throughput" | "latency" | "efficiency";
  }[];
  readonly windows: {
    readonly before: { start: number; end: number };
    readonly after: { start: number; end: number };
  };
  /** Restart times to report (warm-up is excluded after them). */
  readonly restarts: readonly number[];
  /** The policy's block length for the comparison (ratio metrics are summed per block, as compare aligns them). */
  readonly blockSeconds: number | "auto";
  /**
   * Present for a sequential judgement: the look schedule. The series are then read at the scrape
   * step in both windows (the baseline's autocorrelation is measured at that step), ratio metrics
   * summed per sample rather than per block, and the before window is the baseline from history.
   */
  readonly sequential?: {
    readonly lookEverySeconds: number;
    readonly maxSeconds: number;
    /** Excluded after a restart found in the baseline (the policy's warm-up). */
    readonly warmupSeconds: number;
    /**
     * When the wave's steps began (its pre-wave gate passed): a restart of a changed instance since then
     * is the change's own, so the baseline ends there rather than restarting after it. Absent in a
     * request from an older core.
     */
    readonly changeStartedAt?: number | null;
  };
  /**
   * Plain catalog signals the judgement reads besides the judged metrics (the catch-up judgement's
   * replication lag and apply rate, CATCH_UP_SIGNALS), returned under their ids in each instance's
   * `series`, on the same time grid as the judged metrics. Empty for a wave of primaries.
   */
  readonly signals: readonly string[];
}

export interface HumanAction {
  readonly kind: "attest-backup" | "approve" | "apply-step" | "apply-revert" | "decide" | "resume";
  readonly wave?: number;
  readonly instance?: string;
  readonly message: string;
}

export interface NextActions {
  readonly status: RolloutStatus;
  /** What reconcile needs now. */
  readonly observations: {
    /** Fresh facts and replication state (pre-wave gate). */
    readonly health: readonly string[];
    readonly activeRollouts: boolean;
    /** Read-backs of steps and reverts awaiting verification. */
    readonly readBacks: readonly string[];
    readonly bakes: readonly BakeRequest[];
  };
  /** Hooks to fire now (send hook-started first, then hook-result). */
  readonly hooks: readonly { readonly instance: string; readonly wave: number; readonly hook: string }[];
  readonly human: readonly HumanAction[];
  /** The next time a time-based gate moves without any command (verify timeout, bake end). */
  readonly wakeAt: number | null;
}

/** What the reconciler and the people should do now. Pure. */
export function nextActions(state: RolloutState, now: number): NextActions {
  const s = state;
  const health: string[] = [];
  const readBacks: string[] = [];
  const bakes: BakeRequest[] = [];
  const hooks: { instance: string; wave: number; hook: string }[] = [];
  const human: HumanAction[] = [];
  let activeRollouts = false;
  const wakes: number[] = [];
  if (s.status === "reverting") {
    for (const i of s.instances) {
      if (i.status === "reverting")
        human.push({
          kind: "apply-revert",
          wave: i.wave,
          instance: i.instance,
          message: `Revert ${i.instance}: ${step(s, i.instance)?.revert.steps[0] ?? ""}`,
        });
      if (i.status === "revert-applied") {
        readBacks.push(i.instance);
        if (!i.timedOut) wakes.push(i.revertAppliedAt! + s.policy.verifyTimeoutSeconds + 1);
      }
    }
  }
  if (s.status === "active" || s.status === "paused") {
    for (const i of s.instances)
      if (i.status === "applied") {
        readBacks.push(i.instance);
        wakes.push(i.appliedAt! + s.policy.verifyTimeoutSeconds + 1);
      }
  }
  const w = s.currentWave === null ? undefined : s.waves[s.currentWave];
  if (s.status === "paused") {
    human.push(
      s.pause?.reason === "inconclusive"
        ? {
            kind: "decide",
            wave: w?.index,
            message: "The wave is inconclusive: approve to accept it, resume to judge again, or revert.",
          }
        : { kind: "resume", message: `Paused (${s.pause?.reason}): ${s.pause?.message ?? ""}` },
    );
  }
  if (s.status === "halted")
    human.push({ kind: "decide", wave: w?.index, message: "Halted: revert (proposed) or abort." });
  if (s.status === "active" && w) {
    if (w.phase === "pending") {
      if (s.backup === null || now - s.backup.takenAt > s.policy.backupMaxAgeSeconds)
        human.push({
          kind: "attest-backup",
          wave: w.index,
          message:
            s.backup === null
              ? "Attest a recent backup before the wave."
              : `The backup attested (taken ${iso(s.backup.takenAt)}) is older than the policy's ${Math.round(s.policy.backupMaxAgeSeconds / 3600)} h: attest a newer one before the wave.`,
        });
      if (w.approvedAt === null)
        human.push({
          kind: "approve",
          wave: w.index,
          message: `Approve wave ${w.index} (${w.kind}): ${w.instances.join(", ")}.`,
        });
      else {
        health.push(...new Set([...w.instances, ...w.controls, ...gateReplicas(s, w)]));
        activeRollouts = true;
      }
    }
    if (w.phase === "applying") {
      for (const id of w.instances) {
        const i = s.instances.find((x) => x.instance === id)!;
        if (i.status !== "pending") continue;
        if (s.policy.applier.kind === "hook")
          hooks.push({ instance: id, wave: w.index, hook: s.policy.applier.hook });
        else
          human.push({
            kind: "apply-step",
            wave: w.index,
            instance: id,
            message: `${id}: ${step(s, id)?.title ?? ""}, then mark it done.`,
          });
      }
    }
    if (w.phase === "baking" && w.nextEvaluationAt !== null) {
      if (now >= w.nextEvaluationAt) {
        const windows = bakeWindows(s, w.index, now)!;
        bakes.push({
          wave: w.index,
          instances: [
            ...w.instances.map((id) => ({ id, role: "treated" as const })),
            ...w.controls.map((id) => ({ id, role: "control" as const })),
          ],
          metrics: s.metrics.map((m) => ({
            metric: m.metric,
            kind: m.kind,
            ...(m.classes ? { classes: m.classes } : {}),
          })),
          windows,
          restarts: s.instances
            .filter((i) => i.wave === w.index && step(s, i.instance)?.restart && i.appliedAt !== null)
            .map((i) => i.appliedAt!),
          blockSeconds: s.policy.blockSeconds,
          ...(s.policy.judgement === "sequential"
            ? {
                sequential: {
                  lookEverySeconds: s.policy.lookEverySeconds,
                  maxSeconds: (w.bakeEnd ?? 0) - (w.bakeStart ?? 0),
                  warmupSeconds: s.policy.warmupSeconds,
                  changeStartedAt: w.startedAt,
                },
              }
            : {}),
          signals: waveOfReplicas(s, w.index) ? Object.values(CATCH_UP_SIGNALS) : [],
        });
      } else wakes.push(w.nextEvaluationAt);
    }
  }
  return {
    status: s.status,
    observations: { health, activeRollouts, readBacks, bakes },
    hooks,
    human,
    wakeAt: wakes.length > 0 ? Math.min(...wakes) : null,
  };
}

/** Instances this rollout still touches (for another rollout's overlap check). */
export function touchedInstances(state: RolloutState): string[] {
  if (FINAL_STATUSES.includes(state.status)) return [];
  return [...new Set([...state.waves.flatMap((w) => [...w.instances, ...w.controls])])].sort();
}

/** Parses a stored state (throws a ZodError listing every problem). */
export function parseRolloutState(value: unknown): RolloutState {
  return rolloutStateSchema.parse(value);
}

/** What a person may send now, as the state machine itself answers it. */
export interface PermittedCommands {
  /** The wave an approve acts on (a pending wave, or an inconclusive one to accept), or null. */
  readonly approve: number | null;
  readonly attestBackup: boolean;
  readonly pause: boolean;
  readonly resume: boolean;
  readonly abort: boolean;
  readonly revert: boolean;
  /** Instances whose step may be marked done. */
  readonly stepDone: readonly string[];
  /** Instances whose revert step may be marked done. */
  readonly revertDone: readonly string[];
}

const PROBE_ACTOR: Actor = { id: "permission-probe", kind: "operator" };
const PROBE_KEY = "untorn:permission-probe";

/**
 * The commands `applyCommand` would accept now, found by trying each on the state (a pure call that
 * keeps nothing). The console's controls and step rows offer exactly these, so none can offer what the
 * state machine then refuses; the CLI sends its command and reports the refusal. `nextActions` answers a
 * different question (what is due, with its reason), and the property test checks that every human action
 * it proposes is one of these.
 */
export function permittedCommands(state: RolloutState, now: number): PermittedCommands {
  const ok = (c: Record<string, unknown> & { type: Command["type"] }) =>
    applyCommand(state, { ...c, actor: PROBE_ACTOR, key: PROBE_KEY } as Command, now).ok;
  const instances = state.instances.map((i) => i.instance);
  const wave = state.currentWave;
  return {
    approve: wave !== null && ok({ type: "approve", wave }) ? wave : null,
    attestBackup: ok({ type: "attest-backup", takenAt: Math.floor(now) }),
    pause: ok({ type: "pause", reason: "probe" }),
    resume: ok({ type: "resume" }),
    abort: ok({ type: "abort", reason: "probe" }),
    revert: ok({ type: "revert", reason: "probe" }),
    stepDone: instances.filter((instance) => ok({ type: "step-done", instance })),
    revertDone: instances.filter((instance) => ok({ type: "revert-done", instance })),
  };
}
