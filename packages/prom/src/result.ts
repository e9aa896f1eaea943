import { z } from "zod";

/**
 * Shapes of the Prometheus HTTP API (https://prometheus.io/docs/prometheus/latest/querying/api/), as
 * zod schemas that turn the wire format into typed values: sample values arrive as strings ("1.5",
 * "NaN", "+Inf", "-Inf", "1e+06") and become numbers; timestamps are Unix seconds with a fraction.
 */

export type Labels = Readonly<Record<string, string>>;

/** One sample of an instant vector. `timestamp` in Unix seconds. */
export interface VectorSample {
  labels: Labels;
  timestamp: number;
  value: number;
}

/** `[timestamp (Unix seconds), value]`, in time order as the server sent them. */
export type Point = readonly [timestamp: number, value: number];

/** One series of a range vector (matrix). */
export interface MatrixSeries {
  labels: Labels;
  points: Point[];
}

export interface ScalarResult {
  timestamp: number;
  value: number;
}

export interface StringResult {
  timestamp: number;
  value: string;
}

export type ResultType = "vector" | "matrix" | "scalar" | "string";

export type QueryData =
  | { resultType: "vector"; result: VectorSample[] }
  | { resultType: "matrix"; result: MatrixSeries[] }
  | { resultType: "scalar"; result: ScalarResult }
  | { resultType: "string"; result: StringResult };

/**
 * A successful answer. `warnings` mean the data may be partial (e.g. a Thanos store or Mimir querier
 * was unreachable, or a query limit was hit); `infos` are hints (Prometheus ≥ 2.50: e.g. a rate() over
 * a metric that does not look like a counter). Both are empty when the server sent none.
 */
export interface PromResult<T> {
  data: T;
  warnings: string[];
  infos: string[];
}

/** /api/v1/status/buildinfo. VictoriaMetrics and Mimir send only some fields, or extra ones. */
export interface BuildInfo {
  version: string;
  revision?: string;
  branch?: string;
  buildUser?: string;
  buildDate?: string;
  goVersion?: string;
  [field: string]: unknown;
}

const DECIMAL = /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/;

/** Number of a Prometheus sample value string, or undefined when it is not one. */
export function parseSampleValue(text: string): number | undefined {
  switch (text) {
    case "NaN":
      return Number.NaN;
    case "+Inf":
    case "Inf":
      return Number.POSITIVE_INFINITY;
    case "-Inf":
      return Number.NEGATIVE_INFINITY;
  }
  return DECIMAL.test(text) ? Number(text) : undefined;
}

const Timestamp = z.number().refine(Number.isFinite, "expected a finite Unix timestamp");

const SampleValue = z.string().transform((text, ctx) => {
  const n = parseSampleValue(text);
  if (n === undefined) {
    ctx.addIssue({ code: "custom", message: `expected a number as a string, got ${JSON.stringify(text)}` });
    return z.NEVER;
  }
  return n;
});

const PointSchema = z.tuple([Timestamp, SampleValue]);

/**
 * `[[t, "v"], …]` of a matrix series. A hand loop rather than z.array(PointSchema): range answers
 * reach millions of points and per-element zod parsing is several times slower than JSON.parse.
 */
const PointsSchema = z.unknown().transform((raw, ctx): Point[] => {
  if (!Array.isArray(raw)) {
    ctx.addIssue({ code: "custom", message: "expected an array of [timestamp, value] pairs" });
    return z.NEVER;
  }
  const out = new Array<Point>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const p: unknown = raw[i];
    if (!Array.isArray(p) || p.length !== 2) {
      ctx.addIssue({ code: "custom", message: "expected a [timestamp, value] pair", path: [i] });
      return z.NEVER;
    }
    const [t, text] = p as [unknown, unknown];
    if (typeof t !== "number" || !Number.isFinite(t)) {
      ctx.addIssue({ code: "custom", message: "expected a finite Unix timestamp", path: [i, 0] });
      return z.NEVER;
    }
    const v = typeof text === "string" ? parseSampleValue(text) : undefined;
    if (v === undefined) {
      const got = JSON.stringify(text) ?? String(text);
      ctx.addIssue({ code: "custom", message: `expected a number as a string, got ${got}`, path: [i, 1] });
      return z.NEVER;
    }
    out[i] = [t, v];
  }
  return out;
});
const LabelsSchema = z.record(z.string(), z.string());

const NATIVE_HISTOGRAM =
  "native histogram samples are not supported: query a float series instead (histogram_quantile(), histogram_count(), histogram_sum())";

const VectorSampleSchema = z
  .object({ metric: LabelsSchema, value: PointSchema.optional(), histogram: z.unknown().optional() })
  .transform((s, ctx): VectorSample => {
    if (s.histogram !== undefined) ctx.addIssue({ code: "custom", message: NATIVE_HISTOGRAM });
    else if (s.value === undefined) ctx.addIssue({ code: "custom", message: "sample without a value" });
    const [timestamp, value] = s.value ?? [0, 0];
    return { labels: s.metric, timestamp, value };
  });

const MatrixSeriesSchema = z
  .object({
    metric: LabelsSchema,
    values: PointsSchema.optional(),
    histograms: z.unknown().optional(),
  })
  .transform((s, ctx): MatrixSeries => {
    if (s.histograms !== undefined) ctx.addIssue({ code: "custom", message: NATIVE_HISTOGRAM });
    else if (s.values === undefined) ctx.addIssue({ code: "custom", message: "series without values" });
    return { labels: s.metric, points: s.values ?? [] };
  });

export const VectorSchema = z.array(VectorSampleSchema);
export const MatrixSchema = z.array(MatrixSeriesSchema);
const ScalarSchema = PointSchema.transform(([timestamp, value]): ScalarResult => ({ timestamp, value }));
const StringSchema = z
  .tuple([Timestamp, z.string()])
  .transform(([timestamp, value]): StringResult => ({ timestamp, value }));

export const RESULT_TYPES: readonly ResultType[] = ["vector", "matrix", "scalar", "string"];

export const QueryDataSchema: z.ZodType<QueryData> = z.discriminatedUnion("resultType", [
  z.object({ resultType: z.literal("vector"), result: VectorSchema }),
  z.object({ resultType: z.literal("matrix"), result: MatrixSchema }),
  z.object({ resultType: z.literal("scalar"), result: ScalarSchema }),
  z.object({ resultType: z.literal("string"), result: StringSchema }),
]);

export const SeriesSchema = z.array(LabelsSchema);
export const LabelValuesSchema = z.array(z.string());

export const BuildInfoSchema = z.looseObject({
  version: z.string(),
  revision: z.string().optional(),
  branch: z.string().optional(),
  buildUser: z.string().optional(),
  buildDate: z.string().optional(),
  goVersion: z.string().optional(),
}) as unknown as z.ZodType<BuildInfo>;

// Thanos and older proxies send `"warnings": null`.
const Notes = z
  .array(z.string())
  .nullish()
  .transform((v) => v ?? []);

/** The JSON envelope every /api/v1 endpoint answers with. `data` is checked per endpoint. */
export const EnvelopeSchema = z.discriminatedUnion("status", [
  z.object({ status: z.literal("success"), data: z.unknown(), warnings: Notes, infos: Notes }),
  z.object({
    status: z.literal("error"),
    errorType: z.string(),
    error: z.string(),
    warnings: Notes,
    infos: Notes,
  }),
]);
export type Envelope = z.infer<typeof EnvelopeSchema>;

/** Raised by `decode`: the client turns it into a PromResponseError with the call's context. */
export class ShapeError extends Error {
  override readonly name = "ShapeError";
}

/** `a.b[3].c` from a zod issue path. */
function formatPath(prefix: string, path: readonly PropertyKey[]): string {
  let out = prefix;
  for (const key of path) out += typeof key === "number" ? `[${key}]` : out ? `.${String(key)}` : String(key);
  return out || "(top level)";
}

/** Parses `value` with `schema` or throws a ShapeError naming the first bad field. */
export function decode<T>(schema: z.ZodType<T>, value: unknown, prefix: string): T {
  const parsed = schema.safeParse(value);
  if (parsed.success) return parsed.data;
  const issues = parsed.error.issues;
  const first = issues[0];
  const where = formatPath(prefix, first?.path ?? []);
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problems)` : "";
  throw new ShapeError(`${where}: ${first?.message ?? "invalid"}${more}`);
}

/** A label set as JSON.parse made it: a plain object whose every value is a string. */
function isLabelSet(m: unknown): m is Labels {
  if (typeof m !== "object" || m === null || Array.isArray(m)) return false;
  for (const k in m) if (typeof (m as Record<string, unknown>)[k] !== "string") return false;
  return true;
}

/**
 * The vector of an instant answer without zod: the fleet profile reads 10,000 instances' samples per
 * query, and per-sample zod parsing took 2-3x JSON.parse's own time. Returns undefined at the first
 * sample that is not plainly valid, and the caller then decodes with the zod schema, whose error names
 * the field; what both accept they decode to the same values (result.test.ts).
 */
function fastVector(raw: unknown): VectorSample[] | undefined {
  if (!Array.isArray(raw)) return undefined;
  const out = new Array<VectorSample>(raw.length);
  for (let i = 0; i < raw.length; i++) {
    const s: unknown = raw[i];
    if (typeof s !== "object" || s === null) return undefined;
    const { metric, value, histogram } = s as { metric?: unknown; value?: unknown; histogram?: unknown };
    if (histogram !== undefined || !isLabelSet(metric) || !Array.isArray(value) || value.length !== 2)
      return undefined;
    const t: unknown = value[0];
    const text: unknown = value[1];
    if (typeof t !== "number" || !Number.isFinite(t) || typeof text !== "string") return undefined;
    const v = parseSampleValue(text);
    if (v === undefined) return undefined;
    out[i] = { labels: metric, timestamp: t, value: v };
  }
  return out;
}

/** Decodes the `data` of /api/v1/query or /api/v1/query_range, optionally requiring one result type. */
export function decodeQueryData<R extends ResultType>(
  data: unknown,
  expected?: R,
): Extract<QueryData, { resultType: R }> {
  const resultType = (data as { resultType?: unknown } | null)?.resultType;
  if (typeof resultType !== "string" || !(RESULT_TYPES as readonly string[]).includes(resultType)) {
    throw new ShapeError(`data.resultType: unexpected result type ${JSON.stringify(resultType ?? null)}`);
  }
  if (expected !== undefined && resultType !== expected) {
    throw new ShapeError(`data.resultType: expected ${expected}, got ${resultType}`);
  }
  if (resultType === "vector") {
    const result = fastVector((data as { result?: unknown }).result);
    if (result) return { resultType, result } as Extract<QueryData, { resultType: R }>;
  }
  return decode(QueryDataSchema, data, "data") as Extract<QueryData, { resultType: R }>;
}
