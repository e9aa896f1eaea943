/**
 * Commands: what a person or a hook asks of a rollout. Every command carries its actor and an
 * idempotency key: the same key with the same command gives the same outcome once, never a second
 * effect; the same key with a different command is refused.
 */
import { z } from "zod";
import { actorSchema } from "./events.js";
import { planInputSchema } from "./plan.js";

const key = z
  .string()
  .min(1)
  .max(200)
  .regex(/^[\x21-\x7e]+$/, "printable ASCII without spaces")
  .describe("Idempotency key: retrying with the same key never applies the command twice.");
const base = { key, actor: actorSchema };
const instance = z.string().min(1).max(256);
/** A note kept with the command in the rollout's document: a few sentences, not a file. */
const note = z.string().max(1000).optional();
const unixSeconds = z.number().finite();

export const createCommandSchema = z
  .strictObject({
    type: z.literal("create"),
    ...base,
    id: z
      .string()
      .min(1)
      .max(128)
      .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "letters, digits, . _ - (starting with a letter or digit)"),
    title: z.string().min(1).max(200),
    input: planInputSchema,
  })
  .meta({ id: "RolloutCreate", description: "Creates a rollout from a plan input." });
export type CreateCommand = z.output<typeof createCommandSchema>;
export type CreateCommandInput = z.input<typeof createCommandSchema>;

export const commandSchema = z
  .discriminatedUnion("type", [
    z
      .strictObject({ type: z.literal("attest-backup"), ...base, takenAt: unixSeconds, note })
      .describe("The operator attests a backup taken at `takenAt` (Unix seconds)."),
    z
      .strictObject({ type: z.literal("approve"), ...base, wave: z.number().int().min(0), note })
      .describe("Opens a pending wave, or accepts an inconclusive wave's result and moves on."),
    z
      .strictObject({ type: z.literal("step-done"), ...base, instance, note })
      .describe("The operator carried out the instance's step; now becomes the comparison's change point."),
    z.strictObject({ type: z.literal("hook-started"), ...base, instance }).describe("A hook began the step."),
    z
      .strictObject({
        type: z.literal("hook-result"),
        ...base,
        instance,
        ok: z.boolean(),
        exitCode: z.number().int().nullable().optional(),
        output: z.string().max(1_000_000).default(""),
      })
      .describe("The hook's outcome and output, kept in the audit."),
    z.strictObject({ type: z.literal("pause"), ...base, reason: z.string().min(1).max(4000) }),
    z.strictObject({ type: z.literal("resume"), ...base, note }),
    z.strictObject({ type: z.literal("abort"), ...base, reason: z.string().min(1).max(4000) }),
    z
      .strictObject({ type: z.literal("revert"), ...base, reason: z.string().min(1).max(4000) })
      .describe("Reverts every changed instance to its stored previous value."),
    z
      .strictObject({ type: z.literal("revert-done"), ...base, instance, note })
      .describe("The operator (or hook) carried out the instance's revert step."),
  ])
  .meta({ id: "RolloutCommand", description: "A command on an existing rollout." });
export type Command = z.output<typeof commandSchema>;
export type CommandInput = z.input<typeof commandSchema>;
export type CommandType = Command["type"];

export const REFUSAL_CODES = [
  "key-reused",
  "final",
  "not-active",
  "not-paused",
  "already-paused",
  "unknown-wave",
  "not-current-wave",
  "wave-not-pending",
  "already-approved",
  "unknown-instance",
  "wave-not-applying",
  "step-already-done",
  "not-hook-applier",
  "hook-not-started",
  "not-reverting",
  "nothing-to-revert",
  "backup-in-future",
] as const;
export type RefusalCode = (typeof REFUSAL_CODES)[number];

export interface Refusal {
  readonly code: RefusalCode;
  readonly message: string;
}
