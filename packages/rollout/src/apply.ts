/**
 * applyCommand: a command's idempotency check, then its handler (onApprove, onPause ...), which changes
 * the draft and emits events or refuses (refuse, keeping at most MAX_REFUSED_KEYS refused keys).
 */
import type { Command, Refusal, RefusalCode } from "./commands.js";
import { advance, Draft, iso, step } from "./draft.js";
import { type Actor, SYSTEM } from "./events.js";
import {
  canonicalJson,
  FINAL_STATUSES,
  type InstanceState,
  type RolloutState,
  type Transition,
} from "./state-schema.js";

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
