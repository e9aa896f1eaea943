/**
 * The rollout state's schemas and types: the statuses, instance, wave and rollout state, the outcome of
 * a transition, and canonicalJson (the fingerprint of an idempotency key). Public through state.ts.
 */
import { z } from "zod";
import type { Refusal } from "./commands.js";
import { eventSchema, type RolloutEvent } from "./events.js";
import { planSchema } from "./plan.js";
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
export const gateStatusSchema = z.enum(["verified", "unverified", "unsafe"]);

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
