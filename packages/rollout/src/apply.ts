/**
 * applyCommand: a command's idempotency check, then refusalOf (what the state machine takes now, which
 * permittedCommands reads too), then either refuse (keeping at most MAX_REFUSED_KEYS refused keys) or
 * the command's handler (onApprove, onPause ...), which changes the draft and emits events.
 */
import type { Command, Refusal, RefusalCode } from "./commands.js";
import { advance, Draft, isChanged, iso, step } from "./draft.js";
import { type Actor, SYSTEM } from "./events.js";
import {
  canonicalJson,
  FINAL_STATUSES,
  type InstanceState,
  type RolloutState,
  type Transition,
  type WaveState,
} from "./state-schema.js";

/**
 * Refused commands' keys kept in the document, newest: without a bound, refused commands (each with
 * its note in the fingerprint) grow a rollout without limit. An older refused key sent again is judged
 * afresh; the store's command table (rollout_commands) and the audit log keep every one.
 */
export const MAX_REFUSED_KEYS = 20;

function refuse(d: Draft, c: Command, { code, message }: Refusal): void {
  d.s.keys[c.key] = { fingerprint: canonicalJson(c), outcome: "refused", code, message };
  const refused = Object.keys(d.s.keys).filter((k) => d.s.keys[k]?.outcome === "refused");
  for (const k of refused.slice(0, Math.max(0, refused.length - MAX_REFUSED_KEYS))) delete d.s.keys[k];
  d.emit({ actor: c.actor, type: "command-refused", key: c.key, message: `${c.type}: ${message}` });
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
  const refusal = refusalOf(state, command, now);
  if (refusal) {
    refuse(d, command, refusal);
    return { ok: false, state: d.done(), events: d.events, refusal, duplicate: false };
  }
  apply(d, command);
  d.s.keys[command.key] = {
    fingerprint: canonicalJson(command),
    outcome: "applied",
    code: null,
    message: null,
  };
  return { ok: true, state: d.done(), events: d.events, duplicate: false };
}

type CommandOf<T extends Command["type"]> = Extract<Command, { type: T }>;

const no = (code: RefusalCode, message: string): Refusal => ({ code, message });

/**
 * Why applyCommand refuses `c` at `now`, or null when it takes it: the state machine's one set of rules
 * for what may be sent, which permittedCommands (and through it nextActions and the console) reads too.
 * Pure and copies nothing, so asking it for every instance stays cheap. `i` is the command's instance
 * when the caller already holds it (asking for each of thousands, a lookup each would be quadratic).
 */
export function refusalOf(s: RolloutState, c: Command, now: number, i?: InstanceState): Refusal | null {
  const final = FINAL_STATUSES.includes(s.status);
  switch (c.type) {
    case "attest-backup":
      if (final) return no("final", `The rollout is ${s.status}.`);
      return c.takenAt > now ? no("backup-in-future", "The backup's time is in the future.") : null;
    case "approve":
      return approveRefusal(s, c);
    case "step-done":
    case "hook-started":
    case "hook-result":
      return stepRefusal(s, c, i ?? s.instances.find((x) => x.instance === c.instance));
    case "pause":
      if (s.status === "paused") return no("already-paused", "The rollout is already paused.");
      return s.status === "active" ? null : no("not-active", `The rollout is ${s.status}.`);
    case "resume":
      return s.status === "paused" ? null : no("not-paused", `The rollout is ${s.status}, not paused.`);
    case "abort":
      if (final) return no("final", `The rollout is ${s.status}.`);
      return s.status === "reverting"
        ? no("not-active", "The rollout is reverting: finish the revert.")
        : null;
    case "revert":
      if (s.status === "reverting" || s.status === "reverted")
        return no("not-active", `The rollout is already ${s.status}.`);
      return s.instances.some(isChanged) ? null : no("nothing-to-revert", "No instance was changed.");
    case "revert-done": {
      const inst = i ?? s.instances.find((x) => x.instance === c.instance);
      if (!inst) return no("unknown-instance", `${c.instance} is not in this rollout's plan.`);
      if (s.status !== "reverting") return no("not-reverting", `The rollout is ${s.status}, not reverting.`);
      return inst.status === "reverting" ? null : no("step-already-done", `${c.instance} is ${inst.status}.`);
    }
  }
}

/** The current wave while the rollout is paused on its inconclusive result: approve accepts it, resume judges it again. */
function inconclusiveWave(s: RolloutState): WaveState | undefined {
  const w = s.currentWave === null ? undefined : s.waves[s.currentWave];
  return s.status === "paused" && s.pause?.reason === "inconclusive" && w?.phase === "inconclusive"
    ? w
    : undefined;
}

function approveRefusal(s: RolloutState, c: CommandOf<"approve">): Refusal | null {
  const w = s.waves[c.wave];
  if (!w) return no("unknown-wave", `There is no wave ${c.wave}.`);
  if (s.currentWave !== c.wave)
    return no("not-current-wave", `Wave ${c.wave} is not the current wave (${s.currentWave ?? "none"}).`);
  if (inconclusiveWave(s) === w) return null;
  if (s.status !== "active" && s.status !== "paused") return no("not-active", `The rollout is ${s.status}.`);
  if (w.phase !== "pending") return no("wave-not-pending", `Wave ${c.wave} is ${w.phase}.`);
  if (w.approvedAt !== null) return no("already-approved", `Wave ${c.wave} is already approved.`);
  return null;
}

function stepRefusal(
  s: RolloutState,
  c: CommandOf<"step-done" | "hook-started" | "hook-result">,
  i: InstanceState | undefined,
): Refusal | null {
  if (!i) return no("unknown-instance", `${c.instance} is not in this rollout's plan.`);
  if (s.status !== "active" && s.status !== "paused") return no("not-active", `The rollout is ${s.status}.`);
  const w = s.waves[i.wave]!;
  if (w.phase !== "applying")
    return no("wave-not-applying", `Wave ${w.index} is ${w.phase}: its pre-wave gate has not passed.`);
  if (c.type !== "step-done" && s.policy.applier.kind !== "hook")
    return no("not-hook-applier", "This rollout's steps are applied by the operator.");
  if (c.type === "hook-result")
    return i.status === "applying"
      ? null
      : no("hook-not-started", `${c.instance} is ${i.status}, not applying.`);
  const open = i.status === "pending" || (c.type === "step-done" && i.status === "applying");
  return open ? null : no("step-already-done", `${c.instance} is ${i.status}.`);
}

function onAttestBackup(d: Draft, c: CommandOf<"attest-backup">): void {
  d.s.backup = { takenAt: c.takenAt, attestedAt: d.now, by: c.actor, note: c.note ?? null };
  d.emit({
    actor: c.actor,
    key: c.key,
    type: "backup-attested",
    message: `Backup taken at ${iso(c.takenAt)} attested.${c.note ? ` ${c.note}` : ""}`,
  });
}

function onApprove(d: Draft, c: CommandOf<"approve">): void {
  const s = d.s;
  const base = { actor: c.actor, key: c.key };
  const w = s.waves[c.wave]!;
  if (inconclusiveWave(s) === w) {
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
    return;
  }
  w.approvedAt = d.now;
  w.approvedBy = c.actor;
  d.emit({
    ...base,
    type: "wave-approved",
    wave: w.index,
    message: `Wave ${w.index} approved.${c.note ? ` ${c.note}` : ""}`,
  });
}

function onStepCommand(d: Draft, c: CommandOf<"step-done" | "hook-started" | "hook-result">): void {
  const s = d.s;
  const base = { actor: c.actor, key: c.key };
  const i = d.inst(c.instance)!;
  const w = s.waves[i.wave]!;
  if (c.type === "step-done") markApplied(d, i, c.actor, c.key, c.note);
  else if (c.type === "hook-started") {
    // refusalOf takes hook commands only from a hook applier.
    const hook = s.policy.applier.kind === "hook" ? s.policy.applier.hook : "";
    i.status = "applying";
    d.emit({
      ...base,
      type: "hook-started",
      wave: w.index,
      instance: i.instance,
      message: `Hook ${hook} started on ${i.instance}.`,
    });
  } else {
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
  }
}

function onPause(d: Draft, c: CommandOf<"pause">): void {
  d.s.status = "paused";
  d.s.pause = { reason: "operator", at: d.now, message: c.reason };
  d.emit({ actor: c.actor, key: c.key, type: "paused", message: `Paused: ${c.reason}` });
}

function onResume(d: Draft, c: CommandOf<"resume">): void {
  const s = d.s;
  const w = inconclusiveWave(s);
  if (w) {
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
  d.emit({ actor: c.actor, key: c.key, type: "resumed", message: `Resumed.${c.note ? ` ${c.note}` : ""}` });
}

function onAbort(d: Draft, c: CommandOf<"abort">): void {
  d.s.status = "aborted";
  d.s.pause = null;
  d.emit({ actor: c.actor, key: c.key, type: "aborted", message: `Aborted: ${c.reason}` });
}

function onRevert(d: Draft, c: CommandOf<"revert">): void {
  const s = d.s;
  const changed = s.instances.filter(isChanged);
  for (const i of changed) {
    i.status = "reverting";
    i.matches = 0;
    i.timedOut = false;
  }
  s.status = "reverting";
  s.pause = null;
  d.emit({
    actor: c.actor,
    key: c.key,
    type: "revert-started",
    message: `Revert of ${changed.map((i) => i.instance).join(", ")}: ${c.reason}`,
  });
}

function onRevertDone(d: Draft, c: CommandOf<"revert-done">): void {
  const i = d.inst(c.instance)!;
  i.status = "revert-applied";
  i.revertAppliedAt = d.now;
  i.matches = 0;
  d.emit({
    actor: c.actor,
    key: c.key,
    type: "revert-applied",
    wave: i.wave,
    instance: i.instance,
    message: `Revert step done on ${i.instance}.${c.note ? ` ${c.note}` : ""}`,
  });
}

/** Each command's handler, once refusalOf has taken it: it changes the draft and emits events. */
const HANDLERS: { [T in Command["type"]]: (d: Draft, c: CommandOf<T>) => void } = {
  "attest-backup": onAttestBackup,
  approve: onApprove,
  "step-done": onStepCommand,
  "hook-started": onStepCommand,
  "hook-result": onStepCommand,
  pause: onPause,
  resume: onResume,
  abort: onAbort,
  revert: onRevert,
  "revert-done": onRevertDone,
};

function apply(d: Draft, c: Command): void {
  // The table pairs each type with its handler; TypeScript cannot correlate the two through c.type.
  (HANDLERS[c.type] as (d: Draft, c: Command) => void)(d, c);
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
