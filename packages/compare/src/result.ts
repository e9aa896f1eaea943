import { z } from "zod";
import { DIRECTIONS, METRIC_KINDS, Options } from "./input.js";

export const VERDICTS = ["improved", "unchanged", "regressed", "inconclusive", "no_data", "changed"] as const;
export type Verdict = (typeof VERDICTS)[number];

/** Data-quality and analysis flags. Severity says whether the verdict can be trusted as it is. */
export const FLAG_CODES = [
  "no_data",
  "too_little_data",
  "non_finite",
  "negative_values",
  "unsorted",
  "duplicate_timestamps",
  "bad_timestamps",
  "counter_reset",
  "gaps",
  "warmup_excluded",
  "windows_overlap",
  "seasonality_matched",
  "seasonality_unmatched",
  "control_missing",
  "control_divergence",
  "workload_mismatch",
  "demand_driven",
  "zero_values",
  "zero_baseline",
  "outliers",
  "dispersion_increased",
  "dispersion_decreased",
  "high_autocorrelation",
  "interval_widened",
  "method_fallback",
  "sequential",
  "baseline_noise",
] as const;
export type FlagCode = (typeof FLAG_CODES)[number];

export const Flag = z.strictObject({
  code: z.enum(FLAG_CODES),
  severity: z.enum(["info", "warning", "error"]),
  message: z.string(),
  window: z.enum(["before", "after"]).optional(),
});
export type Flag = z.infer<typeof Flag>;

export const DESIGNS = ["before-after", "matched-hours", "difference-in-differences", "none"] as const;
export type Design = (typeof DESIGNS)[number];
export const RESULT_METHODS = [
  "block-t",
  "block-bootstrap",
  "hodges-lehmann",
  "sequential",
  "baseline-noise",
  "none",
] as const;
export type ResultMethod = (typeof RESULT_METHODS)[number];

const Ratio = z.number().nullable();

export const SeriesResult = z.strictObject({
  instance: z.string(),
  role: z.enum(["treated", "control"]),
  metric: z.string(),
  kind: z.enum(METRIC_KINDS),
  direction: z.enum(DIRECTIONS),
  unit: z.string().optional(),
  verdict: z
    .enum(VERDICTS)
    .nullable()
    .describe("null on control rows: a control is the reference of the comparison, it is not judged."),
  ratio: Ratio.describe(
    "Effect as a ratio: after/before (ratio of means, or exp of the Hodges–Lehmann shift of log values); with controls, the ratio of ratios.",
  ),
  ciLow: Ratio,
  ciHigh: Ratio,
  pValue: z.number().nullable(),
  /** Standard error of ln(ratio), used to pool instances; derived from the CI when the method has none. */
  logSe: z.number().nullable(),
  estimand: z.enum(["ratio-of-means", "hodges-lehmann-ratio", "geometric-mean-ratio", "none"]),
  method: z.enum(RESULT_METHODS),
  design: z.enum(DESIGNS),
  controls: z.array(z.string()).describe("Control instances used (difference in differences)."),
  meanBefore: z
    .number()
    .nullable()
    .describe(
      "Mean of this instance's own usable samples, before window (raw level, never control-adjusted).",
    ),
  meanAfter: z
    .number()
    .nullable()
    .describe(
      "Mean of this instance's own usable samples, after window (raw level, never control-adjusted).",
    ),
  nBefore: z.number().int(),
  nAfter: z.number().int(),
  blocksBefore: z.number().int(),
  blocksAfter: z.number().int(),
  blockSeconds: z.number().nullable(),
  autocorrelation: z
    .number()
    .nullable()
    .describe("Lag-1 autocorrelation of block residuals (bias-corrected)."),
  flags: z.array(Flag),
  carriesVerdict: z.boolean().describe("Whether this result counts towards the overall verdict."),
});
export type SeriesResult = z.infer<typeof SeriesResult>;

export const MetricSummary = z.strictObject({
  metric: z.string(),
  kind: z.enum(METRIC_KINDS),
  direction: z.enum(DIRECTIONS),
  unit: z.string().optional(),
  instances: z.number().int().describe("Treated instances pooled."),
  vsControl: z
    .boolean()
    .describe("true: the change is relative to the control instances (difference in differences)."),
  ratio: Ratio,
  ciLow: Ratio.describe("Lower limit of the interval the verdict is based on (see ciAdjustment)."),
  ciHigh: Ratio.describe("Upper limit of the interval the verdict is based on; null = unbounded."),
  ciLevel: z
    .number()
    .describe(
      "Confidence level of ciLow..ciHigh: 1 − alpha, or 1 − alpha/k when k metrics carry the verdict.",
    ),
  ciAdjustment: z
    .enum(["none", "bonferroni"])
    .describe(
      "bonferroni: ciLow..ciHigh is simultaneous over the k metrics that carry the verdict (each at 1 − alpha/k).",
    ),
  ciLowUnadjusted: Ratio.describe("The metric's own 1 − alpha interval, before the adjustment."),
  ciHighUnadjusted: Ratio,
  pValue: z.number().nullable(),
  pValueAdjusted: z
    .number()
    .nullable()
    .describe("Bonferroni-adjusted (min(1, k·p)) across the k metrics that carry the verdict."),
  heterogeneity: z.number().nullable().describe("I² across treated instances (0..1)."),
  verdict: z.enum(VERDICTS),
  carriesVerdict: z.boolean(),
  note: z.string().optional(),
});
export type MetricSummary = z.infer<typeof MetricSummary>;

export const WorkloadCheck = z.strictObject({
  instance: z.string(),
  metrics: z.array(z.string()),
  volumeRatio: Ratio.describe("Change of total workload (with controls: relative to them)."),
  volumeCiLow: Ratio,
  volumeCiHigh: Ratio,
  volumePValue: z.number().nullable(),
  mixDistance: z.number().nullable().describe("Total variation distance of the workload mix shift (0..1)."),
  flagged: z.boolean(),
  reasons: z.array(z.string()),
});
export type WorkloadCheck = z.infer<typeof WorkloadCheck>;

export const Overall = z.strictObject({
  verdict: z.enum(VERDICTS),
  reasons: z.array(z.string()),
  carriedBy: z.array(z.string()).describe("Metric ids that decided the verdict."),
  designs: z.array(z.enum(DESIGNS)),
  throughput: z.strictObject({
    demandDriven: z
      .boolean()
      .nullable()
      .describe(
        "true: throughput held within ±margin while efficiency, latency or wait moved; false: capacity-bound, with corroboration; null: not shown either way.",
      ),
    margin: z.number().describe("options.throughputMargin: the ±margin of the equivalence test."),
    message: z.string(),
  }),
  workloadMismatch: z.boolean(),
});
export type Overall = z.infer<typeof Overall>;

export const ComparisonResult = z
  .strictObject({
    version: z.literal(1),
    seed: z.number().int(),
    options: Options,
    overall: Overall,
    metrics: z.array(MetricSummary),
    results: z.array(SeriesResult),
    workload: z.array(WorkloadCheck),
  })
  .describe("Result of a before/after comparison (@untorn/compare).");
export type ComparisonResult = z.infer<typeof ComparisonResult>;
