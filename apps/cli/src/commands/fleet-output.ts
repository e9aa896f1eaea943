/**
 * The shape `untorn fleet --json` prints: the shared fleet rows and summary (@untorn/fleet/row) in an
 * envelope that says where the data came from and what the profile could not use. The JSON Schema
 * generated from it is docs/schemas/cli-fleet.schema.json.
 */

import { replayMetaSchema } from "@untorn/fleet/replay";
import { exporterPresenceSchema, fleetSummarySchema, rankedFleetRowSchema } from "@untorn/fleet/row";
import { SEVERITIES, VERDICTS } from "@untorn/vocabulary/words";
import { z } from "zod";

const count = z.number().int().nonnegative();
const byInstance = <T extends z.ZodType>(value: T) => z.record(z.string(), value);

/** Instances with critical or error findings (the ranking's atRisk); `advise --json` prints it too. */
export const atRiskSchema = z
  .array(
    z
      .object({
        instance: z.string(),
        findings: z.array(
          z.object({ ruleId: z.string(), severity: z.enum(SEVERITIES), title: z.string() }).strict(),
        ),
      })
      .strict(),
  )
  .describe("Instances with critical or error findings, whatever their benefit.");

/** Instances per write-bound verdict, plus blocked and actionable (the ranking's counts). */
export const countsSchema = z
  .object({
    ...Object.fromEntries(VERDICTS.map((v) => [v, count])),
    blocked: count.describe("Instances whose gain waits for the safety gate (or an upgrade)."),
    actionable: count,
  })
  .strict()
  .describe("Instances per write-bound verdict, plus blocked and actionable.");

/** An instance left out, and why. */
export const skippedSchema = z.object({ instance: z.string(), reason: z.string() }).strict();

export const fleetOutputSchema = z
  .object({
    at: z.iso.datetime().describe("End of the window the facts were read over."),
    window: z.string().describe("PromQL duration the workload statistics cover."),
    source: z
      .string()
      .nullable()
      .describe("The Prometheus base URL (credentials removed); null for a replay."),
    recorded: replayMetaSchema
      .extend({ file: z.string() })
      .nullable()
      .describe("The replay file read and what it recorded; null for a live source."),
    queries: count.describe("PromQL requests the profile made: the same for 1 and for 10,000 instances."),
    recordingRules: z
      .object({
        used: z.boolean().describe("The window statistics came from recorded series (either tier)."),
        fallbackReason: z.string().nullable().describe("Why the raw series were read; null when used."),
        tier: z
          .enum(["window", "rates", "raw"])
          .describe(
            "Which series the window statistics were read from: untorn.window's recorded statistics, untorn.rates' per-instance rates, or raw series.",
          ),
        windowNote: z
          .string()
          .nullable()
          .describe(
            "With tier window: how old its statistics may be (as of the rules' last evaluation); with tier rates: why untorn.window's were not read; null with tier raw.",
          ),
      })
      .strict()
      .describe("Whether the window statistics came from the recording rules' series, which, and why not."),
    clockNote: z
      .string()
      .nullable()
      .describe("Why 'now' was read in the past (VictoriaMetrics' -search.latencyOffset), or null."),
    rows: z.array(rankedFleetRowSchema).describe("The fleet table in rank order (fleet-row.schema.json)."),
    summary: fleetSummarySchema,
    atRisk: atRiskSchema,
    counts: countsSchema,
    skipped: z.array(skippedSchema).describe("Instances seen without usable facts, and why."),
    missing: byInstance(z.array(z.string())).describe(
      "Per instance: fact paths without data in the window (unknown, never 0).",
    ),
    exporters: byInstance(exporterPresenceSchema).describe("Which exporters' series exist per instance."),
    declared: byInstance(z.array(z.string())).describe(
      "Per instance: fact paths taken from the --metadata file.",
    ),
    warnings: z.array(z.string()),
  })
  .strict();

/** A value and everything in it read-only: the profile hands out read-only arrays and records. */
export type DeepReadonly<T> = T extends readonly (infer U)[]
  ? readonly DeepReadonly<U>[]
  : T extends object
    ? { readonly [K in keyof T]: DeepReadonly<T[K]> }
    : T;

/** What the command builds and prints: the schema's shape, taken as the profile gives it (no copies). */
export type FleetOutput = DeepReadonly<z.input<typeof fleetOutputSchema>>;
