/**
 * The read API's response shapes as zod schemas: the contract of GET /api/v1/fleet,
 * GET /api/v1/instances/{id}, GET /api/v1/rollouts and GET /api/v1/rollouts/{id}. docs/schemas/api-*.schema.json are generated from them
 * (scripts/gen-schemas.ts, `npm run gen:schemas`); api-schema.test.ts fails when a committed file is stale
 * and checks real responses against them.
 */
import {
  findingSchema,
  gateSchema,
  inputWarningSchema,
  profileSchema,
  verdictSchema,
} from "@untorn/advisor/advice-schema";
import { instanceFactsSchema } from "@untorn/advisor/facts";
import { eventSchema, GATE_KINDS, GATE_OUTCOMES, gateResultSchema } from "@untorn/rollout/events";
import { ROLLOUT_STATUSES, rolloutStateSchema } from "@untorn/rollout/state";
import { z } from "zod";
import { fleetQuerySchema, pageParamSchemas } from "./fleet-query.js";
import { fleetRowSchema, fleetSummarySchema } from "./fleet-row.js";

const iso = z.iso.datetime().describe("ISO 8601 time, UTC.");

export const sourceSchema = z
  .discriminatedUnion("kind", [
    z
      .object({ kind: z.literal("live"), url: z.string().describe("Prometheus base URL (no credentials).") })
      .strict(),
    z
      .object({
        kind: z.literal("recorded"),
        file: z.string(),
        recordedAt: z.string(),
        recordedFrom: z.string(),
        window: z.string(),
        end: z.number().describe("Last recorded evaluation time, Unix seconds."),
        note: z.string().nullable(),
      })
      .strict(),
    z.object({ kind: z.literal("none"), searched: z.string().nullable(), reason: z.string() }).strict(),
    z.object({ kind: z.literal("invalid"), file: z.string(), error: z.string() }).strict(),
  ])
  .describe("Where the numbers come from: live Prometheus, a recorded fleet, or nothing.");

export const statusSchema = z
  .object({
    state: z
      .enum(["ok", "stale", "unavailable", "no-source"])
      .describe(
        "stale: the source is failing and the last good snapshot is served, or (with kept) the read kept from before the restart is served while a fresh read runs.",
      ),
    error: z.string().nullable(),
    slowMs: z.number().nullable().describe("Set when reading the fleet took longer than UNTORN_SLOW_MS."),
    kept: z
      .object({
        readAt: iso.describe("When the kept read's facts were read."),
        origin: z
          .enum(["replay", "live"])
          .describe(
            "replay: the facts the replay file gives (same build, same file), not read again; live: the last read before the restart, stale until a fresh read replaces it.",
          ),
        refreshing: z.boolean().describe("A fresh read of the source is under way."),
      })
      .strict()
      .optional()
      .describe("Present when the fleet shown is the read kept from before the server's start."),
  })
  .strict();

export const paramProblemSchema = z
  .object({ param: z.string(), value: z.string(), message: z.string() })
  .strict();

export const errorSchema = z
  .object({
    error: z.string().describe("What went wrong, in a sentence."),
    issues: z.array(paramProblemSchema).optional().describe("One entry per bad parameter (400)."),
    source: sourceSchema.optional(),
    status: statusSchema.optional(),
  })
  .strict()
  .meta({ title: "Untorn API error", description: "Body of every 4xx/5xx answer of /api/v1." });

const timingSchema = z
  .object({
    fetchMs: z.number().describe("Reading the facts from Prometheus or the replay, ms."),
    adviseMs: z.number().describe("Merging metadata, advising and ranking, ms."),
    queries: z.number().int().describe("PromQL requests made for the snapshot (independent of fleet size)."),
    fetchedAt: iso,
  })
  .strict();

/** GET /api/v1/fleet's parameters: the fleet page's, plus paging. */
export const fleetApiQuerySchema = fleetQuerySchema
  .extend({ limit: pageParamSchemas.limit.optional(), offset: pageParamSchemas.offset.optional() })
  .meta({
    title: "GET /api/v1/fleet parameters",
    description: "The fleet page's search parameters, plus paging.",
  });

export const fleetResponseSchema = z
  .object({
    source: sourceSchema,
    status: statusSchema,
    at: iso.describe("Evaluation time: the end of the window."),
    window: z.string().describe("PromQL duration the workload statistics cover."),
    rangeNote: z
      .string()
      .nullable()
      .describe(
        "Why `window` is not the `range` asked for (a recording holds the window it was recorded with), or null.",
      ),
    query: fleetQuerySchema.describe("The query as applied, defaults filled in."),
    summary: fleetSummarySchema,
    total: z.number().int().nonnegative().describe("Instances in the fleet."),
    count: z.number().int().nonnegative().describe("Instances matching the query."),
    offset: z.number().int().nonnegative(),
    limit: z.number().int().positive().nullable(),
    instances: z
      .array(fleetRowSchema)
      .describe("Matching instances, sorted as asked, from offset, at most limit."),
    skipped: z.array(z.object({ instance: z.string(), reason: z.string() }).strict()),
    warnings: z.array(z.string()),
    timing: timingSchema,
  })
  .strict()
  .meta({
    title: "GET /api/v1/fleet",
    description: "Every instance with its verdict, gate and expected gain.",
  });

export const metadataSchema = z
  .object({
    cluster: z.string().nullable(),
    role: z.string().nullable(),
    notes: z.string(),
    storageClass: z.string().nullable(),
    managedService: z.string().nullable(),
    storageFacts: z.record(z.string(), z.unknown()).describe("Declared storage and platform facts."),
    updatedAt: iso,
    updatedBy: z.string(),
  })
  .strict();

export const instanceResponseSchema = z
  .object({
    source: sourceSchema,
    status: statusSchema,
    instance: z.string(),
    at: iso,
    window: z.string(),
    row: fleetRowSchema.describe("The instance's fleet table row."),
    facts: instanceFactsSchema.describe(
      "InstanceFacts the advisor saw: measured, with the metadata overlaid.",
    ),
    advice: z
      .object({
        verdict: verdictSchema,
        safetyGate: gateSchema,
        findings: z.array(findingSchema),
        warnings: z
          .array(inputWarningSchema)
          .describe("Facts the advisor found contradicted, ignored or overridden (docs/advisor.md)."),
        profile: profileSchema,
      })
      .strict(),
    metadata: metadataSchema.nullable(),
    declared: z.array(z.string()).describe("Fact paths set from the metadata."),
    conflicts: z
      .array(z.string())
      .describe("Declared facts that disagree with measured ones (measured used)."),
    missing: z.array(z.string()).describe("Fact paths without data in the window (unknown, not zero)."),
    exporters: z.object({ untorn: z.boolean(), mysqldExporter: z.boolean() }).strict(),
  })
  .strict()
  .meta({
    title: "GET /api/v1/instances/{id}",
    description: "One instance: facts, verdict with evidence, gate, findings.",
  });

/** GET /api/v1/rollouts's parameters. */
export const rolloutListQuerySchema = z
  .object({
    status: z
      .string()
      .max(200)
      .transform((v, ctx) => {
        const parts = v.split(",").map((x) => x.trim());
        const bad = parts.filter((x) => !(ROLLOUT_STATUSES as readonly string[]).includes(x));
        if (bad.length > 0) {
          ctx.addIssue({
            code: "custom",
            message: `has ${bad.map((b) => JSON.stringify(b)).join(", ")}; use ${ROLLOUT_STATUSES.join(", ")} (comma-separated)`,
          });
          return z.NEVER;
        }
        return [...new Set(parts)] as (typeof ROLLOUT_STATUSES)[number][];
      })
      .optional()
      .describe(`Only rollouts in these states, comma-separated: ${ROLLOUT_STATUSES.join(", ")}.`),
    limit: z
      .string()
      .regex(/^\d{1,4}$/, "must be a whole number")
      .transform(Number)
      .pipe(z.number().int().min(1, "must be at least 1").max(1000, "must be at most 1000"))
      .optional()
      .describe("At most this many rollouts (1 to 1000, default 100), newest first before ordering."),
  })
  .strict()
  .meta({ title: "GET /api/v1/rollouts parameters", description: "Filters of the rollout list." });

const lastGateSchema = z
  .object({
    gate: z.enum(GATE_KINDS),
    wave: z.number().int(),
    instance: z.string().nullable(),
    outcome: z.enum(GATE_OUTCOMES),
    at: z.number().describe("Unix seconds."),
    summary: z.string(),
  })
  .strict();

export const rolloutSummarySchema = z
  .object({
    id: z.string(),
    title: z.string(),
    change: z.string().describe("The change in one line."),
    status: z.enum(ROLLOUT_STATUSES),
    version: z.number().int().describe("The store's version: what a command's expected version refers to."),
    progress: z
      .object({
        done: z.number().int().describe("Waves passed (or accepted after an inconclusive judgement)."),
        total: z.number().int(),
        text: z.string(),
      })
      .strict(),
    currentWave: z.number().int().nullable(),
    lastGate: lastGateSchema.nullable().describe("The latest gate decision, or null before any."),
    createdBy: z.string(),
    createdAt: iso.describe(
      "On the rollout's clock: on a recorded fleet, the recording's end for every rollout made on it.",
    ),
    storedAt: iso.describe("When the store saved the rollout, on the wall clock."),
    updatedAt: iso,
    updatedBy: z.string(),
    problem: z
      .string()
      .nullable()
      .describe("Set when the stored document does not parse with this Untorn's schema."),
  })
  .strict();

export const rolloutListResponseSchema = z
  .object({
    count: z.number().int().nonnegative(),
    limit: z.number().int().positive(),
    rollouts: z
      .array(rolloutSummarySchema)
      .describe("Active first (active, paused, halted, reverting), then finished; newest first in each."),
  })
  .strict()
  .meta({ title: "GET /api/v1/rollouts", description: "Rollouts, active first." });

export const rolloutResponseSchema = z
  .object({
    summary: rolloutSummarySchema,
    document: rolloutStateSchema.describe("The whole stored state: plan, waves, instances and audit."),
    events: z
      .array(eventSchema.omit({ gate: true, output: true }))
      .describe("The audit timeline, oldest first (gate evidence under gates, hook output in document)."),
    gates: z.array(gateResultSchema).describe("Every gate decision with its evidence, oldest first."),
    next: z
      .object({
        human: z.array(
          z
            .object({
              kind: z.string(),
              wave: z.number().int().optional(),
              instance: z.string().optional(),
              message: z.string(),
            })
            .strict(),
        ),
        wakeAt: z.number().nullable().describe("When a time-based gate moves by itself (Unix seconds)."),
      })
      .strict()
      .describe("What a person has to do now, and when the reconciler acts next."),
  })
  .strict()
  .meta({ title: "GET /api/v1/rollouts/{id}", description: "One rollout: document, timeline and gates." });

export type RolloutSummaryJson = z.infer<typeof rolloutSummarySchema>;
export type RolloutListResponse = z.infer<typeof rolloutListResponseSchema>;
export type RolloutResponse = z.infer<typeof rolloutResponseSchema>;
export type FleetResponse = z.infer<typeof fleetResponseSchema>;
export type InstanceResponse = z.infer<typeof instanceResponseSchema>;
export type ErrorResponse = z.infer<typeof errorSchema>;

/** The documented files: docs/schemas/<name>. */
export const API_SCHEMAS = {
  "api-fleet-query.schema.json": { schema: fleetApiQuerySchema, io: "input" },
  "api-fleet.schema.json": { schema: fleetResponseSchema, io: "output" },
  "api-instance.schema.json": { schema: instanceResponseSchema, io: "output" },
  "api-error.schema.json": { schema: errorSchema, io: "output" },
  "api-rollouts-query.schema.json": { schema: rolloutListQuerySchema, io: "input" },
  "api-rollouts.schema.json": { schema: rolloutListResponseSchema, io: "output" },
  "api-rollout.schema.json": { schema: rolloutResponseSchema, io: "output" },
} as const;

export function renderApiSchema(name: keyof typeof API_SCHEMAS): string {
  const { schema, io } = API_SCHEMAS[name];
  const json = z.toJSONSchema(schema, { target: "draft-2020-12", io, unrepresentable: "any" });
  return `${JSON.stringify(json, null, 2)}\n`;
}
