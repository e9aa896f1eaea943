/**
 * The knobs of a rollout: blast radius, pre-wave limits, bake and warm-up, success criteria of the
 * judge and the anti-flap limits (after Argo Rollouts' AnalysisRun limits and Kayenta's NODATA rule).
 * Every field has a default, so `{}` parses.
 */
import { FILE_CLASSES } from "@untorn/catalog/metrics";
import { z } from "zod";

/** A metric the judge compares: an id of a catalog signal (packages/catalog/src/signals.ts). */
export const judgedMetricSchema = z.strictObject({
  metric: z.string().min(1).max(128).describe("Catalog signal id, e.g. write_bytes_per_transaction."),
  kind: z.enum(["throughput", "latency", "efficiency"]),
  classes: z
    .array(z.enum(FILE_CLASSES))
    .optional()
    .describe("For per-file-class signals (file_write_latency_seconds...): the classes to read, summed."),
  /**
   * guardrail: must not regress beyond `margin`; expected: must move the expected way (and by at least
   * `minChange`); informative: reported, never decides (Argo Rollouts `dryRun` metrics).
   */
  role: z.enum(["guardrail", "expected", "informative"]),
  margin: z
    .number()
    .min(0)
    .max(1)
    .default(0.05)
    .describe("Relative regression tolerated by a guardrail (0.05 = 5%)."),
  expect: z.enum(["decrease", "increase"]).optional().describe("For role expected."),
  minChange: z
    .number()
    .min(0)
    .max(1)
    .default(0)
    .describe("For role expected: smallest relative change that counts (0 = any significant change)."),
});
export type JudgedMetric = z.infer<typeof judgedMetricSchema>;

/**
 * The replication catch-up judgement of a bake (catch-up.ts): the changed replica's apply rate over the
 * samples where it or its control lagged, vs the control's, after vs before the change.
 */
export const catchUpPolicySchema = z
  .strictObject({
    role: z
      .enum(["guardrail", "expected", "informative"])
      .default("informative")
      .describe(
        "informative (default): reported, never decides; expected: a lagging replica must apply significantly faster; guardrail: its apply rate while lagging must not fall beyond margin. Not applicable (neither lagged) never decides.",
      ),
    lagThresholdSeconds: z
      .number()
      .min(0)
      .max(86_400)
      .default(5)
      .describe(
        "A sample counts as lagging above this replication lag. Seconds_Behind_Source has 1 s resolution and reads 0 to 2 s on a replica that keeps up under load: 5 s means a backlog.",
      ),
    minLaggingSeconds: z
      .number()
      .int()
      .min(0)
      .default(60)
      .describe(
        "The judgement applies when the changed replica or its control lagged at least this long during the bake; otherwise not applicable.",
      ),
    margin: z.number().min(0).max(1).default(0.05).describe("For role guardrail: relative fall tolerated."),
    minChange: z
      .number()
      .min(0)
      .max(1)
      .default(0)
      .describe("For role expected: smallest relative gain that counts."),
  })
  .describe("Replication catch-up: judged where a replica lagged during the bake.");

export const applierSchema = z
  .discriminatedUnion("kind", [
    z.strictObject({ kind: z.literal("operator") }),
    z.strictObject({
      kind: z.literal("hook"),
      hook: z.string().min(1).max(128).describe("Name of a hook configured on the reconciler's side."),
    }),
  ])
  .describe("Who carries out each step: the operator marks it done, or a configured hook runs it.");
export type Applier = z.infer<typeof applierSchema>;

export const policySchema = z
  .strictObject({
    maxInstancesPerWave: z
      .number()
      .int()
      .min(1)
      .max(1000)
      .default(2)
      .describe("Blast radius: instances changed in one wave."),
    maxClusterShare: z
      .number()
      .gt(0)
      .max(1)
      .default(0.5)
      .describe("Blast radius: share of a cluster's replicas changed in one wave (at least one)."),
    includePrimaries: z.boolean().default(true).describe("Plan a last wave of primaries, by switchover."),
    requireControl: z
      .boolean()
      .default(true)
      .describe(
        "Exclude replicas whose cluster has no second replica to serve as the concurrent control, and standalone servers; false judges them before/after.",
      ),
    approval: z
      .enum(["each-wave", "first-wave"])
      .default("each-wave")
      .describe(
        "each-wave: every wave waits for an approve; first-wave: later waves start when the previous passed.",
      ),
    maxReplicationLagSeconds: z.number().min(0).default(30),
    backupMaxAgeSeconds: z
      .number()
      .int()
      .min(60)
      .default(86_400)
      .describe("A wave starts only if the operator attested a backup taken at most this long before."),
    verifyTimeoutSeconds: z
      .number()
      .int()
      .min(30)
      .default(1800)
      .describe("How long after a step the read-back may take to match before the step gate fails."),
    verifyConsecutive: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(2)
      .describe("Matching read-backs in a row (at different times) that verify a step."),
    warmupSeconds: z
      .number()
      .int()
      .min(0)
      .default(600)
      .describe("Excluded after a restart (cold buffer pool) before the bake starts."),
    bakeSeconds: z
      .number()
      .int()
      .min(60)
      .default(1800)
      .describe(
        "judgement sequential: the maximum bake, after which an undecided wave is inconclusive (a human decides); the bake ends as soon as the judgement is decided. judgement fixed: the bake's length.",
      ),
    judgement: z
      .enum(["sequential", "fixed"])
      .default("sequential")
      .describe(
        "sequential (default): judged at every look (lookEverySeconds) against the baseline from history, with an interval that keeps alpha over all the looks up to bakeSeconds; the first decided look decides the wave. fixed: judged after bakeSeconds, then every evaluationIntervalSeconds, consecutiveSuccessLimit passes in a row.",
      ),
    lookEverySeconds: z
      .number()
      .int()
      .min(15)
      .max(3600)
      .default(60)
      .describe("judgement sequential: time between two looks at a bake (the reconciler's judgements)."),
    baselineSeconds: z
      .number()
      .int()
      .min(300)
      .max(30 * 86_400)
      .default(3600)
      .describe(
        "judgement sequential: length of the baseline read from the metrics history before the first change of the wave; capped at the earliest sample Prometheus holds and cut after restarts in it (the judgement says so). One hour decides a −45% bytes-per-transaction effect within 5 minutes of bake at 10% noise (BENCHMARKS.md).",
      ),
    evaluationIntervalSeconds: z
      .number()
      .int()
      .min(30)
      .default(600)
      .describe("judgement fixed: time between two judgements of the same wave (the after window grows)."),
    consecutiveSuccessLimit: z.number().int().min(1).max(10).default(2),
    failureLimit: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(2)
      .describe("Consecutive fail judgements that fail the wave."),
    inconclusiveLimit: z
      .number()
      .int()
      .min(1)
      .max(10)
      .default(2)
      .describe("Consecutive inconclusive (or no-data) judgements that pause for a human."),
    maxEvaluations: z
      .number()
      .int()
      .min(1)
      .max(100)
      .default(8)
      .describe("A wave still undecided after this many judgements pauses as inconclusive."),
    alpha: z.number().gt(0).lt(0.5).default(0.05),
    minSamples: z
      .number()
      .int()
      .min(2)
      .default(20)
      .describe("Per window and series, passed to @untorn/compare."),
    minBlocks: z.number().int().min(3).default(6),
    blockSeconds: z
      .union([z.literal("auto"), z.number().int().min(1).max(86_400)])
      .default("auto")
      .describe(
        "Block length of the comparison, passed to @untorn/compare (auto: 300, 120 or 60 s, at least 12 blocks per window where the windows allow). Shorter blocks give a short bake more blocks; compare still accounts for the dependence between them.",
      ),
    metrics: z
      .array(judgedMetricSchema)
      .max(32)
      .optional()
      .describe("Judged metrics; default: the change kind's defaults (see defaultMetrics)."),
    catchUp: catchUpPolicySchema.prefault({}),
    applier: applierSchema.default({ kind: "operator" }),
  })
  .meta({ id: "RolloutPolicy", description: "Rollout knobs; every field has a default." });
export type Policy = z.infer<typeof policySchema>;
export type PolicyInput = z.input<typeof policySchema>;
