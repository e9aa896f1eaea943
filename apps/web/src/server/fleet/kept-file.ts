/**
 * The kept fleet read's file: the measured FleetFacts of the last good fleet read, so that a restarted
 * console serves its fleet pages at once instead of after the whole read (docs/web.md, "The kept fleet
 * read"). Beside each instance's facts it keeps its snapshot advice (SnapshotAdvice) and
 * the digest of that advice's other inputs (@untorn/fleet/pipeline, adviceInputs: the declared metadata file's
 * entry and the stored metadata): a restart takes the advice of an instance whose digest still matches
 * and advises the others again; the declared file and the store's metadata are always read fresh.
 *
 * One gzip stream of JSON lines: the header (format, the build that wrote it, the source and its
 * identity, the evaluation time, when the facts were read and when the file was written), then the
 * fleet's fields other than its facts, then one line per instance: `{"facts", "advice", "inputs"}`
 * (advice and inputs null when the instance had no advice). `zcat <file> | head -1` shows
 * the header. It is written to a temporary file in the same directory, flushed to disk and renamed
 * over the previous one, so a reader finds the old file or the new one, never a part. Reading checks
 * the header first and stops there when it does not match; gzip's CRC and length, the JSON and the
 * instance count catch a corrupt or truncated file.
 *
 * The facts' numbers are finite (buildFleetFacts drops NaN and infinities as invalid values), so
 * JSON keeps them exactly.
 */
import fs from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { pipeline } from "node:stream/promises";
import { createGunzip, createGzip } from "node:zlib";
import type { InstanceFacts } from "@untorn/advisor/facts";
import type { FleetFacts } from "@untorn/fleet/facts";
import type { ReusableAdvice } from "@untorn/fleet/pipeline";
import { z } from "zod";
import { parseKeptAdvice } from "./kept-advice-schema.js";

/** Bumped whenever the layout of the file changes; another format is never read. */
export const KEPT_FORMAT = 2;
export const KEPT_FILE = "fleet-read.json.gz";
/** The magic first field of the header, so a stray gzip file is told apart from a kept read. */
const MAGIC = "untorn-kept-fleet-read";

const recordedSchema = z
  .object({
    recordedAt: z.string(),
    recordedFrom: z.string(),
    window: z.string(),
    end: z.number(),
    note: z.string().nullable(),
  })
  .strict();

export const keptSourceSchema = z.discriminatedUnion("kind", [
  z.object({ kind: z.literal("live"), url: z.string(), window: z.string() }).strict(),
  z
    .object({
      kind: z.literal("replay"),
      /** Absolute path of the replay file, with its size and mtime when it was read. */
      file: z.string(),
      size: z.number(),
      mtimeMs: z.number(),
      /** The replay's own description, for the source badge while the file itself is not read. */
      recorded: recordedSchema,
    })
    .strict(),
]);
export type KeptSource = z.infer<typeof keptSourceSchema>;

/** A source as far as a kept read must match it (a KeptSource is one). */
export type KeptSourceIdentity =
  | { readonly kind: "live"; readonly url: string; readonly window: string }
  | { readonly kind: "replay"; readonly file: string; readonly size: number; readonly mtimeMs: number };

/**
 * What a kept read must match to be used: a live source by its URL and window, a replay file by its
 * path, size and mtime (an edited or replaced file is another source).
 */
export function keptSourceKey(s: KeptSourceIdentity): string {
  return s.kind === "live"
    ? `live:${s.url}|window:${s.window}`
    : `replay:${s.file}|size:${s.size}|mtime:${s.mtimeMs}`;
}

const headerSchema = z
  .object({
    magic: z.literal(MAGIC),
    format: z.number().int(),
    /** The console build that wrote it (Next's BUILD_ID): another build never reads it as its own. */
    build: z.string().min(1),
    source: keptSourceSchema,
    sourceKey: z.string(),
    /** Evaluation time of the facts, Unix seconds. */
    at: z.number(),
    /** When the read began, ms since the epoch (the snapshot's fetchedAt). */
    fetchedAt: z.number(),
    /** How long the read took, ms. */
    fetchMs: z.number(),
    /** When this file was written, ms since the epoch. */
    writtenAt: z.number(),
    instances: z.number().int().nonnegative(),
  })
  .strict();
export type KeptHeader = z.infer<typeof headerSchema>;

/** The fleet's fields other than the facts; loose, so fields a later FleetFacts adds are kept too. */
const restSchema = z.looseObject({
  missing: z.record(z.string(), z.array(z.string())),
  skipped: z.array(z.looseObject({ instance: z.string(), reason: z.string() })),
  exporters: z.record(z.string(), z.looseObject({ untorn: z.boolean(), mysqldExporter: z.boolean() })),
  queries: z.number(),
  warnings: z.array(z.string()),
  at: z.number(),
  plan: z.looseObject({ window: z.string() }),
  recordingRules: z.looseObject({ used: z.boolean() }),
  clockNote: z.string().nullable(),
});

/** The header's fields the writer is told; format, magic, key, instances and writtenAt are its own. */
export type KeptHeaderInput = Omit<KeptHeader, "magic" | "format" | "sourceKey" | "writtenAt" | "instances">;

export interface KeptRead {
  readonly header: KeptHeader;
  readonly fleet: FleetFacts;
  /** The kept advice by instance, each with the digest of its inputs; only advice that passed its check. */
  readonly advice: Map<string, ReusableAdvice>;
  /** Kept advice that failed its schema check (those instances are advised again). */
  readonly adviceRejected: number;
}

/** Instances serialised (or parsed) between two turns of the event loop. */
const BATCH = 250;
const turn = () => new Promise<void>((r) => setImmediate(r));

/**
 * Writes `fleet` as the kept read in `dir` (created if missing), atomically: a temporary file beside
 * it, flushed, then renamed over the previous one. On failure the temporary file is removed and the
 * previous kept read, if any, is left as it was. Gives the event loop a turn every BATCH instances.
 */
export async function writeKeptRead(
  dir: string,
  input: KeptHeaderInput,
  fleet: FleetFacts,
  advice: (instance: string) => ReusableAdvice | null = () => null,
  now: () => number = Date.now,
): Promise<{ readonly file: string; readonly bytes: number }> {
  await fs.promises.mkdir(dir, { recursive: true });
  const file = path.join(dir, KEPT_FILE);
  const tmp = `${file}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
  const header: KeptHeader = {
    magic: MAGIC,
    format: KEPT_FORMAT,
    ...input,
    sourceKey: keptSourceKey(input.source),
    writtenAt: now(),
    instances: fleet.facts.length,
  };
  const { facts, ...rest } = fleet;
  async function* lines(): AsyncGenerator<string> {
    yield `${JSON.stringify(header)}\n${JSON.stringify(rest)}\n`;
    for (let i = 0; i < facts.length; i += BATCH) {
      let chunk = "";
      for (const f of facts.slice(i, i + BATCH)) {
        const a = advice(f.identity.instance);
        chunk += `${JSON.stringify({ facts: f, advice: a?.advice ?? null, inputs: a?.inputs ?? null })}\n`;
      }
      yield chunk;
      await turn();
    }
  }
  try {
    await pipeline(lines(), createGzip({ level: 6 }), fs.createWriteStream(tmp, { flags: "wx" }));
    const fh = await fs.promises.open(tmp, "r+");
    try {
      await fh.sync();
    } finally {
      await fh.close();
    }
    await fs.promises.rename(tmp, file);
  } catch (err) {
    await fs.promises.rm(tmp, { force: true });
    throw err;
  }
  return { file, bytes: (await fs.promises.stat(file)).size };
}

/** Why a kept read was not used; `missing` when there is none at all (not worth a warning). */
export type KeptRejection = { readonly missing: boolean; readonly reason: string };

export type KeptLoad =
  | { readonly ok: true; readonly read: KeptRead }
  | ({ readonly ok: false } & KeptRejection);

export interface KeptExpectation {
  readonly build: string;
  readonly sourceKey: string;
}

class Rejected extends Error {}

/**
 * The kept read in `dir` when it is whole and was written by build `expect.build` for the source
 * `expect.sourceKey`; otherwise why not (never throws for the file's content or absence). The header is
 * checked before anything else is decompressed.
 */
export async function readKeptRead(dir: string, expect: KeptExpectation): Promise<KeptLoad> {
  const file = path.join(dir, KEPT_FILE);
  let input: fs.ReadStream;
  try {
    const fh = await fs.promises.open(file, "r");
    input = fh.createReadStream();
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === "ENOENT") return { ok: false, missing: true, reason: `no kept read in ${dir}` };
    return { ok: false, missing: false, reason: `cannot open ${file}: ${(err as Error).message}` };
  }
  const gunzip = createGunzip();
  let streamError: Error | null = null;
  const fail = (err: Error) => {
    streamError ??= err;
  };
  input.on("error", fail);
  gunzip.on("error", fail);
  const rl = createInterface({ input: input.pipe(gunzip), crlfDelay: Number.POSITIVE_INFINITY });
  // readline stops (without an error) when its input errors: the error is checked after the loop.
  input.on("error", () => rl.close());
  gunzip.on("error", () => rl.close());
  let header: KeptHeader | null = null;
  let rest: Omit<FleetFacts, "facts"> | null = null;
  const facts: InstanceFacts[] = [];
  const advice = new Map<string, ReusableAdvice>();
  let adviceRejected = 0;
  try {
    let n = 0;
    for await (const line of rl) {
      n++;
      if (header === null) header = checkHeader(line, expect);
      else if (rest === null) rest = parseRest(line);
      else {
        const one = parseInstance(line, facts.length + 1);
        facts.push(one.facts);
        if (one.advice === "rejected") adviceRejected++;
        else if (one.advice) advice.set(one.facts.identity.instance, one.advice);
        if (facts.length % BATCH === 0) await turn();
      }
    }
    if (streamError) throw streamError;
    if (n === 0) throw new Rejected("the file is empty");
    if (header === null || rest === null) throw new Rejected("the file ends before the fleet's fields");
    if (facts.length !== header.instances)
      throw new Rejected(`truncated: ${facts.length} of ${header.instances} instances`);
    return { ok: true, read: { header, fleet: { ...rest, facts } as FleetFacts, advice, adviceRejected } };
  } catch (err) {
    const reason =
      err instanceof Rejected
        ? err.message
        : `corrupt or truncated (${(streamError ?? (err as Error)).message})`;
    return { ok: false, missing: false, reason };
  } finally {
    rl.close();
    input.destroy();
    gunzip.destroy();
  }
}

function parseJson(line: string, what: string): unknown {
  try {
    return JSON.parse(line);
  } catch (err) {
    throw new Rejected(`corrupt: ${what} is not JSON (${(err as Error).message})`);
  }
}

function checkHeader(line: string, expect: KeptExpectation): KeptHeader {
  const raw = parseJson(line, "the header");
  const magic = (raw as { magic?: unknown } | null)?.magic;
  if (magic !== MAGIC) throw new Rejected("not a kept fleet read (no header)");
  const format = (raw as { format?: unknown }).format;
  if (format !== KEPT_FORMAT) throw new Rejected(`format ${String(format)}, this build reads ${KEPT_FORMAT}`);
  const h = headerSchema.safeParse(raw);
  if (!h.success)
    throw new Rejected(
      `corrupt header: ${h.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  if (h.data.build !== expect.build)
    throw new Rejected(`written by build ${h.data.build}, this is build ${expect.build}`);
  if (h.data.sourceKey !== keptSourceKey(h.data.source)) throw new Rejected("corrupt header: its source key");
  if (h.data.sourceKey !== expect.sourceKey)
    throw new Rejected(`read from another source (${h.data.sourceKey}; this one is ${expect.sourceKey})`);
  return h.data;
}

function parseRest(line: string): Omit<FleetFacts, "facts"> {
  const r = restSchema.safeParse(parseJson(line, "the fleet's fields"));
  if (!r.success)
    throw new Rejected(
      `corrupt fleet fields: ${r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ")}`,
    );
  return r.data as unknown as Omit<FleetFacts, "facts">;
}

/**
 * One instance's line: its facts and kept advice. Only the facts' identity is checked: the file comes
 * from this very build (its header says so) and gzip's CRC guards the bytes, so a full
 * instanceFactsSchema parse of every instance would only slow the start it is there to speed up. The
 * advice is checked against keptAdviceSchema and must be the same instance's: advice that fails is
 * "rejected" and the instance advised again, never trusted.
 */
function parseInstance(
  line: string,
  n: number,
): { facts: InstanceFacts; advice: ReusableAdvice | "rejected" | null } {
  const raw = parseJson(line, `instance ${n}`) as {
    facts?: { identity?: { instance?: unknown } };
    advice?: unknown;
    inputs?: unknown;
  } | null;
  const f = raw?.facts;
  if (typeof f?.identity?.instance !== "string" || f.identity.instance === "")
    throw new Rejected(`corrupt: instance ${n} has no identity.instance`);
  const facts = f as InstanceFacts;
  if (raw?.advice == null) return { facts, advice: null };
  const advice = parseKeptAdvice(raw.advice);
  if (!advice || typeof raw.inputs !== "string" || advice.identity.instance !== facts.identity.instance)
    return { facts, advice: "rejected" };
  return { facts, advice: { advice, inputs: raw.inputs } };
}

/** Removes temporary files a writer killed mid-write left in `dir` (never the kept read itself). */
export async function removeLeftovers(dir: string): Promise<number> {
  let names: string[];
  try {
    names = await fs.promises.readdir(dir);
  } catch {
    return 0;
  }
  const left = names.filter((n) => n.startsWith(`${KEPT_FILE}.`) && n.endsWith(".tmp"));
  await Promise.all(left.map((n) => fs.promises.rm(path.join(dir, n), { force: true })));
  return left.length;
}
