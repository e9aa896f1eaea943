/**
 * One fleet table row and the fleet summary: what the fleet page and GET /api/v1/fleet show per instance.
 * The zod schemas are the API's documented response shape (docs/schemas/api-fleet.schema.json); the
 * enums are the vocabulary's (dependency-free, so client code does not pull the advisor into the browser).
 */
import {
  DOUBLEWRITE_MODES,
  type DoublewriteMode,
  FLAVORS,
  type Flavor,
  GAIN_KINDS,
  GATE_PATHS,
  GATE_STATUSES,
  type GateStatus,
  REPLICATION_ROLES,
  type ReplicationRole,
  SEVERITIES,
  VERDICTS,
  type VerdictKind,
} from "@untorn/vocabulary/words";
import { z } from "zod";

const ratio = z.number().min(0).max(1);
const range = z.object({ low: z.number(), high: z.number() }).strict();

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
    gate: z
      .object({
        status: z.enum(GATE_STATUSES),
        path: z.enum(GATE_PATHS).nullable(),
        providerManaged: z.boolean(),
        summary: z.string(),
      })
      .strict()
      .describe("Safety gate for turning doublewrite off: is every page write verified atomic?"),
    verdict: z.enum(VERDICTS),
    confidence: ratio.describe("Confidence of the write-bound verdict, 0-1."),
    amplification: z
      .number()
      .nonnegative()
      .nullable()
      .describe("Doublewrite pages ÷ data pages flushed (1 = every page written twice); null = unknown."),
    dblwrShare: ratio.nullable().describe("Doublewrite's share of write bytes; null = unknown."),
    dblwrShareBasis: z
      .enum(["device", "innodb"])
      .nullable()
      .describe(
        "device: of the bytes the datadir's device wrote; innodb: of InnoDB's data bytes (no device data).",
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
    worstSeverity: z.enum(SEVERITIES).nullable(),
    findings: z.number().int().nonnegative(),
    exporters: z.object({ untorn: z.boolean(), mysqldExporter: z.boolean() }).strict(),
    stale: z.boolean().describe("From the last good snapshot while the source is failing."),
  })
  .strict();

export type FleetRow = z.infer<typeof fleetRowSchema>;

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
      .describe("Write-bound or likely instances with doublewrite on whose gate is not verified."),
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

/** What the fleet table needs of a row (FleetRow has it all; the browser gets this much, lib/table-rows.ts). */
export interface TableRow {
  readonly rank: number;
  readonly instance: string;
  readonly cluster: string | null;
  readonly role: ReplicationRole | null;
  readonly flavor: Flavor;
  readonly version: string;
  readonly doublewrite: DoublewriteMode | null;
  readonly gate: { readonly status: GateStatus };
  readonly verdict: VerdictKind;
  readonly confidence: number;
  readonly amplification: number | null;
  readonly dblwrShare: number | null;
  readonly dblwrShareBasis: "device" | "innodb" | null;
  readonly gain: {
    readonly kind: (typeof GAIN_KINDS)[number];
    readonly throughput: { readonly low: number; readonly high: number };
    readonly writeBytesPerTxn: { readonly low: number; readonly high: number } | null;
    readonly blocked: boolean;
  } | null;
  readonly benefit: number;
}
