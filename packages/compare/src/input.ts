import { z } from "zod";

/**
 * What a metric measures. `workload` metrics describe the offered load (statement or transaction mix
 * rates, replication stream bytes/s): they are never judged, they feed the workload-parity check.
 */
export const METRIC_KINDS = ["throughput", "latency", "efficiency", "wait", "workload"] as const;
export type MetricKind = (typeof METRIC_KINDS)[number];

export const DIRECTIONS = ["higher_is_better", "lower_is_better", "neutral"] as const;
export type Direction = (typeof DIRECTIONS)[number];

/** Direction used when a metric does not state one. */
export const DEFAULT_DIRECTION: Record<MetricKind, Direction> = {
  throughput: "higher_is_better",
  latency: "lower_is_better",
  // Efficiency metrics are costs per unit of work (bytes, write ops, fsyncs per transaction).
  efficiency: "lower_is_better",
  wait: "lower_is_better",
  workload: "neutral",
};

export const METHODS = ["auto", "block-t", "block-bootstrap", "hodges-lehmann"] as const;

const Id = z.string().min(1).max(256);
/**
 * Timestamps at or above this are taken for milliseconds: 1e11 s is the year 5138, while a Unix time in
 * milliseconds of any date after 1973 is above it.
 */
export const MILLISECONDS_THRESHOLD = 1e11;
const msMessage = (x: number) =>
  `${x} looks like a Unix time in milliseconds; give Unix seconds (divide by 1000)`;
const UnixSeconds = z
  .number()
  .refine((x) => Math.abs(x) < MILLISECONDS_THRESHOLD, { error: (i) => msMessage(i.input as number) })
  .describe("Unix time in seconds (not milliseconds).");

export const MetricSpec = z
  .strictObject({
    id: Id.describe("Key of this metric in every instance's `series`."),
    kind: z.enum(METRIC_KINDS),
    direction: z
      .enum(DIRECTIONS)
      .optional()
      .describe(
        "Which way is better. Defaults: throughput higher_is_better; latency, efficiency, wait lower_is_better; workload neutral.",
      ),
    unit: z.string().max(64).optional(),
    counter: z
      .boolean()
      .optional()
      .describe(
        "true when `v` holds raw cumulative counter samples; they are turned into per-second rates and counter resets are detected. Default false: `v` is already a rate or gauge.",
      ),
    description: z.string().max(1000).optional(),
  })
  .describe("A metric to compare.");
export type MetricSpec = z.infer<typeof MetricSpec>;

export const Window = z
  .strictObject({
    t: z
      .array(z.number())
      .superRefine((t, ctx) => {
        // One issue per window, not one per sample.
        const ms = t.find((x) => Math.abs(x) >= MILLISECONDS_THRESHOLD);
        if (ms !== undefined) ctx.addIssue({ code: "custom", message: `timestamp ${msMessage(ms)}` });
      })
      .describe("Sample timestamps, Unix seconds (not milliseconds)."),
    v: z
      .array(z.number().nullable())
      .describe("Sample values; null marks a missing or NaN sample (JSON has no NaN)."),
  })
  .refine((w) => w.t.length === w.v.length, { message: "t and v must have the same length" });
export type Window = z.infer<typeof Window>;

export const SeriesPair = z.strictObject({ before: Window, after: Window });
export type SeriesPair = z.infer<typeof SeriesPair>;

export const Instance = z
  .strictObject({
    id: Id,
    role: z
      .enum(["treated", "control"])
      .describe("treated: received the change; control: untouched sibling over the same windows."),
    restarts: z
      .array(UnixSeconds)
      .optional()
      .describe(
        "Known server restarts (Unix seconds); samples within warmupSeconds after each are excluded.",
      ),
    series: z.record(Id, SeriesPair).describe("Per metric id: the before and after windows."),
  })
  .describe("One database instance.");
export type Instance = z.infer<typeof Instance>;

const Range = z
  .strictObject({ start: UnixSeconds, end: UnixSeconds })
  .refine((r) => r.end > r.start, { message: "end must be after start" });

export const Options = z
  .strictObject({
    alpha: z
      .number()
      .gt(0)
      .lt(0.5)
      .default(0.05)
      .describe("Two-sided significance level; CIs are 1 − alpha."),
    equivalenceMargin: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.02)
      .describe("Relative change treated as no change: a CI inside ±margin (log-symmetric) is 'unchanged'."),
    throughputMargin: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.15)
      .describe(
        "Throughput within ±margin counts as held for the demand-driven question (two one-sided tests at alpha). Default ±15%: published gains of doublewrite off on write-bound servers are +20% and more, and a 1-hour window at 15 s resolution can show ±15%.",
      ),
    blockSeconds: z
      .union([z.literal("auto"), z.number().int().min(1).max(86_400)])
      .default("auto")
      .describe(
        "Block length for block aggregation; auto picks 300, 120 or 60 s so each window has ≥ 12 blocks.",
      ),
    minSamples: z
      .number()
      .int()
      .min(2)
      .default(20)
      .describe("Fewer usable samples in a window gives 'inconclusive'."),
    minBlocks: z
      .number()
      .int()
      .min(3)
      .default(6)
      .describe("Fewer usable blocks in a window gives 'inconclusive'."),
    warmupSeconds: z
      .number()
      .min(0)
      .default(600)
      .describe("Seconds excluded after each restart or counter reset (cold buffer pool)."),
    bootstrapResamples: z.number().int().min(100).max(100_000).default(1000),
    minBootstrapBlocks: z
      .number()
      .int()
      .min(10)
      .default(30)
      .describe(
        "method block-bootstrap falls back to block-t unless every resampled cell has at least this many blocks.",
      ),
    method: z
      .enum(METHODS)
      .default("auto")
      .describe(
        "auto: Hodges–Lehmann on log block means for latency and wait, block-t ratio of means for the rest. block-bootstrap (circular block bootstrap of the ratio of means) is used only when asked for.",
      ),
    seasonality: z
      .enum(["match", "none"])
      .default("match")
      .describe(
        "match: compare the same hours of day in both windows (pure before/after only); none: do not.",
      ),
    workloadVolumeTolerance: z
      .number()
      .gt(0)
      .default(0.1)
      .describe(
        "Workload volume change beyond this (and significant at p < 0.01) flags a workload mismatch.",
      ),
    workloadMixTolerance: z
      .number()
      .gt(0)
      .lt(1)
      .default(0.05)
      .describe("Total variation distance of the workload mix beyond this flags a workload mismatch."),
  })
  .describe("Analysis options; every field has a default.");
export type Options = z.infer<typeof Options>;

export const ComparisonInput = z
  .strictObject({
    $schema: z.string().optional(),
    seed: z
      .number()
      .int()
      .min(0)
      .max(2 ** 32 - 1)
      .default(1)
      .describe(
        "Seed of the random number generator (bootstrap); the same input and seed give the same result.",
      ),
    windows: z
      .strictObject({ before: Range, after: Range })
      .optional()
      .describe(
        "Window bounds; when omitted they are taken from the data. Used for gap and coverage checks.",
      ),
    metrics: z.array(MetricSpec).min(1),
    instances: z.array(Instance).min(1),
    options: Options.prefault({}),
  })
  .superRefine((input, ctx) => {
    const metricIds = new Set<string>();
    input.metrics.forEach((m, i) => {
      if (metricIds.has(m.id))
        ctx.addIssue({ code: "custom", message: `duplicate metric id ${m.id}`, path: ["metrics", i, "id"] });
      metricIds.add(m.id);
      if (m.kind === "workload" && m.direction !== undefined && m.direction !== "neutral") {
        ctx.addIssue({
          code: "custom",
          message: "workload metrics are neutral",
          path: ["metrics", i, "direction"],
        });
      }
      if (m.kind !== "workload" && m.direction === "neutral") {
        ctx.addIssue({
          code: "custom",
          message: "only workload metrics may be neutral",
          path: ["metrics", i, "direction"],
        });
      }
    });
    const instanceIds = new Set<string>();
    input.instances.forEach((inst, i) => {
      if (instanceIds.has(inst.id)) {
        ctx.addIssue({
          code: "custom",
          message: `duplicate instance id ${inst.id}`,
          path: ["instances", i, "id"],
        });
      }
      instanceIds.add(inst.id);
      for (const key of Object.keys(inst.series)) {
        if (!metricIds.has(key)) {
          ctx.addIssue({
            code: "custom",
            message: `series for undeclared metric ${key}`,
            path: ["instances", i, "series", key],
          });
        }
      }
    });
    if (input.windows) checkDeclaredWindows(input.windows, input.instances, ctx);
    if (!input.instances.some((inst) => inst.role === "treated")) {
      ctx.addIssue({
        code: "custom",
        message: "at least one instance must have role treated",
        path: ["instances"],
      });
    }
  })
  .describe("Before/after comparison input for `untorn compare` and @untorn/compare.");

/**
 * Declared windows must agree with the data: the after window may not start before the before window,
 * and every sample lies inside its declared window (bounds included; Prometheus range queries return
 * exactly that).
 */
function checkDeclaredWindows(
  windows: { before: { start: number; end: number }; after: { start: number; end: number } },
  instances: readonly Instance[],
  ctx: z.RefinementCtx,
) {
  if (windows.after.start < windows.before.start) {
    ctx.addIssue({
      code: "custom",
      message: `the after window starts before the before window (${windows.after.start} < ${windows.before.start})`,
      path: ["windows"],
    });
    return;
  }
  instances.forEach((inst, i) => {
    for (const [metric, pair] of Object.entries(inst.series)) {
      for (const which of ["before", "after"] as const) {
        const { start, end } = windows[which];
        const t = pair[which].t;
        let outside = 0;
        let first: number | undefined;
        for (const x of t) {
          if (x >= start && x <= end) continue;
          outside++;
          first ??= x;
        }
        if (outside === 0) continue;
        ctx.addIssue({
          code: "custom",
          message: `${outside} samples lie outside the declared ${which} window ${start}..${end} (first at ${first}): the windows contradict the data`,
          path: ["instances", i, "series", metric, which, "t"],
        });
      }
    }
  });
}

/** Input as written by a user (defaults optional). */
export type ComparisonInputJson = z.input<typeof ComparisonInput>;
/** Input after validation (defaults filled). */
export type ComparisonInput = z.output<typeof ComparisonInput>;

/**
 * Validates unknown JSON at a boundary (CLI file, API body). Returns zod's result: on failure,
 * `error.issues` carries paths and messages.
 */
export function parseComparisonInput(value: unknown) {
  return ComparisonInput.safeParse(value);
}
