/**
 * JSON Schemas of the rollout's inputs and outputs, as pure functions of the zod schemas (the CLI
 * writes them to docs/schemas/ and checks the committed copies).
 */
import { z } from "zod";
import { commandSchema, createCommandSchema } from "./commands.js";
import { observationsSchema } from "./observations.js";
import { planInputSchema, planSchema } from "./plan.js";
import { reportSchema } from "./report.js";
import { rolloutStateSchema } from "./state.js";

const schema = (s: z.ZodType, id: string, title: string, io: "input" | "output") => ({
  ...(z.toJSONSchema(s, { target: "draft-2020-12", io, unrepresentable: "any" }) as Record<string, unknown>),
  $id: id,
  title,
});

export const ROLLOUT_SCHEMAS = {
  "rollout-plan-input.schema.json": () =>
    schema(planInputSchema, "rollout-plan-input.schema.json", "Rollout plan input", "input"),
  "rollout-create.schema.json": () =>
    schema(createCommandSchema, "rollout-create.schema.json", "Rollout create command", "input"),
  "rollout-command.schema.json": () =>
    schema(commandSchema, "rollout-command.schema.json", "Rollout command", "input"),
  "rollout-observations.schema.json": () =>
    schema(observationsSchema, "rollout-observations.schema.json", "Rollout observations", "input"),
  "rollout-plan.schema.json": () => schema(planSchema, "rollout-plan.schema.json", "Rollout plan", "output"),
  "rollout-state.schema.json": () =>
    schema(rolloutStateSchema, "rollout-state.schema.json", "Rollout state", "output"),
  "rollout-report.schema.json": () =>
    schema(reportSchema, "rollout-report.schema.json", "Rollout change report", "output"),
} as const;
export type RolloutSchemaFile = keyof typeof ROLLOUT_SCHEMAS;

/** The file's exact text (2-space JSON, trailing newline). */
export function renderRolloutSchema(name: RolloutSchemaFile): string {
  return `${JSON.stringify(ROLLOUT_SCHEMAS[name](), null, 2)}\n`;
}
