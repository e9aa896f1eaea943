/**
 * The rollout state machine, as the package's `./state` entry. Every transition is a pure function of
 * (state, command | observations, now) returning the new state and the events it appended, or a typed
 * refusal; all state lives in the (JSON) state object, so a restarted reconciler resumes where it stood.
 * Holds createRollout, parseRolloutState and touchedInstances; re-exports the schemas (state-schema.ts),
 * applyCommand (apply.ts), reconcile (reconcile.ts) and nextActions, permittedCommands (next-actions.ts).
 */
import { describeChange } from "./change.js";
import type { CreateCommand } from "./commands.js";
import { Draft } from "./draft.js";
import { SYSTEM } from "./events.js";
import { defaultMetrics } from "./gates.js";
import { type Plan, planRollout } from "./plan.js";
import { canonicalJson, FINAL_STATUSES, type RolloutState, rolloutStateSchema } from "./state-schema.js";

export { applyCommand, MAX_REFUSED_KEYS } from "./apply.js";
export { commandSchema, createCommandSchema } from "./commands.js";
export {
  type BakeRequest,
  type HumanAction,
  type NextActions,
  nextActions,
  type PermittedCommands,
  permittedCommands,
} from "./next-actions.js";
export { bakeWindows, gateReplicas, reconcile } from "./reconcile.js";
export {
  canonicalJson,
  FINAL_STATUSES,
  INSTANCE_STATUSES,
  type InstanceState,
  type InstanceStatus,
  instanceStateSchema,
  ROLLOUT_STATUSES,
  type RolloutState,
  type RolloutStatus,
  rolloutStateSchema,
  type Transition,
  WAVE_PHASES,
  type WavePhase,
  type WaveState,
  waveStateSchema,
} from "./state-schema.js";

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

/** Instances this rollout still touches (for another rollout's overlap check). */
export function touchedInstances(state: RolloutState): string[] {
  if (FINAL_STATUSES.includes(state.status)) return [];
  return [...new Set([...state.waves.flatMap((w) => [...w.instances, ...w.controls])])].sort();
}

/** Parses a stored state (throws a ZodError listing every problem). */
export function parseRolloutState(value: unknown): RolloutState {
  return rolloutStateSchema.parse(value);
}
