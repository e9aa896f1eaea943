/**
 * The shapes `untorn advise --json` prints: one instance's Advice (@untorn/advisor/advice-schema) for one
 * InstanceFacts object; for an array, the fleet table's rows and summary (as `fleet --json`) with every
 * instance's advice and the instances the advisor failed on. docs/schemas/cli-advise.schema.json is
 * generated from it.
 */

import { adviceSchema } from "@untorn/advisor/advice-schema";
import { fleetSummarySchema, rankedFleetRowSchema } from "@untorn/fleet/row";
import { z } from "zod";
import { atRiskSchema, countsSchema, type DeepReadonly, skippedSchema } from "./fleet-output.js";

/** `advise --facts <array> --json`. */
export const adviseFleetOutputSchema = z
  .object({
    rows: z.array(rankedFleetRowSchema).describe("The fleet table in rank order (fleet-row.schema.json)."),
    summary: fleetSummarySchema,
    atRisk: atRiskSchema,
    counts: countsSchema,
    advice: z.array(adviceSchema).describe("Every instance's advice, in the order of the input."),
    failed: z.array(skippedSchema).describe("Instances the advisor failed on, and why (not in rows)."),
  })
  .strict();

/** Either form: the single-instance form has `verdict`, the array form `rows`. */
export const adviseOutputSchema = z.union([
  adviceSchema.describe("`advise --facts <one object> --json`: the instance's advice."),
  adviseFleetOutputSchema.describe("`advise --facts <array> --json`: the fleet table with each advice."),
]);

/** What the array form builds and prints, taken as the profile gives it (no copies). */
export type AdviseFleetOutput = DeepReadonly<z.input<typeof adviseFleetOutputSchema>>;
