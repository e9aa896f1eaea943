/**
 * The fleet's one row type: what the fleet table shows of each instance, in the web app (fleet page,
 * GET /api/v1/fleet) and in the CLI (`untorn fleet`, `untorn advise` over an array), and the fleet summary.
 * rows.ts builds them from the advisor's ranking, advice and facts (one builder for both).
 *
 * This module is the schema only, built from @untorn/vocabulary's words and zod: the browser imports it
 * (the web app's table), so it must not pull the advisor or the fact builder into the client bundle.
 *
 * - `fleetRowSchema`: the row. The web app adds which exporters it saw and whether the row comes from the
 *   last good snapshot (`exporters`, `stale`: docs/schemas/api-fleet.schema.json); the CLI adds the
 *   ranking's detail (`rankedFleetRowSchema`). Rows do not depend on the exporters, so facts advised
 *   offline (`untorn advise`) give the same rows as facts read from Prometheus.
 */
import type { FleetItem } from "@untorn/advisor/fleet";
import {
  DOUBLEWRITE_MODES,
  FLAVORS,
  GAIN_KINDS,
  GATE_PATHS,
  GATE_STATUSES,
  REPLICATION_ROLES,
  SEVERITIES,
  SHARE_BASES,
  VERDICTS,
} from "@untorn/vocabulary/words";
import { z } from "zod";

const ratio = z.number().min(0).max(1);
const range = z.object({ low: z.number(), high: z.number() }).strict();

export const rowGateSchema = z
  .object({
    status: z.enum(GATE_STATUSES),
    path: z.enum(GATE_PATHS).nullable(),
    providerManaged: z.boolean(),
    demoOnly: z
      .boolean()
      .describe(
        "The verification rests on torn-write protection declared for a demo only, not on real storage.",
      ),
    summary: z.string(),
  })
  .strict()
  .describe("Safety gate for turning doublewrite off: is every page write verified atomic?");

export const fleetRowSchema = z
  .object({
    rank: z.number().int().positive().describe("Position in the advisor's fleet ranking (1 = most to gain)."),
    instance: z.string().min(1).describe("Prometheus instance label."),
    cluster: z.string().nullable(),
    role: z.enum(REPLICATION_ROLES).nullable(),
    flavor: z.enum(FLAVORS),
    version: z.string(),
    doublewrite: z
      .enum(DOUBLEWRITE_MODES)
      .nullable()
      .describe("innodb_doublewrite, normalised; null = unknown."),
    gate: rowGateSchema,
    verdict: z.enum(VERDICTS),
    confidence: ratio.describe("Confidence of the write-bound verdict, 0-1."),
    amplification: z
      .number()
      .nonnegative()
      .nullable()
      .describe("Doublewrite pages ÷ data pages flushed (1 = every page written twice); null = unknown."),
    dblwrShare: ratio.nullable().describe("Doublewrite's share of write bytes; null = unknown."),
    dblwrShareBasis: z
      .enum(SHARE_BASES)
      .nullable()
      .describe(
        "device: of the bytes the datadir's device wrote; innodb: of InnoDB's data bytes (no device data); shared-device: of InnoDB's data bytes, because other instances or processes wrote most of the device's bytes.",
      ),
    dblwrBytesPerSecond: z.number().nonnegative().nullable().describe("Doublewrite write bytes per second."),
    gain: z
      .object({
        ruleId: z.string(),
        title: z.string(),
        kind: z.enum(GAIN_KINDS),
        throughput: range.describe("Relative change of the achievable write-transaction rate (0.3 = +30%)."),
        writeBytesPerTxn: range.nullable().describe("Relative reduction of write bytes per transaction."),
        blocked: z.boolean().describe("The gain waits for the safety gate (or an upgrade)."),
      })
      .strict()
      .nullable()
      .describe("The finding with the largest expected benefit; null when none has a gain."),
    benefit: z.number().describe("Mid-point benefit of the opportunity (the advisor's ranking input)."),
    canDropDoublewrite: z
      .boolean()
      .describe("Doublewrite is on, the gate is verified and the platform does not manage it itself."),
    waitingForGate: z
      .boolean()
      .describe("Some finding's gain waits for the safety gate (the fleet's 'Waiting for the safety gate')."),
    worstSeverity: z.enum(SEVERITIES).nullable(),
    findings: z.number().int().nonnegative(),
  })
  .strict();

export type FleetRow = z.infer<typeof fleetRowSchema>;

/** Which exporters' series the instance has (the web app's row shows it; @untorn/fleet/facts measures it). */
export const exporterPresenceSchema = z.object({ untorn: z.boolean(), mysqldExporter: z.boolean() }).strict();

/**
 * The row with the advisor ranking's detail: what `untorn fleet --json` and `untorn advise --json` print
 * per instance (docs/cli.md), and what the CLI's table reads (score, top finding).
 */
export const rankedFleetRowSchema = fleetRowSchema
  .extend({
    gate: rowGateSchema.extend({
      toVerify: z.array(z.string()).describe("What to verify before the gate can pass, most useful first."),
    }),
    verdictConfidence: ratio.describe("The same as confidence (kept for scripts written before it)."),
    opportunity: z
      .object({
        ruleId: z.string(),
        title: z.string(),
        severity: z.enum(SEVERITIES),
        expectedGain: z.unknown().describe("The finding's GainEstimate (docs/advisor.md)."),
      })
      .strict()
      .nullable()
      .describe("The finding with the largest expected benefit, as the advisor ranked it."),
    opportunityConfidence: ratio.describe("Confidence of the opportunity's finding (0 when none)."),
    score: z.number().describe("benefit × opportunityConfidence: the sort key."),
    blocked: z.boolean().describe("The opportunity waits for the safety gate (or an upgrade)."),
    dblwrShareOfDeviceWrites: ratio
      .nullable()
      .describe("Doublewrite bytes ÷ bytes the datadir's device wrote; null when unknown (no device data)."),
    topFinding: z
      .object({ ruleId: z.string(), title: z.string(), severity: z.enum(SEVERITIES) })
      .strict()
      .nullable()
      .describe("The most severe finding, or null when there is none."),
  })
  .strict();

/** The schema's row with the opportunity's gain typed (the advisor's GainEstimate; a type import only). */
export type RankedFleetRow = Omit<z.infer<typeof rankedFleetRowSchema>, "opportunity"> & {
  readonly opportunity: FleetItem["opportunity"];
};

const count = z.number().int().nonnegative();

export const fleetSummarySchema = z
  .object({
    instances: z.number().int().nonnegative(),
    skipped: z.number().int().nonnegative().describe("Instances seen without usable facts."),
    verdicts: z
      .object({ "write-bound": count, likely: count, "not-write-bound": count, unknown: count })
      .strict(),
    gates: z.object({ verified: count, unverified: count, unsafe: count }).strict(),
    canDropDoublewrite: z.number().int().nonnegative(),
    blockedByGate: z
      .number()
      .int()
      .nonnegative()
      .describe(
        "Instances with a finding whose gain waits for the safety gate (rows with waitingForGate; Recommendations counts the same findings).",
      ),
    atRisk: z.number().int().nonnegative().describe("Instances with critical or error findings."),
    savedBytesPerSecond: z
      .number()
      .nonnegative()
      .describe("Doublewrite bytes/s the instances that could safely drop doublewrite write today."),
    fleetWriteBytesPerSecond: z
      .number()
      .nonnegative()
      .nullable()
      .describe("Bytes/s written by the fleet's devices (InnoDB's bytes where no device data)."),
    savedShare: ratio.nullable().describe("savedBytesPerSecond ÷ fleetWriteBytesPerSecond."),
  })
  .strict();

export type FleetSummary = z.infer<typeof fleetSummarySchema>;
