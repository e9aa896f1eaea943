/**
 * Observations: plain data the caller fetched (Prometheus through the catalog's signals, the fleet
 * layer's InstanceFacts) and hands to `reconcile`. Missing is never a pass: a field left null is
 * "no data" and keeps (or fails) the gate that needed it.
 */
import { instanceFactsSchema } from "@untorn/advisor/facts";
import { SeriesPair } from "@untorn/compare/input";
import { z } from "zod";
import { activeRolloutSchema } from "./plan.js";

const unixSeconds = z.number().finite().describe("Unix time in seconds.");

/**
 * Catalog signal ids (packages/catalog/src/signals.ts) the I/O side reads for each read-back field, so
 * no PromQL is written outside the catalog.
 */
export const READ_BACK_SIGNALS = {
  up: "mysql_up",
  doublewriteMode: "doublewrite_mode",
  configInfo: "innodb_config_info",
  doublewritePages: "doublewrite_pages_setting",
  doublewritePagesPerSecond: "doublewrite_pages_per_second",
  uptimeSeconds: "uptime_seconds",
} as const;

/** Replication state of a replica (the exporter's replication collector, with mysqld_exporter fallbacks). */
export const replicationSchema = z.strictObject({
  ioRunning: z.boolean().nullable(),
  sqlRunning: z.boolean().nullable(),
  lagSeconds: z.number().min(0).nullable(),
});
export type Replication = z.infer<typeof replicationSchema>;

/** What the pre-wave gate needs about one instance, read at `at`. */
export const healthSchema = z.strictObject({
  instance: z.string(),
  at: unixSeconds,
  facts: instanceFactsSchema
    .nullable()
    .describe("Fresh InstanceFacts: the safety gate is re-evaluated from them."),
  replication: replicationSchema.nullable().describe("null for a primary, or when nothing collects it."),
});
export type Health = z.infer<typeof healthSchema>;

/**
 * The read-back of one instance after its step: signal doublewrite_mode (label `mode`), signal
 * innodb_config_info (its labels), doublewrite_pages_setting, doublewrite_pages_per_second and uptime.
 */
export const readBackSchema = z.strictObject({
  instance: z.string(),
  at: unixSeconds,
  up: z.boolean().nullable(),
  doublewriteMode: z.string().nullable(),
  configInfo: z.record(z.string(), z.string()).nullable(),
  doublewritePages: z.number().nullable(),
  doublewritePagesPerSecond: z.number().min(0).nullable(),
  uptimeSeconds: z.number().min(0).nullable(),
  /** The advisor's safety gate from fresh facts (storage migration only). */
  gate: z.enum(["verified", "unverified", "unsafe"]).nullable().optional(),
});
export type ReadBack = z.infer<typeof readBackSchema>;

/** Series of one wave's judged metrics over the windows `nextActions` asked for. */
export const bakeSeriesSchema = z.strictObject({
  wave: z.number().int().min(0),
  windows: z.strictObject({
    before: z.strictObject({ start: unixSeconds, end: unixSeconds }),
    after: z.strictObject({ start: unixSeconds, end: unixSeconds }),
  }),
  instances: z.array(
    z.strictObject({
      id: z.string(),
      series: z.record(z.string(), SeriesPair).describe("Per judged metric id (catalog signal id)."),
      restarts: z.array(unixSeconds).optional(),
    }),
  ),
  notes: z
    .array(z.string())
    .optional()
    .describe(
      "What the reconciler did to the baseline from history: capped at the earliest sample Prometheus holds, cut after a restart or another change; the judgement repeats them.",
    ),
});
export type BakeSeries = z.infer<typeof bakeSeriesSchema>;

export const observationsSchema = z
  .strictObject({
    health: z.array(healthSchema).default([]),
    readBacks: z.array(readBackSchema).default([]),
    bakes: z.array(bakeSeriesSchema).default([]),
    activeRollouts: z
      .array(activeRolloutSchema)
      .nullable()
      .default(null)
      .describe("Other active rollouts now; null = not looked up (the pre-wave gate then waits)."),
  })
  .meta({ id: "RolloutObservations", description: "What the reconciler fetched for reconcile()." });
export type Observations = z.output<typeof observationsSchema>;
export type ObservationsInput = z.input<typeof observationsSchema>;
