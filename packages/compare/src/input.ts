import { z } from "zod";
import { decodeF64, encodeF64 } from "./f64-samples.js";
import { DIRECTIONS, METRIC_KINDS } from "./metric-kinds.js";

export {
  DEFAULT_DIRECTION,
  DIRECTIONS,
  type Direction,
  METRIC_KINDS,
  type MetricKind,
} from "./metric-kinds.js";

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

/**
 * The schemas of a window's three forms. Sample arrays are zod custom types checked by `checkSamples`
 * in one pass (zod's per-element parse allocates per sample). `typed`: a Float64Array is taken as it
 * is (the fast reader, read-input.ts, gives the sample arrays so; NaN in `v` is a missing sample), and
 * the f64 form's base64 is decoded into a Float64Array (the JSON form only checks that it decodes).
 */
function windowSchemas<T, V, F>(typed: boolean) {
  const isSamples = (x: unknown) => Array.isArray(x) || (typed && x instanceof Float64Array);
  // The input type is the JSON form either way (ComparisonInputJson is what a user writes).
  const times = (
    z.custom<T>(isSamples, { error: "expected an array of Unix seconds" }) as unknown as z.ZodCustom<
      T,
      number[]
    >
  ).meta({
    type: "array",
    items: { type: "number" },
    description: "Sample timestamps, Unix seconds (not milliseconds).",
  });
  const values = (
    z.custom<V>(isSamples, { error: "expected an array of numbers or null" }) as unknown as z.ZodCustom<
      V,
      (number | null)[]
    >
  ).meta({
    type: "array",
    items: { type: ["number", "null"] },
    description: "Sample values; null marks a missing or NaN sample (JSON has no NaN).",
  });
  const base64 = (
    z.custom<F>((x) => typeof x === "string" || (typed && x instanceof Float64Array), {
      error: "expected a string: base64 of little-endian float64 samples",
    }) as unknown as z.ZodCustom<F, string>
  ).meta({
    type: "string",
    contentEncoding: "base64",
    description:
      "The samples as little-endian IEEE 754 float64s (8 bytes each), base64 (padding optional; the URL-safe alphabet is accepted too); NaN marks a missing sample.",
  });
  const start = UnixSeconds.describe("Time of v[0], Unix seconds (not milliseconds).");
  const step = z.number().gt(0).describe("Seconds between samples: v[i] is at start + i · step.");
  const explicit = z
    .strictObject({ t: times, v: values })
    .superRefine((w, ctx) => checkSamples(w, ctx))
    .describe("Samples with explicit timestamps: t[i] is the time of v[i].");
  const compact = z
    .strictObject({ start, step, v: values })
    .superRefine((w, ctx) => checkSamples(w, ctx))
    .describe(
      "Samples on a regular grid (a Prometheus range query): v[i] at start + i · step, null for a missing sample.",
    );
  const f64Samples = typed
    ? base64.transform((x, ctx): F => {
        if (typeof x !== "string") return x;
        const decoded = decodeF64(x);
        if (typeof decoded === "string") {
          // continue: as checkSamples' issues, so the union reports this one, not its generic message.
          ctx.addIssue({ code: "custom", message: decoded, continue: true });
          return z.NEVER;
        }
        return decoded as F;
      })
    : base64;
  const f64 = z
    .strictObject({
      start: start.describe("Time of the first sample, Unix seconds (not milliseconds)."),
      step: step.describe("Seconds between samples: sample i is at start + i · step."),
      f64: f64Samples,
    })
    .superRefine((w, ctx) => checkF64Samples(w.f64, ctx))
    .describe(
      "Samples on a regular grid as binary: sample i at start + i · step, the values base64 of little-endian float64s, NaN for a missing sample. Read without decimal conversion (docs/comparison.md).",
    );
  const window = z
    .union([explicit, compact, f64], {
      error:
        "a window is { t, v } (explicit timestamps), { start, step, v } (a regular grid) or { start, step, f64 } (a regular grid, base64 float64 samples)",
    })
    .describe("One window of one series, in any of the three forms.");
  return { explicit, compact, f64, window };
}

const jsonWindows = windowSchemas<number[], (number | null)[], string>(false);
export const ExplicitWindow = jsonWindows.explicit;
export type ExplicitWindow = z.infer<typeof ExplicitWindow>;
export const CompactWindow = jsonWindows.compact;
export type CompactWindow = z.infer<typeof CompactWindow>;
export const F64Window = jsonWindows.f64;
export type F64Window = z.infer<typeof F64Window>;
/** A window as JSON, in either form. */
export const Window = jsonWindows.window;
export type Window = z.infer<typeof Window>;

/**
 * A window as JSON or as the fast reader gives it (Float64Arrays), in any form; the f64 form's
 * samples decoded.
 */
const ReadWindow = windowSchemas<number[] | Float64Array, (number | null)[] | Float64Array, Float64Array>(
  true,
).window;
export type ReadWindow = z.output<typeof ReadWindow>;

/**
 * A window as compare reads it: the validated samples copied into Float64Arrays (NaN for a missing
 * sample), so the analysis never touches boxed JSON numbers and the parsed JSON can be dropped.
 */
export type SampleWindow =
  | { readonly t: Float64Array; readonly v: Float64Array }
  | { readonly start: number; readonly step: number; readonly v: Float64Array };

/**
 * Copies a validated window into Float64Arrays (one allocation per array, none per sample); arrays
 * that already are Float64Arrays (the fast reader's) are taken without a copy.
 */
export function toSampleWindow(w: ReadWindow): SampleWindow {
  if ("f64" in w) return { start: w.start, step: w.step, v: w.f64 };
  const v = w.v instanceof Float64Array ? w.v : new Float64Array(w.v.length);
  if (!(w.v instanceof Float64Array)) {
    for (let i = 0; i < v.length; i++) {
      const x = w.v[i];
      v[i] = x === null || x === undefined ? Number.NaN : x;
    }
  }
  if (!("t" in w)) return { start: w.start, step: w.step, v };
  return { t: w.t instanceof Float64Array ? w.t : new Float64Array(w.t), v };
}

/** Time of sample i of a window in either form (the compact form's grid: start + i · step). */
export function sampleTime(w: SampleWindow | ExplicitWindow | CompactWindow, i: number): number {
  return "t" in w ? w.t[i]! : w.start + i * w.step;
}

/**
 * The compact form of an explicit window whose times all lie on one grid of `step` seconds from its
 * first sample (a Prometheus range query), null where the grid has no sample; the window unchanged
 * otherwise (unsorted, repeated or off-grid times). The grid's times are computed as compare computes
 * them (start + i · step), and the window is only made compact when they equal the given times
 * exactly, so both forms give the same result. A grid of more than four slots per sample (a mostly
 * empty series) stays explicit: it would be the larger form.
 */
export function toCompactWindow(w: ExplicitWindow, step: number): Window {
  const n = w.t.length;
  if (n === 0 || !(step > 0)) return w;
  const start = w.t[0]!;
  const last = Math.round((w.t[n - 1]! - start) / step);
  if (!(last >= n - 1) || last > 4 * n + 1000) return w;
  const v: (number | null)[] = new Array(last + 1).fill(null);
  let prev = -1;
  for (let i = 0; i < n; i++) {
    const k = Math.round((w.t[i]! - start) / step);
    if (k <= prev || start + k * step !== w.t[i]) return w;
    v[k] = w.v[i]!;
    prev = k;
  }
  return { start, step, v };
}

/**
 * A window with its values as numbers: the f64 form's samples decoded into the compact form (NaN →
 * null); the other forms unchanged. For a window validated by the schema (the text decodes).
 */
export function toValueWindow(w: Window): ExplicitWindow | CompactWindow {
  if (!("f64" in w)) return w;
  const decoded = decodeF64(w.f64);
  if (typeof decoded === "string") throw new Error(`f64: ${decoded}`);
  const v: (number | null)[] = new Array(decoded.length);
  for (let i = 0; i < decoded.length; i++) v[i] = Number.isNaN(decoded[i]!) ? null : decoded[i]!;
  return { start: w.start, step: w.step, v };
}

/**
 * The f64 form of a compact window (null → NaN); explicit windows are returned unchanged (the f64
 * form has no timestamps).
 */
export function toF64Window(w: Window): Window {
  if (!("start" in w) || !("v" in w)) return w;
  return { start: w.start, step: w.step, f64: encodeF64(w.v) };
}

/**
 * One pass over a window's samples without allocating per sample: every time a finite number below
 * MILLISECONDS_THRESHOLD, every value a finite number or null, t and v of equal length. Each kind of
 * fault is reported once, at its first index, with how many samples share it. Unsorted or repeated
 * timestamps are accepted (compare sorts them and flags it).
 */
function checkSamples(w: { t?: unknown; v: unknown }, ctx: z.RefinementCtx): void {
  if (w.v instanceof Float64Array && (w.t === undefined || w.t instanceof Float64Array)) {
    checkTypedSamples(w.v, w.t, ctx);
    return;
  }
  const v = w.v as readonly unknown[];
  const t = w.t as readonly unknown[] | undefined;
  if (!Array.isArray(v) || (t !== undefined && !Array.isArray(t))) return;
  if (lengthsDiffer(v, t, ctx)) return;
  const f = noSampleFaults();
  for (let i = 0; i < v.length; i++) {
    const x = v[i];
    if (x !== null && (typeof x !== "number" || !Number.isFinite(x))) {
      if (f.badValues++ === 0) f.badValue = i;
    }
    if (t === undefined) continue;
    const s = t[i];
    if (typeof s !== "number" || !Number.isFinite(s)) {
      if (f.badTimes++ === 0) f.badTime = i;
    } else if (f.msTime < 0 && Math.abs(s) >= MILLISECONDS_THRESHOLD) f.msTime = i;
  }
  reportSampleFaults(v, t, f, ctx);
}

/** The first index (-1: none) of each kind of sample fault, and how many samples share it. */
interface SampleFaults {
  badTime: number;
  badTimes: number;
  msTime: number;
  badValue: number;
  badValues: number;
}

/** SampleFaults before any sample is checked. */
function noSampleFaults(): SampleFaults {
  return { badTime: -1, badTimes: 0, msTime: -1, badValue: -1, badValues: 0 };
}

/** Whether t (when given) and v differ in length, adding the issue if so: no per-sample check then. */
function lengthsDiffer(
  v: ArrayLike<unknown>,
  t: ArrayLike<unknown> | undefined,
  ctx: z.RefinementCtx,
): boolean {
  if (t === undefined || t.length === v.length) return false;
  ctx.addIssue({ code: "custom", message: "t and v must have the same length" });
  return true;
}

/** One issue per kind of fault, at its first index, with how many samples share it. */
function reportSampleFaults(
  v: ArrayLike<unknown>,
  t: ArrayLike<unknown> | undefined,
  f: SampleFaults,
  ctx: z.RefinementCtx,
): void {
  const { badTime, badTimes, msTime, badValue, badValues } = f;
  const more = (n: number) => (n > 1 ? ` (${n - 1} more like it)` : "");
  if (t !== undefined && badTime >= 0) {
    ctx.addIssue({
      code: "custom",
      message: `t[${badTime}] is ${describe(t[badTime])}: timestamps are finite numbers, Unix seconds${more(badTimes)}`,
      path: ["t", badTime],
    });
  }
  if (t !== undefined && msTime >= 0) {
    // One issue per window, not one per sample.
    ctx.addIssue({
      code: "custom",
      message: `timestamp ${msMessage(t[msTime] as number)}`,
      path: ["t", msTime],
    });
  }
  if (badValue >= 0) {
    ctx.addIssue({
      code: "custom",
      message: `v[${badValue}] is ${describe(v[badValue])}: values are finite numbers, or null for a missing sample${more(badValues)}`,
      path: ["v", badValue],
    });
  }
}

/**
 * checkSamples over the fast reader's Float64Arrays: the same checks and messages, NaN in `v` being
 * a null (the reader admits nothing else that is not a number, and JSON has no NaN).
 */
function checkTypedSamples(v: Float64Array, t: Float64Array | undefined, ctx: z.RefinementCtx): void {
  if (lengthsDiffer(v, t, ctx)) return;
  const f = noSampleFaults();
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    // Only ±Infinity fail here: NaN is a null.
    if (!Number.isFinite(x) && !Number.isNaN(x) && f.badValues++ === 0) f.badValue = i;
  }
  if (t !== undefined) {
    for (let i = 0; i < t.length; i++) {
      const s = t[i]!;
      if (!Number.isFinite(s)) {
        if (f.badTimes++ === 0) f.badTime = i;
      } else if (f.msTime < 0 && Math.abs(s) >= MILLISECONDS_THRESHOLD) f.msTime = i;
    }
  }
  reportSampleFaults(v, t, f, ctx);
}

/**
 * The f64 form's samples: the text must decode (reported where it is a string, the JSON form), the
 * values be finite or NaN (a missing sample). No allocation per sample.
 */
function checkF64Samples(f64: unknown, ctx: z.RefinementCtx): void {
  let v: Float64Array;
  if (typeof f64 === "string") {
    const decoded = decodeF64(f64);
    if (typeof decoded === "string") {
      ctx.addIssue({ code: "custom", message: decoded, path: ["f64"] });
      return;
    }
    v = decoded;
  } else if (f64 instanceof Float64Array) v = f64;
  else return;
  let bad = -1;
  let count = 0;
  for (let i = 0; i < v.length; i++) {
    const x = v[i]!;
    if (x === Number.POSITIVE_INFINITY || x === Number.NEGATIVE_INFINITY) {
      if (count++ === 0) bad = i;
    }
  }
  if (bad >= 0) {
    ctx.addIssue({
      code: "custom",
      message: `sample ${bad} is ${v[bad]}: values are finite numbers, or NaN for a missing sample${count > 1 ? ` (${count - 1} more like it)` : ""}`,
      path: ["f64"],
    });
  }
}

function describe(x: unknown): string {
  if (typeof x === "number") return String(x);
  if (x === undefined) return "missing";
  return `${typeof x === "string" ? "the string " : ""}${JSON.stringify(x)}`;
}

/** The before and after windows of one series, as JSON (validated, not copied). */
export const SeriesPair = z.strictObject({ before: Window, after: Window });
export type SeriesPair = z.infer<typeof SeriesPair>;

const TypedWindow = ReadWindow.transform(toSampleWindow);
/** SeriesPair as `compare` takes it: both windows in Float64Arrays. */
const TypedSeriesPair = z.strictObject({ before: TypedWindow, after: TypedWindow });

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
    series: z.record(Id, TypedSeriesPair).describe("Per metric id: the before and after windows."),
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
    sequential: z
      .strictObject({
        lookEverySeconds: z.number().positive().max(86_400),
        maxSeconds: z
          .number()
          .positive()
          .max(30 * 86_400),
      })
      .refine((s) => s.maxSeconds >= s.lookEverySeconds, {
        message: "maxSeconds must be at least lookEverySeconds",
      })
      .optional()
      .describe(
        "A bake judged at a look every lookEverySeconds up to maxSeconds: the before window is the baseline from history, its noise (lag-1 autocorrelation, SD) is used for the after window too, and every interval is the sequential one that keeps alpha over all the looks (docs/comparison.md, section 8). Workload metrics are compared as usual.",
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
        const w = pair[which];
        const n = "t" in w ? w.t.length : w.v.length;
        let outside = 0;
        let first: number | undefined;
        for (let k = 0; k < n; k++) {
          const x = sampleTime(w, k);
          if (x >= start && x <= end) continue;
          outside++;
          first ??= x;
        }
        if (outside === 0) continue;
        ctx.addIssue({
          code: "custom",
          message: `${outside} samples lie outside the declared ${which} window ${start}..${end} (first at ${first}): the windows contradict the data`,
          path: ["instances", i, "series", metric, which, "t" in w ? "t" : "start"],
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
