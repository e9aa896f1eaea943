/**
 * Recording and replay of Prometheus answers.
 *
 * A replay file holds, per PromQL text, the answers recorded at each evaluation time (instant queries)
 * or over one range (range queries), with metadata saying where and when it was recorded and
 * `recorded: true` so a UI can label it as recorded data. On disk: gzip of the JSON below (JSON Schema in
 * docs/schemas/replay.schema.json). Sample values are numbers, or "NaN" / "+Inf" / "-Inf" as in the
 * Prometheus API, since JSON has no non-finite numbers.
 *
 * ReplayApi answers a query only if its exact text was recorded: instant times snap to the nearest
 * recorded evaluation time (within one recording interval of the recording); range queries return the
 * recorded points inside the requested range and need the recorded step. Anything else throws
 * ReplayMissError naming the query.
 */
import { pipeline, Readable } from "node:stream";
import { createGunzip, gunzipSync, gzipSync } from "node:zlib";
import { STATS } from "@untorn/catalog/window-stats";
import { z } from "zod";
import type { MatrixSeries, PromQueryApi, QueryAnswer, VectorSample } from "./api.js";
import { nowOf, ReplayMissError } from "./api.js";
import type { FleetFactsOptions } from "./facts.js";
import { EntrySplitter, type LabelSetsByBytes, readInstantEntry } from "./replay-json.js";

export const REPLAY_FORMAT = "untorn-replay";
export const REPLAY_VERSION = 1;

const NonFinite = z.enum(["NaN", "+Inf", "-Inf"]);
const SampleValue = z
  .union([z.number(), NonFinite])
  .describe('A sample value: a number, or "NaN", "+Inf", "-Inf".');
const LabelSet = z.record(z.string(), z.string());

/** One instant sample as the file holds it. */
export const replaySampleSchema = z.object({ labels: LabelSet, value: SampleValue }).strict();

const instantAnswerSchema = z
  .object({
    time: z.number().describe("Evaluation time, Unix seconds."),
    data: z.array(replaySampleSchema),
    warnings: z.array(z.string()).optional(),
  })
  .strict();

const instantEntrySchema = z
  .object({
    query: z.string().min(1).describe("PromQL text, matched exactly."),
    /** Derived from a recorded fleet-wide answer by keeping one instance's series (record.ts). */
    derived: z.boolean().optional().describe("Filtered from a fleet-wide answer rather than asked."),
    answers: z.array(instantAnswerSchema).min(1),
  })
  .strict();

const matrixSeriesSchema = z
  .object({ labels: LabelSet, points: z.array(z.tuple([z.number(), SampleValue])) })
  .strict();

const rangeEntrySchema = z
  .object({
    query: z.string().min(1),
    derived: z.boolean().optional(),
    start: z.number(),
    end: z.number(),
    step: z.number().positive(),
    data: z.array(matrixSeriesSchema),
    warnings: z.array(z.string()).optional(),
  })
  .strict()
  .refine((e) => e.end >= e.start, { message: "end must not be before start", path: ["end"] });

export const replayMetaSchema = z
  .object({
    recordedFrom: z.string().describe("Prometheus base URL the answers came from (credentials removed)."),
    backend: z
      .enum(["prometheus", "victoriametrics"])
      .optional()
      .describe(
        "Which server answered: their rate() differs on series younger than the window (docs/scaling.md §2). Absent: Prometheus.",
      ),
    recordedAt: z.iso.datetime({ offset: true }).describe("When the recording was made."),
    start: z.number().describe("First evaluation time, Unix seconds."),
    end: z.number().describe("Last evaluation time, Unix seconds."),
    spanSeconds: z.number().nonnegative(),
    everySeconds: z.number().positive().describe("Seconds between recorded evaluation times."),
    window: z.string().min(1).describe("Facts window the evaluations used (PromQL duration)."),
    plan: z
      .object({
        stepSeconds: z.number().int().positive(),
        rateWindow: z.string().min(1),
        stats: z.array(z.enum(STATS)).min(1),
        source: z.enum(["any", "untorn"]),
        selector: z.record(
          z.string(),
          z.union([
            z.string(),
            z.object({ op: z.enum(["=", "!=", "=~", "!~"]), value: z.string() }).strict(),
          ]),
        ),
      })
      .strict()
      .describe("Facts plan options: replaying needs the same ones, since queries match by exact text."),
    instances: z.array(z.string()).describe("Instances seen in the recording."),
    charts: z
      .object({ start: z.number(), end: z.number(), step: z.number().positive() })
      .strict()
      .nullish()
      .describe("Range the chart series cover; charts replay only with this step."),
    tool: z.string().describe("What made the file, e.g. untorn 0.1.0."),
    note: z.string().optional(),
  })
  .strict();

export const replayFileSchema = z
  .object({
    $schema: z.string().optional(),
    format: z.literal(REPLAY_FORMAT),
    version: z.literal(REPLAY_VERSION),
    recorded: z.literal(true).describe("Always true: the data is a recording, not live."),
    meta: replayMetaSchema,
    instant: z.array(instantEntrySchema),
    range: z.array(rangeEntrySchema),
  })
  .strict()
  .meta({
    title: "Untorn replay file",
    description: "Prometheus answers recorded by `untorn record`, replayed by --replay and the web app.",
  });

export type ReplayFile = z.infer<typeof replayFileSchema>;
export type ReplayMeta = z.infer<typeof replayMetaSchema>;
type Wire = z.infer<typeof SampleValue>;

export const toWire = (v: number): Wire =>
  Number.isNaN(v)
    ? "NaN"
    : v === Number.POSITIVE_INFINITY
      ? "+Inf"
      : v === Number.NEGATIVE_INFINITY
        ? "-Inf"
        : v;

export const fromWire = (v: Wire): number =>
  typeof v === "number"
    ? v
    : v === "NaN"
      ? Number.NaN
      : v === "+Inf"
        ? Number.POSITIVE_INFINITY
        : Number.NEGATIVE_INFINITY;

/** A file that is not a valid replay: `issues` are zod's, so a caller can name the field. */
export class ReplayFormatError extends Error {
  override readonly name = "ReplayFormatError";
  constructor(
    message: string,
    readonly issues: readonly { path: readonly PropertyKey[]; message: string }[] = [],
  ) {
    super(message);
  }
}

/** Defined beside the query API, so the facts builder can tell a miss without reading replays. */
export { ReplayMissError };

/** gzip(JSON) of a validated replay file. */
export function encodeReplay(file: ReplayFile): Buffer {
  const checked = replayFileSchema.parse(file);
  return gzipSync(Buffer.from(JSON.stringify(checked), "utf8"));
}

/** The JSON bytes of a replay file (gzip or plain JSON), as they are: no copy. */
function replayJsonBytes(bytes: Uint8Array): Buffer {
  try {
    const gz = bytes.length >= 2 && bytes[0] === 0x1f && bytes[1] === 0x8b;
    // gunzipSync's Buffer as it is: copying a 10,000-instance recording's JSON costs a second and its size.
    return gz ? gunzipSync(bytes) : Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  } catch (err) {
    throw new ReplayFormatError(`not a gzip file that decompresses: ${(err as Error).message}`);
  }
}

/** JSON.parse of the whole text; the text is this function's own, collected as soon as it returns. */
function parseWholeJson(json: Buffer): unknown {
  try {
    return JSON.parse(json.toString("utf8"));
  } catch (err) {
    throw new ReplayFormatError(`not JSON: ${(err as Error).message}`);
  }
}

/** Throws unless `json` (parsed) is, or is not an object at all so that zod says what it is. */
function checkFormat(json: unknown): void {
  if (typeof json === "object" && json !== null && (json as { format?: unknown }).format !== REPLAY_FORMAT)
    throw new ReplayFormatError(`not an untorn replay file (format is not "${REPLAY_FORMAT}")`, [
      { path: ["format"], message: `expected "${REPLAY_FORMAT}"` },
    ]);
}

/** Parses a replay file (gzip or plain JSON); throws ReplayFormatError naming what is wrong. */
export function decodeReplay(bytes: Uint8Array): ReplayFile {
  const json = parseWholeJson(replayJsonBytes(bytes));
  checkFormat(json);
  const r = replayFileSchema.safeParse(json);
  if (!r.success) throw new ReplayFormatError("not a valid replay file", r.error.issues);
  return r.data;
}

/** Everything of a replay file but its entries, which are only checked to be arrays here. */
const replayHeaderSchema = replayFileSchema.extend({
  instant: z.array(z.unknown()),
  range: z.array(z.unknown()),
});

type Issue = z.core.$ZodIssue;
type EntryKey = "instant" | "range";

/**
 * Validates the entries at `key` one at a time (`count` of them, `entry(i)` giving the i-th as parsed
 * JSON, which may then be let go), yielding each valid one. Invalid entries add their issues, with the
 * path zod gives when validating the whole file, to `issues`; once there is one, nothing more is
 * yielded, but the remaining entries are still checked so that every issue is reported.
 */
function* validatedEntries<T>(
  schema: z.ZodType<T>,
  key: EntryKey,
  count: number,
  entry: (i: number) => unknown,
  issues: Issue[],
): Generator<T> {
  for (let i = 0; i < count; i++) {
    const r = schema.safeParse(entry(i));
    if (!r.success)
      for (const issue of r.error.issues) issues.push({ ...issue, path: [key, i, ...issue.path] });
    else if (issues.length === 0) yield r.data;
  }
}

/**
 * A replay document's entries into the columnar store as its bytes arrive (replay-json.ts): each entry
 * as soon as its last byte is in, an instant entry in the recorder's form read straight into columns,
 * any other entry JSON.parse'd and validated with its schema. `irregular` once anything is not as
 * expected (a piece JSON.parse or the schema refuses, a document of another shape): the caller then
 * reads the whole file for JSON.parse's and zod's own errors.
 */
class EntryReader {
  private readonly intern = labelInterner();
  /** Label sets by their bytes, for this read only. */
  private readonly sets: LabelSetsByBytes = new Map();
  private readonly instant: InstantInput[] = [];
  private readonly range: ReplayFile["range"][number][] = [];
  private readonly splitter = new EntrySplitter((key, json) => {
    try {
      if (key === "range") {
        const r = rangeEntrySchema.safeParse(JSON.parse(json.toString("utf8")));
        if (r.success) this.range.push(r.data);
        else this.splitter.irregular = true;
        return;
      }
      const columns = this.columnar(json);
      if (columns) {
        this.instant.push(columns);
        return;
      }
      const r = instantEntrySchema.safeParse(JSON.parse(json.toString("utf8")));
      if (r.success) this.instant.push(r.data);
      else this.splitter.irregular = true;
    } catch {
      this.splitter.irregular = true;
    }
  });

  get entries(): number {
    return this.instant.length + this.range.length;
  }

  /** Follows the next chunk of the document; false once it is irregular. */
  push(chunk: Buffer): boolean {
    this.splitter.push(chunk);
    return !this.splitter.irregular;
  }

  /** The entry with its samples in columns and the rest validated, or null (read it whole). */
  private columnar(json: Buffer): InstantInput | null {
    const read = readInstantEntry(json, this.sets);
    if (!read) return null;
    const head = instantEntrySchema.safeParse(read.entry);
    if (!head.success) return null;
    const answers = head.data.answers.map((a, k): ColumnarAnswer => {
      const { labels, values } = read.samples[k]!;
      return { time: a.time, labels, values, ...(a.warnings ? { warnings: a.warnings } : {}) };
    });
    return { query: head.data.query, answers };
  }

  /** The ReplayApi once the whole document is in; null where it must be read whole instead. */
  api(): ReplayApi | null {
    const skeleton = this.splitter.end();
    if (!skeleton) return null;
    let header: unknown;
    try {
      header = JSON.parse(skeleton.toString("utf8"));
    } catch {
      return null;
    }
    if (typeof header !== "object" || header === null) return null;
    if ((header as { format?: unknown }).format !== REPLAY_FORMAT) return null;
    const head = replayHeaderSchema.safeParse(header);
    if (!head.success) return null;
    // Let each array go as the store takes its entries.
    const drain = <T>(xs: T[]) =>
      (function* () {
        for (let i = 0; i < xs.length; i++) {
          const x = xs[i]!;
          (xs as (T | undefined)[])[i] = undefined;
          yield x;
        }
        xs.length = 0;
      })();
    return new ReplayApi({
      meta: head.data.meta,
      internLabels: this.intern,
      instant: drain(this.instant),
      range: drain(this.range),
    });
  }
}

/** A ReplayApi from the whole parsed document, each entry's slot cleared once it is stored. */
function apiFromTree(json: unknown): ReplayApi {
  checkFormat(json);
  const head = replayHeaderSchema.safeParse(json);
  if (!head.success) {
    const r = replayFileSchema.safeParse(json);
    throw new ReplayFormatError("not a valid replay file", r.success ? head.error.issues : r.error.issues);
  }
  const issues: Issue[] = [];
  const of = (xs: unknown[]) =>
    [
      xs.length,
      (i: number) => {
        const x = xs[i];
        xs[i] = undefined;
        return x;
      },
    ] as const;
  const { instant, range } = json as { instant: unknown[]; range: unknown[] };
  const api = new ReplayApi({
    meta: head.data.meta,
    instant: validatedEntries(instantEntrySchema, "instant", ...of(instant), issues),
    range: validatedEntries(rangeEntrySchema, "range", ...of(range), issues),
  });
  if (issues.length) throw new ReplayFormatError("not a valid replay file", issues);
  return api;
}

/**
 * Parses a replay file (gzip or plain JSON) straight into a ReplayApi; throws ReplayFormatError naming
 * what is wrong, with the same message and issues as decodeReplay. Use it instead of
 * `new ReplayApi(decodeReplay(bytes))` when only the answers are needed: the entries are read from the
 * bytes one at a time into the columnar store (EntryReader), so neither the whole parsed tree nor zod's
 * whole validated copy is built. A document read so cannot be (invalid, or of another shape) is parsed
 * whole, for JSON.parse's and zod's own errors.
 */
export function decodeReplayApi(bytes: Uint8Array): ReplayApi {
  const json = replayJsonBytes(bytes);
  const reader = new EntryReader();
  return (reader.push(json) && reader.api()) || apiFromTree(parseWholeJson(json));
}

/** How far readReplayApi has got: bytes of the file taken so far, entries decoded. */
export interface ReplayReadProgress {
  readonly bytesRead: number;
  readonly entries: number;
}

/** A replay file's bytes as its reader gets them (the package does no I/O: the caller reads). */
export interface ReplayBytes {
  /** The file's bytes from its start, in order (a file read stream); consumed once. */
  readonly chunks: () => AsyncIterable<Uint8Array>;
  /** The whole file, read whole when the stream cannot be decoded as it comes. */
  readonly whole: () => Promise<Uint8Array>;
}

export interface ReadReplayOptions {
  /** Called after each chunk is decoded. */
  readonly onProgress?: (p: ReplayReadProgress) => void;
  /** Decompressed bytes at a time (tests make it small to split entries across chunks). */
  readonly chunkBytes?: number;
}

/**
 * decodeReplayApi of a file read as a stream: the gzip is decompressed a chunk at a time and each entry
 * goes into the columnar store as soon as its last byte arrives (EntryReader), so neither the compressed
 * file nor its decompressed JSON (100 MB at 10,000 instances) is ever held whole, and the event loop
 * runs between chunks. A file this cannot read so (not gzip or JSON as expected, a truncated gzip, a
 * document that ends inside an entry, an invalid header or entry) is parsed whole instead, which then
 * throws the same ReplayFormatError (message and issues) as decodeReplayApi, or reads it as it does.
 */
export async function readReplayApi(bytes: ReplayBytes, o: ReadReplayOptions = {}): Promise<ReplayApi> {
  const streamed = await streamReplayApi(bytes, o);
  return streamed ?? apiFromTree(parseWholeJson(replayJsonBytes(await bytes.whole())));
}

const asBuffer = (b: Uint8Array) =>
  Buffer.isBuffer(b) ? b : Buffer.from(b.buffer, b.byteOffset, b.byteLength);

/** The stream's half of readReplayApi: null wherever the whole file must be read instead. */
async function streamReplayApi(bytes: ReplayBytes, o: ReadReplayOptions): Promise<ReplayApi | null> {
  const reader = new EntryReader();
  let bytesRead = 0;
  const input = bytes.chunks()[Symbol.asyncIterator]();
  try {
    const first = await input.next();
    if (first.done) return null;
    const head = asBuffer(first.value);
    // The file's chunks again, the first one included, counted as they are taken.
    const chunks = (async function* () {
      bytesRead += head.length;
      yield head;
      for (;;) {
        const next = await input.next();
        if (next.done) return;
        bytesRead += next.value.length;
        yield asBuffer(next.value);
      }
    })();
    const gz = head.length >= 2 && head[0] === 0x1f && head[1] === 0x8b;
    // pipeline: an error on either side (a truncated gzip) ends the loop below with it, and leaving the
    // loop early destroys both.
    const source = gz
      ? pipeline(Readable.from(chunks), createGunzip({ chunkSize: o.chunkBytes ?? 256 * 1024 }), () => {})
      : chunks;
    for await (const piece of source as AsyncIterable<Buffer>) {
      const regular = reader.push(piece);
      o.onProgress?.({ bytesRead, entries: reader.entries });
      if (!regular) return null;
    }
  } catch {
    return null;
  } finally {
    await input.return?.();
  }
  return reader.api();
}

/** Facts options that reproduce the recording's query texts (window, step, statistics...). */
export function replayFactsOptions(meta: ReplayMeta): FleetFactsOptions & { window: string } {
  return {
    window: meta.window,
    stepSeconds: meta.plan.stepSeconds,
    rateWindow: meta.plan.rateWindow,
    stats: meta.plan.stats,
    source: meta.plan.source,
    selector: meta.plan.selector,
    at: meta.end,
    // Recordings hold the raw-series plan's answers (recordFleet does not probe for recording rules).
    recordingRules: false,
  };
}

// ---- recording ----

/** Wraps an api and keeps every query and its answer, for a replay file. */
export class RecordingApi implements PromQueryApi {
  private readonly instant = new Map<string, Map<number, { data: VectorSample[]; warnings: string[] }>>();
  private readonly ranges = new Map<string, ReplayFile["range"][number]>();
  private readonly derivedInstant = new Map<string, Map<number, VectorSample[]>>();
  private readonly derivedRanges = new Map<string, ReplayFile["range"][number]>();

  constructor(private readonly inner: PromQueryApi) {}

  async queryVector(expr: string, opts: { time: number }): Promise<QueryAnswer<VectorSample[]>> {
    const a = await this.inner.queryVector(expr, opts);
    const byTime = this.instant.get(expr) ?? new Map();
    this.instant.set(expr, byTime);
    byTime.set(opts.time, { data: a.data, warnings: [...a.warnings] });
    return a;
  }

  async queryRange(
    expr: string,
    opts: { start: number; end: number; step: number },
  ): Promise<QueryAnswer<MatrixSeries[]>> {
    const a = await this.inner.queryRange(expr, opts);
    this.ranges.set(expr, {
      query: expr,
      start: opts.start,
      end: opts.end,
      step: opts.step,
      data: a.data.map((s) => ({
        labels: { ...s.labels },
        points: s.points.map(([t, v]) => [t, toWire(v)]),
      })),
      ...(a.warnings.length ? { warnings: [...a.warnings] } : {}),
    });
    return a;
  }

  defaultTime(): number {
    return nowOf(this.inner);
  }

  /** Adds an answer that was not asked but derived (e.g. one instance filtered from a fleet answer). */
  addDerivedInstant(expr: string, time: number, data: readonly VectorSample[]): void {
    const byTime = this.derivedInstant.get(expr) ?? new Map();
    this.derivedInstant.set(expr, byTime);
    byTime.set(time, [...data]);
  }

  addDerivedRange(
    expr: string,
    opts: { start: number; end: number; step: number },
    data: readonly MatrixSeries[],
  ) {
    this.derivedRanges.set(expr, {
      query: expr,
      derived: true,
      ...opts,
      data: data.map((s) => ({ labels: { ...s.labels }, points: s.points.map(([t, v]) => [t, toWire(v)]) })),
    });
  }

  /** Everything recorded so far as a replay file with the given metadata. */
  toReplay(meta: ReplayMeta): ReplayFile {
    const wireSample = (s: VectorSample) => ({ labels: { ...s.labels }, value: toWire(s.value) });
    const instant: ReplayFile["instant"] = [];
    for (const [query, byTime] of this.instant) {
      instant.push({
        query,
        answers: [...byTime]
          .sort((a, b) => a[0] - b[0])
          .map(([time, a]) => ({
            time,
            data: a.data.map(wireSample),
            ...(a.warnings.length ? { warnings: a.warnings } : {}),
          })),
      });
    }
    for (const [query, byTime] of this.derivedInstant) {
      if (this.instant.has(query)) continue;
      instant.push({
        query,
        derived: true,
        answers: [...byTime]
          .sort((a, b) => a[0] - b[0])
          .map(([time, data]) => ({ time, data: data.map(wireSample) })),
      });
    }
    const range = [...this.ranges.values()];
    for (const [q, e] of this.derivedRanges) if (!this.ranges.has(q)) range.push(e);
    return { format: REPLAY_FORMAT, version: REPLAY_VERSION, recorded: true, meta, instant, range };
  }

  /** Recorded answers of a query (for deriving per-instance entries). */
  recordedInstant(expr: string): ReadonlyMap<number, { data: VectorSample[] }> | undefined {
    return this.instant.get(expr);
  }

  recordedRange(expr: string): ReplayFile["range"][number] | undefined {
    return this.ranges.get(expr);
  }
}

// ---- replay ----

/** One recorded instant answer, columnar: the label sets (shared between answers) and the values. */
interface StoredAnswer {
  readonly labels: readonly Labels[];
  readonly values: Float64Array;
  readonly warnings: readonly string[];
}

type Labels = Readonly<Record<string, string>>;

/** Returns the first label set seen equal to `labels`, so each distinct set is stored once. */
function labelInterner(): (labels: Labels) => Labels {
  const labelSets = new Map<string, Labels>();
  return (labels) => {
    let key = "";
    for (const k in labels) key += `${k}\u0000${labels[k]}\u0001`;
    const seen = labelSets.get(key);
    if (seen) return seen;
    labelSets.set(key, labels);
    return labels;
  };
}

/** A recorded instant answer already in columns, its labels interned (decodeReplayApi reads them so). */
interface ColumnarAnswer {
  readonly time: number;
  readonly labels: readonly Labels[];
  readonly values: Float64Array;
  readonly warnings?: readonly string[];
}

type InstantInput =
  | ReplayFile["instant"][number]
  | { readonly query: string; readonly answers: readonly ColumnarAnswer[] };

/** What ReplayApi is built from: a ReplayFile is one. */
export interface ReplayEntries {
  readonly meta: ReplayMeta;
  readonly instant: Iterable<InstantInput>;
  readonly range: Iterable<ReplayFile["range"][number]>;
  /** The interner the columnar answers' labels went through (decodeReplayApi), shared with the rest. */
  readonly internLabels?: (labels: Labels) => Labels;
}

/**
 * Implements PromQueryApi from a replay file. Instant answers are kept columnar with each distinct label
 * set stored once: a 10,000-instance recording's 1.3 million samples as parsed JSON objects are about
 * 200 MB of heap that a long-running console would hold for as long as it serves the recording.
 */
export class ReplayApi implements PromQueryApi {
  private readonly instant = new Map<string, { times: number[]; answers: StoredAnswer[] }>();
  private readonly ranges = new Map<string, ReplayFile["range"][number]>();
  readonly meta: ReplayMeta;
  /**
   * How the instant entries arrived: read from their bytes straight into columns (replay-json.ts) or as
   * whole parsed entries (a ReplayFile, or an entry in another form than the recorder's).
   */
  readonly decoding = { columnarEntries: 0, wholeEntries: 0 };

  /** A replay file, or its metadata and entries as iterables consumed once (see decodeReplayApi). */
  constructor(file: ReplayEntries) {
    this.meta = file.meta;
    const intern = file.internLabels ?? labelInterner();
    for (const e of file.instant) {
      const columnar = e.answers.length > 0 && e.answers.every((a) => "values" in a);
      if (columnar) this.decoding.columnarEntries++;
      else this.decoding.wholeEntries++;
      const answers = [...e.answers].sort((a, b) => a.time - b.time);
      this.instant.set(e.query, {
        times: answers.map((a) => a.time),
        answers: answers.map((a) => {
          if ("values" in a) return { labels: a.labels, values: a.values, warnings: a.warnings ?? [] };
          const values = new Float64Array(a.data.length);
          const labels = a.data.map((s, i) => {
            values[i] = fromWire(s.value);
            return intern(s.labels);
          });
          return { labels, values, warnings: a.warnings ?? [] };
        }),
      });
    }
    for (const e of file.range) this.ranges.set(e.query, e);
  }

  /** The last recorded evaluation time. */
  defaultTime(): number {
    return this.meta.end;
  }

  /** The server the answers came from; its time offset is already in the recorded times. */
  async backend(): Promise<{
    queryDelaySeconds: number;
    note: null;
    kind: "prometheus" | "victoriametrics";
  }> {
    return { queryDelaySeconds: 0, note: null, kind: this.meta.backend ?? "prometheus" };
  }

  private describe(): string {
    const m = this.meta;
    return `recorded from ${shownRecordedFrom(m.recordedFrom)} at ${m.recordedAt} (window ${m.window}${m.charts ? `, charts at step ${m.charts.step}s` : ""})`;
  }

  async queryVector(expr: string, opts: { time: number }): Promise<QueryAnswer<VectorSample[]>> {
    const e = this.instant.get(expr);
    if (!e) return this.instantFromRecorded(expr, opts.time);
    const i = nearest(e.times, opts.time);
    const t = e.times[i]!;
    const slack = this.meta.everySeconds;
    if (opts.time < e.times[0]! - slack || opts.time > e.times.at(-1)! + slack)
      throw new ReplayMissError(
        expr,
        `time ${iso(opts.time)} is outside the recording (${iso(e.times[0]!)} to ${iso(e.times.at(-1)!)}) for query`,
      );
    const a = e.answers[i]!;
    const data: VectorSample[] = new Array(a.values.length);
    for (let j = 0; j < data.length; j++)
      data[j] = { labels: a.labels[j]!, timestamp: t, value: a.values[j]! };
    return { data, warnings: a.warnings };
  }

  async queryRange(
    expr: string,
    opts: { start: number; end: number; step: number },
  ): Promise<QueryAnswer<MatrixSeries[]>> {
    const e = this.ranges.get(expr);
    if (!e) {
      const split = splitInstanceMatcher(expr);
      const fleet = split ? this.ranges.get(split.fleetWide) : undefined;
      if (!split || !fleet)
        throw new ReplayMissError(expr, `range query not in the replay file ${this.describe()}`);
      const a = await this.rangeOf(fleet, expr, opts);
      return { data: a.data.filter((x) => split.matches(x.labels[INSTANCE_LABEL])), warnings: a.warnings };
    }
    return this.rangeOf(e, expr, opts);
  }

  /**
   * An instant query whose exact text was not recorded, answered from what was: the same query over
   * the whole fleet (the text without its instance matcher), its series filtered by instance, since every
   * query the catalog builds keeps one result per instance (`by (instance)`) and so answers each instance
   * alone; or the same text (or the fleet-wide one) recorded as a range query, read at the recorded
   * evaluation time at or before `time` (one recorded step of slack), which is the value Prometheus
   * evaluates there. Anything else is a miss.
   */
  private async instantFromRecorded(expr: string, time: number): Promise<QueryAnswer<VectorSample[]>> {
    const split = splitInstanceMatcher(expr);
    const keep = (labels: Labels) => !split || split.matches(labels[INSTANCE_LABEL]);
    const fleet = split ? this.instant.get(split.fleetWide) : undefined;
    if (split && fleet) {
      const a = await this.queryVector(split.fleetWide, { time });
      return { data: a.data.filter((x) => keep(x.labels)), warnings: a.warnings };
    }
    const range = this.ranges.get(expr) ?? (split ? this.ranges.get(split.fleetWide) : undefined);
    if (!range) {
      // `A or on(instance) B` (a signal read from untorn-exporter or the fallback exporter) whose sides
      // were recorded each: A's series, then B's for the instances A has none for.
      const sides = topLevelOrOnInstance(expr);
      if (sides.length < 2)
        throw new ReplayMissError(expr, `query not in the replay file ${this.describe()}`);
      const seen = new Set<string | undefined>();
      const data: VectorSample[] = [];
      const warnings: string[] = [];
      for (const side of sides) {
        const a = await this.queryVector(side, { time }).catch((e: unknown) => {
          if (e instanceof ReplayMissError)
            throw new ReplayMissError(expr, `query not in the replay file ${this.describe()}`);
          throw e;
        });
        warnings.push(...a.warnings);
        const here = new Set<string | undefined>();
        for (const x of a.data) {
          const i = x.labels[INSTANCE_LABEL];
          if (seen.has(i)) continue;
          here.add(i);
          data.push(x);
        }
        for (const i of here) seen.add(i);
      }
      return { data, warnings };
    }
    if (time < range.start - range.step || time > range.end + range.step)
      throw new ReplayMissError(
        expr,
        `time ${iso(time)} is outside the recording (${iso(range.start)} to ${iso(range.end)}) for query`,
      );
    const data: VectorSample[] = [];
    for (const x of range.data) {
      if (!keep(x.labels)) continue;
      let at: readonly [number, Wire] | undefined;
      for (const p of x.points) if (p[0] <= time + 1e-9) at = p;
      if (at && time - at[0] <= range.step + 1e-9)
        data.push({ labels: x.labels, timestamp: at[0], value: fromWire(at[1]) });
    }
    return { data, warnings: range.warnings ?? [] };
  }

  private async rangeOf(
    e: ReplayFile["range"][number],
    expr: string,
    opts: { start: number; end: number; step: number },
  ): Promise<QueryAnswer<MatrixSeries[]>> {
    if (Math.abs(opts.step - e.step) > 1e-9)
      throw new ReplayMissError(expr, `recorded at step ${e.step}s, asked for ${opts.step}s`);
    if (opts.end < e.start - e.step || opts.start > e.end + e.step)
      throw new ReplayMissError(
        expr,
        `range ${iso(opts.start)} to ${iso(opts.end)} is outside the recording (${iso(e.start)} to ${iso(e.end)}) for query`,
      );
    const data = e.data
      .map((s) => ({
        labels: s.labels,
        points: s.points
          .filter(([t]) => t >= opts.start && t <= opts.end)
          .map(([t, v]) => [t, fromWire(v)] as const),
      }))
      .filter((s) => s.points.length > 0);
    return { data, warnings: e.warnings ?? [] };
  }
}

const INSTANCE_LABEL = "instance";

/** A PromQL string literal's value (the catalog's quote() in reverse). */
function unquote(body: string): string {
  return body.replace(/\\(.)/g, (_, c: string) => (c === "n" ? "\n" : c));
}

/**
 * The instance matcher every selector of `expr` carries (`instance="a"` or `instance=~"a|b"`, the same
 * in each), and the text without it: the fleet-wide query that answers for those instances too. Null when
 * the query has no instance matcher, or selectors that differ in it.
 */
export function splitInstanceMatcher(
  expr: string,
): { readonly fleetWide: string; readonly matches: (instance: string | undefined) => boolean } | null {
  const re = /([{,]\s*)instance(=~|=)"((?:[^"\\]|\\.)*)"(\s*,\s*)?/g;
  let matcher: string | null = null;
  let mixed = false;
  const fleetWide = expr
    .replace(re, (_all, before: string, op: string, body: string, after: string | undefined) => {
      const m = `${op}${body}`;
      if (matcher !== null && matcher !== m) mixed = true;
      matcher = m;
      // `{instance=…, x="y"}` → `{x="y"}`; `{x="y", instance=…}` → `{x="y"}`; `{instance=…}` → ``.
      if (before.startsWith("{")) return "{";
      return after ? ", " : "";
    })
    .replace(/\{\}/g, "");
  if (matcher === null || mixed) return null;
  const found: string = matcher;
  const value = unquote(found.startsWith("=~") ? found.slice(2) : found.slice(1));
  if (!found.startsWith("=~")) return { fleetWide, matches: (i) => i === value };
  let rx: RegExp;
  try {
    rx = new RegExp(`^(?:${value})$`);
  } catch {
    return null;
  }
  return { fleetWide, matches: (i) => i !== undefined && rx.test(i) };
}

/** The operands of `expr` joined by `or on(instance)` outside any parentheses; [expr] when there is none. */
export function topLevelOrOnInstance(expr: string): string[] {
  const sep = " or on(instance) ";
  const out: string[] = [];
  let depth = 0;
  let quoted = false;
  let from = 0;
  for (let i = 0; i < expr.length; i++) {
    const c = expr[i]!;
    if (quoted) {
      if (c === "\\") i++;
      else if (c === '"') quoted = false;
      continue;
    }
    if (c === '"') quoted = true;
    else if (c === "(" || c === "[" || c === "{") depth++;
    else if (c === ")" || c === "]" || c === "}") depth--;
    else if (depth === 0 && expr.startsWith(sep, i)) {
      out.push(expr.slice(from, i));
      from = i + sep.length;
      i += sep.length - 1;
    }
  }
  out.push(expr.slice(from));
  return out.map((x) => x.trim());
}

function nearest(sorted: readonly number[], t: number): number {
  let lo = 0;
  let hi = sorted.length - 1;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (sorted[mid]! < t) lo = mid + 1;
    else hi = mid;
  }
  if (lo > 0 && Math.abs(sorted[lo - 1]! - t) <= Math.abs(sorted[lo]! - t)) return lo - 1;
  return lo;
}

const iso = (t: number) => new Date(t * 1000).toISOString();

/**
 * Where a recording was read from, as a user is shown it (the console's badge, banners, reports and API,
 * the CLI's source line, a replay miss):
 * a loopback address (the lab's Prometheus on a random local port) means nothing on another machine, so
 * it is named for what it was; any other URL is shown without credentials.
 */
export function shownRecordedFrom(recordedFrom: string): string {
  let u: URL;
  try {
    u = new URL(recordedFrom);
  } catch {
    return recordedFrom;
  }
  const host = u.hostname.replace(/^\[|\]$/g, "");
  if (host === "localhost" || host === "::1" || /^127\./.test(host))
    return "a Prometheus local to the recording machine";
  u.username = "";
  u.password = "";
  return u.toString().replace(/\/$/, "");
}
