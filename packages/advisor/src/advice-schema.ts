/**
 * The advisor's output as zod schemas: what `advise()` returns (Advice) and its parts. The web API's
 * instance response (docs/schemas/api-instance.schema.json) and `untorn advise --json`
 * (docs/schemas/cli-advise.schema.json) are generated from them; advice-schema.test.ts checks real advice
 * against them and that the Advice type fits the schema.
 */
import { DOUBLEWRITE_LOCATIONS } from "@untorn/vocabulary/capabilities";
import { FLAVORS, GATE_PATHS, GATE_STATUSES as GATES, SEVERITIES, VERDICTS } from "@untorn/vocabulary/words";
import { z } from "zod";
import { instanceFactsSchema } from "./facts.js";

const unitSchema = z.string().describe("Unit: ratio, bytes/s, seconds, pages/s, ...");

const evidenceSchema = z
  .object({
    signal: z.string(),
    label: z.string(),
    indicator: z.string(),
    value: z.number().nullable(),
    statistic: z.enum(["avg", "p95"]),
    unit: unitSchema,
    threshold: z.object({ partial: z.number(), strong: z.number() }).strict(),
    state: z.enum(["strong", "partial", "clear", "missing", "not-applicable"]),
    score: z.number(),
    weight: z.number(),
    why: z.string(),
    howToGet: z.string().optional(),
  })
  .strict();

export const verdictSchema = z
  .object({
    verdict: z.enum(VERDICTS),
    score: z.number().min(0).max(1),
    confidence: z.number().min(0).max(1),
    evidence: z.array(evidenceSchema).describe("The evidence chain: one entry per signal."),
    context: z.array(z.string()),
    toSettle: z
      .array(z.string())
      .describe("Missing signals that would settle an unknown or weak verdict, each with how to collect it."),
    summary: z.string(),
  })
  .strict();

export const inputWarningSchema = z
  .object({
    code: z.enum(["contradicted", "ignored", "overridden"]),
    path: z.string().describe("The fact the warning is about, e.g. storage.atomicWrite.unitMaxBytes."),
    message: z.string(),
  })
  .strict();

const gateCheckSchema = z
  .object({
    id: z.string(),
    path: z.enum(GATE_PATHS),
    label: z.string(),
    status: z.enum(["pass", "fail", "unknown", "not-established", "not-applicable"]),
    blocking: z.boolean(),
    detail: z.string(),
    fix: z.string().optional(),
    source: z.string(),
  })
  .strict();

export const gateSchema = z
  .object({
    status: z.enum(GATES),
    path: z.enum(GATE_PATHS).nullable(),
    summary: z.string(),
    checks: z.array(gateCheckSchema),
    toVerify: z.array(z.string()),
    blockers: z.array(z.string()),
    providerManaged: z.boolean(),
    demoOnly: z.boolean(),
  })
  .strict();

const rangeSchema = z.object({ low: z.number(), high: z.number() }).strict();

const gainSchema = z
  .object({
    throughput: rangeSchema,
    writeBytesPerTxn: rangeSchema.nullable(),
    writeOpsPerTxn: rangeSchema.nullable(),
    fsyncsPerTxn: rangeSchema.nullable(),
    kind: z.enum(["throughput", "efficiency", "none"]),
    binding: z.enum(["iops-per-request", "iops-16k", "bandwidth", "device", "unknown"]),
    share: z.number().nullable(),
    basis: z.string(),
    citations: z
      .array(z.string())
      .describe(
        "Sections of the domain reference the estimate rests on, as docs/reference/<page>.md §N; the console serves each at /docs/reference/<page>#sN.",
      ),
  })
  .strict();

const actionSchema = z
  .object({
    platform: z.string().describe("mysql-option-file, mariadb-runtime, aws-rds, host, ..."),
    title: z.string(),
    steps: z.array(z.string()),
    snippets: z.array(z.object({ language: z.enum(["ini", "sql", "shell"]), text: z.string() }).strict()),
    restart: z.boolean(),
    changes: z.array(
      z
        .object({
          variable: z.string(),
          from: z.string().nullable(),
          to: z.string(),
          via: z.enum(["option-file", "runtime", "parameter-group", "blue-green", "console", "host"]),
          restart: z.boolean(),
          removesTornPageProtection: z.boolean(),
        })
        .strict(),
    ),
  })
  .strict();

export const findingSchema = z
  .object({
    ruleId: z.string(),
    severity: z.enum(SEVERITIES),
    title: z.string(),
    summary: z.string(),
    evidence: z.array(
      z
        .object({
          label: z.string(),
          value: z.union([z.number(), z.string()]).nullable(),
          unit: z.string().optional(),
        })
        .strict(),
    ),
    actions: z.array(actionSchema),
    expectedGain: gainSchema.nullable(),
    risk: z.object({ level: z.enum(["none", "low", "medium", "high"]), text: z.string() }).strict(),
    prerequisites: z.array(z.string()),
    docs: z
      .string()
      .describe("Repository path of the rule's page; the console serves it under /docs/rules/<id>."),
    blocked: z
      .object({ gate: z.enum(GATES), reason: z.string(), toVerify: z.array(z.string()) })
      .strict()
      .nullable(),
    confidence: z.number().min(0).max(1),
  })
  .strict();

export const indicatorSchema = z
  .object({
    id: z.string(),
    label: z.string(),
    unit: unitSchema,
    value: z.number().nullable(),
    peak: z.number().nullable(),
    basis: z.string(),
    missing: z.array(z.string()),
    note: z.string().optional(),
  })
  .strict();

/** The derived indicators, by id, and the data-quality notes (Profile). */
export const profileSchema = z
  .object({ indicators: z.record(z.string(), indicatorSchema), notes: z.array(z.string()) })
  .strict();

const versionSchema = z
  .object({ major: z.number().int(), minor: z.number().int(), patch: z.number().int() })
  .strict();

/** What the flavor and version can do about doublewrite (docs/reference/versions.md §0 as data). */
export const capabilitiesSchema = z
  .object({
    flavor: z.enum(FLAVORS),
    version: versionSchema,
    mysqlLineage: z.boolean(),
    doublewriteLocation: z.enum(DOUBLEWRITE_LOCATIONS),
    detectOnly: z.boolean(),
    runtimeBetweenEnabledModes: z.boolean(),
    runtimeOff: z.boolean(),
    runtimeOffUnknown: z.boolean(),
    fastMode: z.boolean(),
    persistRefused: z.boolean(),
    doublewritePagesVariable: z.boolean(),
    defaultDoublewritePages: z.union([z.number(), z.literal("write_io_threads"), z.null()]),
    dblwrFileInstrument: z.boolean(),
    innodbMetricsDblwr: z.boolean(),
    dataFileBufferingVariable: z.boolean(),
    dataWrittenUndercountsDoublewrite: z.boolean(),
    rdsOptimizedWritesVersion: z.boolean(),
    checkpointAgeStatus: z.boolean(),
  })
  .strict();

/** One instance's advice: what `advise()` returns. */
export const adviceSchema = z
  .object({
    identity: instanceFactsSchema.shape.identity,
    server: z
      .object({ flavor: z.enum(FLAVORS), version: z.string(), capabilities: capabilitiesSchema })
      .strict(),
    profile: profileSchema,
    verdict: verdictSchema,
    findings: z.array(findingSchema),
    safetyGate: gateSchema,
    warnings: z
      .array(inputWarningSchema)
      .describe("Facts the advisor found contradicted, ignored or overridden (docs/advisor.md)."),
  })
  .strict();
