/**
 * The audit: append-only events with the actor, the time and the evidence of every gate decision
 * (the checks with what was observed, and the comparison result itself).
 */
import { ComparisonResult } from "@untorn/compare/result";
import { z } from "zod";

export const actorSchema = z.strictObject({
  id: z.string().min(1).max(256).describe("User name, hook name or `reconciler`."),
  kind: z.enum(["operator", "hook", "system"]),
});
export type Actor = z.infer<typeof actorSchema>;

export const SYSTEM: Actor = { id: "reconciler", kind: "system" };

export const GATE_KINDS = ["pre-wave", "step", "bake", "revert"] as const;
export type GateKind = (typeof GATE_KINDS)[number];
/** pass / fail / inconclusive; no-data is reported apart and never counts as a pass (Kayenta NODATA). */
export const GATE_OUTCOMES = ["pass", "fail", "inconclusive", "no-data", "waiting"] as const;
export type GateOutcome = (typeof GATE_OUTCOMES)[number];

export const gateCheckSchema = z.strictObject({
  id: z.string(),
  instance: z.string().optional(),
  metric: z.string().optional(),
  outcome: z.enum(GATE_OUTCOMES),
  expected: z.string(),
  observed: z.string(),
  message: z.string(),
  demoOnly: z
    .boolean()
    .optional()
    .describe(
      "Safety gate: verified on torn-write protection declared for a demo only, not on real storage.",
    ),
});
export type GateCheck = z.infer<typeof gateCheckSchema>;

export const metricJudgementSchema = z.strictObject({
  metric: z.string(),
  role: z.enum(["guardrail", "expected", "informative"]),
  outcome: z.enum(GATE_OUTCOMES),
  ratio: z.number().nullable(),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  verdict: z.string(),
  criterion: z.string(),
});
export type MetricJudgement = z.infer<typeof metricJudgementSchema>;

/** A gate outcome, or not-applicable: neither replica lagged enough to say anything about catch-up. */
export const CATCH_UP_OUTCOMES = [...GATE_OUTCOMES, "not-applicable"] as const;
export type CatchUpOutcome = (typeof CATCH_UP_OUTCOMES)[number];

export const lagSummarySchema = z.strictObject({
  samples: z.number().int().min(0).describe("Samples with a lag reading."),
  laggingSeconds: z.number().min(0).describe("Time with this instance's lag above the threshold."),
  maxSeconds: z.number().nullable(),
  firstSeconds: z.number().nullable().describe("Lag at the window's first reading."),
  lastSeconds: z.number().nullable().describe("Lag at the window's last reading."),
  applyRateWhileLagging: z
    .number()
    .nullable()
    .describe(
      "Mean transactions/s over the samples where the changed replica or a control lagged (null: none).",
    ),
});
export type LagSummary = z.infer<typeof lagSummarySchema>;

export const catchUpJudgementSchema = z.strictObject({
  instance: z.string().describe("The changed replica."),
  role: z.enum(["guardrail", "expected", "informative"]),
  outcome: z.enum(CATCH_UP_OUTCOMES),
  criterion: z.string(),
  message: z.string(),
  thresholdSeconds: z.number(),
  ratio: z
    .number()
    .nullable()
    .describe("Apply rate while lagging, changed vs control, after ÷ before (difference in differences)."),
  ciLow: z.number().nullable(),
  ciHigh: z.number().nullable(),
  verdict: z.string(),
  lag: z.array(
    z.strictObject({
      instance: z.string(),
      role: z.enum(["treated", "control"]),
      before: lagSummarySchema,
      after: lagSummarySchema,
    }),
  ),
});
export type CatchUpJudgement = z.infer<typeof catchUpJudgementSchema>;

export const gateResultSchema = z.strictObject({
  gate: z.enum(GATE_KINDS),
  wave: z.number().int(),
  instance: z.string().optional(),
  outcome: z.enum(GATE_OUTCOMES),
  at: z.number(),
  summary: z.string(),
  checks: z.array(gateCheckSchema),
  judgement: z.array(metricJudgementSchema).optional(),
  catchUp: z
    .array(catchUpJudgementSchema)
    .optional()
    .describe("Bake: the replication catch-up judgement of each changed replica."),
  comparison: ComparisonResult.optional(),
  windows: z
    .strictObject({
      before: z.strictObject({ start: z.number(), end: z.number() }),
      after: z.strictObject({ start: z.number(), end: z.number() }),
    })
    .optional(),
});
export type GateResult = z.infer<typeof gateResultSchema>;

export const EVENT_TYPES = [
  "created",
  "backup-attested",
  "wave-approved",
  "gate",
  "wave-started",
  "hook-started",
  "hook-result",
  "step-applied",
  "step-verified",
  "step-failed",
  "bake-started",
  "wave-passed",
  "wave-failed",
  "wave-inconclusive",
  "paused",
  "resumed",
  "aborted",
  "revert-proposed",
  "revert-started",
  "revert-applied",
  "instance-reverted",
  "completed",
  "reverted",
  "command-refused",
] as const;
export type EventType = (typeof EVENT_TYPES)[number];

export const eventSchema = z.strictObject({
  seq: z.number().int().min(1),
  at: z.number(),
  actor: actorSchema,
  type: z.enum(EVENT_TYPES),
  wave: z.number().int().optional(),
  instance: z.string().optional(),
  /** Idempotency key of the command that caused it. */
  key: z.string().optional(),
  message: z.string(),
  gate: gateResultSchema.optional(),
  output: z.string().optional().describe("A hook's output (truncated to 64 KiB)."),
});
export type RolloutEvent = z.infer<typeof eventSchema>;
