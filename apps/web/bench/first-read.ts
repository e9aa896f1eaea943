/**
 * The console's first fleet read over a replay, step by step, builds (or ways of decoding) side by side:
 * the decode (readReplayApi streamed, as source.ts reads the file, or decodeReplayApi of the whole
 * file), the facts (buildFleetFacts), the snapshot (buildSnapshot of @untorn/fleet/pipeline: advice
 * kept, ranking, rows) and the CLI's profile of the same facts (profileFacts: every advice, ranking,
 * rows), each child process running one variant's code (a checkout from before the pipeline has
 * buildSnapshot in apps/web/src/server/fleet/snapshot.ts).
 *
 *   UNTORN_BENCH_BEFORE=<checkout of the previous commit> npm run bench:first-read -w @untorn/web
 *   UNTORN_BENCH_VARIANTS=<name>=<checkout>[@whole][@idle|@collect],... npm run bench:first-read -w @untorn/web
 *   (UNTORN_BENCH_SIZE, default 10000; UNTORN_BENCH_ROUNDS, default 3; UNTORN_BENCH_HEAP_CAP_MB adds
 *   runs with the old space capped; UNTORN_BENCH_OUT, the result file's name under bench/results,
 *   default web-first-read-client.json)
 *
 * Without UNTORN_BENCH_VARIANTS the variants are "before" (UNTORN_BENCH_BEFORE) and "after" (this
 * checkout), both streamed; "." is this checkout, and `@whole` decodes the whole file with
 * decodeReplayApi instead of streaming it. `@idle` and `@collect` add the RSS 10 s after the read
 * (`settledRssMb`, the web bench's "RSS settled"): `@idle` leaves the process alone until then,
 * `@collect` runs the round of full collections server.mjs runs after a read (src/server/fleet/collect.ts:
 * 3 s of quiet, then collections at 0, 100 and 5,000 ms). Each round runs every variant once, the order
 * rotated and alternated between rounds. Each child prints each step's wall and CPU time and the RSS after it, the
 * peak RSS up to the end of the decode and of the read (`resourceUsage().maxRSS`), the heap and RSS
 * after the read once collected, and a digest of every result (facts, missing, skipped, warnings,
 * exporters, kept advice, ranking, rows, summary, and the profile's advice, ranking, rows): the bench
 * fails unless every variant gives the same digest, on the synthetic fleet and on the lab recording.
 * Ratios are the medians of the per-round ratios of each pair, with their spread. Writes
 * bench/results/web-first-read-client.json (or UNTORN_BENCH_OUT).
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, promises as fsp, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchMachine } from "./machine.js";

const SELF = fileURLToPath(import.meta.url);
const HERE = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const RESULTS = join(HERE, "bench/results", process.env.UNTORN_BENCH_OUT ?? "web-first-read-client.json");
const LAB = join(HERE, "lab/recordings/mariadb-10.11-fleet.json.gz");
const END = 1_795_000_000;

const mb = (b: number) => Math.round((b / 2 ** 20) * 10) / 10;
const ms = (x: number) => Math.round(x * 10) / 10;

interface Step {
  readonly wallMs: number;
  readonly cpuMs: number;
  readonly rssMb: number;
}

const replacer = (_k: string, v: unknown): unknown => {
  if (v === undefined) return "\u0000undefined";
  if (typeof v === "number" && (!Number.isFinite(v) || Object.is(v, -0)))
    return `\u0000${Object.is(v, -0) ? "-0" : v}`;
  if (v instanceof Map) return { "\u0000map": [...v] };
  if (v instanceof Set) return { "\u0000set": [...v] };
  return v;
};

/**
 * A digest of `x` that tells apart key order, undefined fields, -0, NaN and Maps; an array's or a Map's
 * elements are hashed one at a time (10,000 full advices are 190 MB of JSON).
 */
function digest(x: unknown): string {
  const h = createHash("sha256");
  if (Array.isArray(x) || x instanceof Map) {
    h.update(x instanceof Map ? "map" : "array");
    for (const e of x) h.update(`${JSON.stringify(e, replacer)}\n`);
  } else h.update(JSON.stringify(x, replacer));
  return h.digest("hex");
}

type Decode = "stream" | "whole";
/** After the read: straight on (forced collections only), left idle, or collect.ts's round. */
type Settle = "none" | "idle" | "collect";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** The RSS 10 s after the read, left idle or with collect.ts's round (COLLECT_DELAY_MS, COLLECT_PASSES_MS). */
async function settledRss(settle: Settle, gc: () => void): Promise<number | null> {
  if (settle === "none") return null;
  const end = performance.now() + 10_000;
  if (settle === "collect") {
    await sleep(3_000);
    for (const wait of [0, 100, 5_000]) {
      await sleep(wait);
      gc();
    }
  }
  await sleep(Math.max(0, end - performance.now()));
  return mb(process.memoryUsage().rss);
}

/** Child mode: the first read with the code of the checkout at `root`; prints one JSON line. */
async function child(root: string, file: string, decode: Decode, settle: Settle): Promise<void> {
  const src = (p: string) => import(join(root, p));
  const { decodeReplayApi, readReplayApi, replayFactsOptions } = await src("packages/fleet/src/replay.ts");
  const { buildFleetFacts } = await src("packages/fleet/src/facts.ts");
  const { profileFacts } = await src("packages/fleet/src/profile.ts");
  const { buildSnapshot } = await src("packages/fleet/src/pipeline.ts").catch(() =>
    src("apps/web/src/server/fleet/snapshot.ts"),
  );
  const gc = (globalThis as { gc?: () => void }).gc;
  if (!gc) throw new Error("run with node --expose-gc");

  const steps: Record<string, Step> = {};
  async function step<T>(name: string, fn: () => Promise<T> | T): Promise<T> {
    const c0 = process.cpuUsage();
    const t0 = performance.now();
    const out = await fn();
    const c = process.cpuUsage(c0);
    steps[name] = {
      wallMs: ms(performance.now() - t0),
      cpuMs: ms((c.user + c.system) / 1000),
      rssMb: mb(process.memoryUsage().rss),
    };
    return out;
  }

  const api = await step("decode", async () =>
    decode === "whole"
      ? decodeReplayApi(await fsp.readFile(file))
      : readReplayApi({
          chunks: () => createReadStream(file, { highWaterMark: 256 * 1024 }),
          whole: () => fsp.readFile(file),
        }),
  );
  const peakDecodeMb = mb(process.resourceUsage().maxRSS * 1024);
  const fleet = await step("facts", () => buildFleetFacts(api, replayFactsOptions(api.meta)));
  const snap = await step("snapshot", () =>
    buildSnapshot({
      fleet,
      rowsOf: (rows: unknown[]) => rows,
      metadata: [],
      storeProblem: null,
      fetchedAt: 0,
      fetchMs: 0,
      window: fleet.plan.window,
    }),
  );
  // What the console holds once the first read's garbage is collected (the replay stays cached).
  const peakReadMb = mb(process.resourceUsage().maxRSS * 1024);
  const settledRssMb = await settledRss(settle, gc);
  gc();
  gc();
  const afterRead = { heapMb: mb(process.memoryUsage().heapUsed), rssMb: mb(process.memoryUsage().rss) };
  const profile = await step("profile", () => profileFacts(fleet.facts, fleet.skipped.length));
  const results = {
    facts: fleet.facts,
    missing: fleet.missing,
    skipped: fleet.skipped,
    warnings: fleet.warnings,
    exporters: fleet.exporters,
    queries: fleet.queries,
    advice: snap.advice,
    snapshotSkipped: snap.skipped,
    ranking: snap.ranking,
    rows: snap.rows,
    summary: snap.summary,
    profileAdvice: profile.advice,
    profileRanking: profile.ranking,
    profileRows: profile.rows,
    profileSummary: profile.summary,
    profileFailed: profile.failed,
  };
  process.stdout.write(
    `${JSON.stringify({
      steps,
      firstRead: {
        wallMs: ms(steps.decode!.wallMs + steps.facts!.wallMs + steps.snapshot!.wallMs),
        cpuMs: ms(steps.decode!.cpuMs + steps.facts!.cpuMs + steps.snapshot!.cpuMs),
      },
      afterRead,
      peakDecodeRssMb: peakDecodeMb,
      peakReadRssMb: peakReadMb,
      settledRssMb,
      instances: fleet.facts.length,
      rows: snap.rows.length,
      ...(() => {
        const digests = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, digest(v)]));
        return { digest: digest(digests), digests };
      })(),
    })}\n`,
  );
}

type ChildOut = {
  steps: Record<string, Step>;
  firstRead: { wallMs: number; cpuMs: number };
  afterRead: { heapMb: number; rssMb: number };
  peakDecodeRssMb: number;
  peakReadRssMb: number;
  settledRssMb: number | null;
  instances: number;
  rows: number;
  digest: string;
  digests: Record<string, string>;
};

/** One way of reading: the checkout whose code runs, and how it decodes the replay. */
interface Variant {
  readonly name: string;
  readonly root: string;
  readonly decode: Decode;
  readonly settle: Settle;
}

function run(v: Variant, file: string, heapCapMb: number | null): ChildOut {
  return JSON.parse(
    execFileSync(
      process.execPath,
      [
        ...(heapCapMb ? [`--max-old-space-size=${heapCapMb}`] : []),
        "--expose-gc",
        "--conditions=@untorn/source",
        "--import",
        "tsx",
        SELF,
        "--child",
        v.root,
        file,
        v.decode,
        v.settle,
      ],
      { encoding: "utf8", maxBuffer: 1 << 20 },
    ),
  ) as ChildOut;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/** UNTORN_BENCH_VARIANTS (`name=root[@whole]`, comma-separated), else before and after. */
function variantsOf(env: NodeJS.ProcessEnv): Variant[] {
  if (env.UNTORN_BENCH_VARIANTS) {
    const out = env.UNTORN_BENCH_VARIANTS.split(",").map((spec): Variant => {
      const m = /^([\w-]+)=(.+?)(@whole)?(@idle|@collect)?$/.exec(spec.trim());
      if (!m)
        throw new Error(`UNTORN_BENCH_VARIANTS: "${spec}" is not name=<checkout>[@whole][@idle|@collect]`);
      return {
        name: m[1]!,
        root: m[2] === "." ? HERE : resolve(m[2]!),
        decode: m[3] ? "whole" : "stream",
        settle: m[4] ? (m[4].slice(1) as Settle) : "none",
      };
    });
    if (out.length < 2 || new Set(out.map((v) => v.name)).size !== out.length)
      throw new Error("UNTORN_BENCH_VARIANTS: at least two variants, each name once");
    return out;
  }
  const before = env.UNTORN_BENCH_BEFORE;
  if (!before) throw new Error("set UNTORN_BENCH_BEFORE to a checkout of the previous commit (installed)");
  return [
    { name: "before", root: resolve(before), decode: "stream", settle: "none" },
    { name: "after", root: HERE, decode: "stream", settle: "none" },
  ];
}

type Run = { round: number; variant: string; heapCapMb: number | null; load1m: number } & ChildOut;

const MEASURES: Record<string, (x: ChildOut) => number> = {
  decodeCpuMs: (x) => x.steps.decode!.cpuMs,
  factsCpuMs: (x) => x.steps.facts!.cpuMs,
  snapshotCpuMs: (x) => x.steps.snapshot!.cpuMs,
  profileCpuMs: (x) => x.steps.profile!.cpuMs,
  decodeWallMs: (x) => x.steps.decode!.wallMs,
  factsWallMs: (x) => x.steps.facts!.wallMs,
  snapshotWallMs: (x) => x.steps.snapshot!.wallMs,
  profileWallMs: (x) => x.steps.profile!.wallMs,
  firstReadWallMs: (x) => x.firstRead.wallMs,
  firstReadCpuMs: (x) => x.firstRead.cpuMs,
  rssAfterDecodeMb: (x) => x.steps.decode!.rssMb,
  rssAfterFactsMb: (x) => x.steps.facts!.rssMb,
  rssAfterSnapshotMb: (x) => x.steps.snapshot!.rssMb,
  peakDecodeRssMb: (x) => x.peakDecodeRssMb,
  peakReadRssMb: (x) => x.peakReadRssMb,
  settledRssMb: (x) => x.settledRssMb ?? Number.NaN,
  rssAfterReadCollectedMb: (x) => x.afterRead.rssMb,
  heapAfterReadCollectedMb: (x) => x.afterRead.heapMb,
};

const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Per variant, each measure's median; per ordered pair, the median (and range) of per-round ratios. */
function summarise(runs: readonly Run[], variants: readonly Variant[], capMb: number | null) {
  const of = (name: string) => runs.filter((x) => x.variant === name && x.heapCapMb === capMb);
  const medians = Object.fromEntries(
    variants.map((v) => [
      v.name,
      Object.fromEntries(Object.entries(MEASURES).map(([k, f]) => [k, r3(median(of(v.name).map(f)))])),
    ]),
  );
  const ratios: Record<string, Record<string, { median: number; min: number; max: number }>> = {};
  for (const a of variants)
    for (const b of variants) {
      if (a === b) continue;
      ratios[`${a.name}/${b.name}`] = Object.fromEntries(
        Object.entries(MEASURES).map(([k, f]) => {
          const per = of(a.name).map((x) => {
            const y = of(b.name).find((z) => z.round === x.round)!;
            return f(x) / f(y);
          });
          return [k, { median: r3(median(per)), min: r3(Math.min(...per)), max: r3(Math.max(...per)) }];
        }),
      );
    }
  return { medians, ratios };
}

async function main(): Promise<void> {
  const variants = variantsOf(process.env);
  const size = Number(process.env.UNTORN_BENCH_SIZE ?? 10_000);
  const rounds = Number(process.env.UNTORN_BENCH_ROUNDS ?? 3);
  const cap = process.env.UNTORN_BENCH_HEAP_CAP_MB ? Number(process.env.UNTORN_BENCH_HEAP_CAP_MB) : null;
  const { writeSyntheticReplay } = await import("./synthetic-fleet.js");
  const work = mkdtempSync(join(tmpdir(), "untorn-first-read-"));
  const load0 = loadavg()[0]!;
  try {
    const file = join(work, "fleet.json.gz");
    const { samples } = await writeSyntheticReplay(file, { size, end: END });
    const runs: Run[] = [];
    for (const heapCapMb of cap ? [null, cap] : [null])
      for (let r = 1; r <= rounds; r++) {
        // Every variant in every place of the order in turn (rotated every other round, reversed in the
        // rounds between: A B, B A, B A, A B, ... for two), so neither a load swing nor the place favours one.
        const k = Math.floor((r - 1) / 2) % variants.length;
        const rotated = [...variants.slice(k), ...variants.slice(0, k)];
        for (const v of r % 2 ? rotated : rotated.reverse()) {
          const load1m = Math.round(loadavg()[0]! * 10) / 10;
          const out = run(v, file, heapCapMb);
          runs.push({ round: r, variant: v.name, heapCapMb, load1m, ...out });
          console.log(
            `round ${r} ${v.name}${heapCapMb ? ` (cap ${heapCapMb} MB)` : ""}, load ${load1m}: ${JSON.stringify(out.steps)} after read ${JSON.stringify(out.afterRead)} peak decode ${out.peakDecodeRssMb} / read ${out.peakReadRssMb} MB${out.settledRssMb === null ? "" : `, settled ${out.settledRssMb} MB`}`,
          );
        }
      }
    const lab = variants.map((v) => ({ variant: v.name, ...run(v, LAB, null) }));
    const sameSynthetic = new Set(runs.map((x) => x.digest)).size === 1;
    const sameLab = new Set(lab.map((x) => x.digest)).size === 1;
    if (!sameSynthetic || !sameLab) {
      const differing = (xs: readonly ChildOut[]) => {
        const other = xs.find((x) => x.digest !== xs[0]!.digest);
        return other ? Object.keys(other.digests).filter((k) => other.digests[k] !== xs[0]!.digests[k]) : [];
      };
      throw new Error(
        `the variants' results differ: synthetic ${sameSynthetic ? "same" : differing(runs).join(", ")}; lab ${sameLab ? "same" : differing(lab).join(", ")}`,
      );
    }
    const summary = Object.fromEntries(
      (cap ? [null, cap] : [null]).map((capMb) => [
        capMb ? `heapCap${capMb}` : "defaultHeap",
        summarise(runs, variants, capMb),
      ]),
    );
    const result = {
      benchmark:
        "web console's first read over a replay, variants side by side, each run in its own process: decode, facts, snapshot, and the CLI profile of the same facts",
      when: new Date().toISOString(),
      machine: benchMachine(load0),
      variants,
      fleet: { instances: size, samples, rounds },
      sameResults: { synthetic: sameSynthetic, lab: sameLab, digest: runs[0]!.digest },
      summary,
      runs,
      lab,
    };
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify(summary, null, 1));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "--child") {
  const [root, file, decode = "stream", settle = "none"] = rest;
  if (
    !root ||
    !file ||
    (decode !== "stream" && decode !== "whole") ||
    !["none", "idle", "collect"].includes(settle)
  )
    throw new Error(
      `usage: first-read.ts --child <checkout> <replay file> [stream|whole] [none|idle|collect], not ${rest.join(" ")}`,
    );
  await child(root, file, decode, settle as Settle);
} else await main();
