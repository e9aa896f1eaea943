/**
 * The console's first fleet read over a replay, step by step, the previous build beside this one: the
 * streamed decode (readReplayApi, as source.ts reads the file), the facts (buildFleetFacts), the
 * snapshot (buildSnapshot: advice kept, ranking, rows) and the CLI's profile of the same facts
 * (profileFacts: every advice, ranking, rows), each child process running one build's code.
 *
 *   UNTORN_BENCH_BEFORE=<checkout of the previous commit> npm run bench:first-read -w @untorn/web
 *   (UNTORN_BENCH_SIZE, default 10000; UNTORN_BENCH_ROUNDS, default 3; UNTORN_BENCH_HEAP_CAP_MB adds
 *   runs with the old space capped; UNTORN_BENCH_OUT, the result file's name under bench/results,
 *   default web-first-read-client.json)
 *
 * Each child prints each step's wall and CPU time and the RSS after it, the heap and RSS after the read
 * once collected, the peak RSS (`resourceUsage().maxRSS`), and a digest of every result (facts, missing,
 * skipped, warnings, exporters, kept advice, ranking, rows, summary, and the profile's advice, ranking,
 * rows): the bench fails unless both builds give the same digest, on the synthetic fleet and on the lab
 * recording. Writes bench/results/web-first-read-client.json
 * (or UNTORN_BENCH_OUT).
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

/** Child mode: the first read with the code of the checkout at `root`; prints one JSON line. */
async function child(root: string, file: string): Promise<void> {
  const src = (p: string) => import(join(root, p));
  const { readReplayApi, replayFactsOptions } = await src("packages/fleet/src/replay.ts");
  const { buildFleetFacts } = await src("packages/fleet/src/facts.ts");
  const { profileFacts } = await src("packages/fleet/src/profile.ts");
  const { buildSnapshot } = await src("apps/web/src/server/fleet/snapshot.ts");
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

  const api = await step("decode", () =>
    readReplayApi({
      chunks: () => createReadStream(file, { highWaterMark: 256 * 1024 }),
      whole: () => fsp.readFile(file),
    }),
  );
  const fleet = await step("facts", () => buildFleetFacts(api, replayFactsOptions(api.meta)));
  const snap = await step("snapshot", () =>
    buildSnapshot({
      fleet,
      metadata: [],
      storeProblem: null,
      fetchedAt: 0,
      fetchMs: 0,
      window: fleet.plan.window,
    }),
  );
  // What the console holds once the first read's garbage is collected (the replay stays cached).
  const peakReadMb = mb(process.resourceUsage().maxRSS * 1024);
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
      peakReadRssMb: peakReadMb,
      instances: fleet.facts.length,
      rows: snap.rows.length,
      ...(() => {
        const digests = Object.fromEntries(Object.entries(results).map(([k, v]) => [k, digest(v)]));
        return { digest: digest(digests), digests };
      })(),
    })}\n`,
  );
}

type Build = "before" | "after";
type ChildOut = {
  steps: Record<string, Step>;
  firstRead: { wallMs: number; cpuMs: number };
  afterRead: { heapMb: number; rssMb: number };
  peakReadRssMb: number;
  instances: number;
  rows: number;
  digest: string;
  digests: Record<string, string>;
};

function run(root: string, file: string, heapCapMb: number | null): ChildOut {
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
        root,
        file,
      ],
      { encoding: "utf8", maxBuffer: 1 << 20 },
    ),
  ) as ChildOut;
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

async function main(): Promise<void> {
  const before = process.env.UNTORN_BENCH_BEFORE;
  if (!before) throw new Error("set UNTORN_BENCH_BEFORE to a checkout of the previous commit (installed)");
  const size = Number(process.env.UNTORN_BENCH_SIZE ?? 10_000);
  const rounds = Number(process.env.UNTORN_BENCH_ROUNDS ?? 3);
  const cap = process.env.UNTORN_BENCH_HEAP_CAP_MB ? Number(process.env.UNTORN_BENCH_HEAP_CAP_MB) : null;
  const roots: Record<Build, string> = { before: resolve(before), after: HERE };
  const { writeSyntheticReplay } = await import("./synthetic-fleet.js");
  const work = mkdtempSync(join(tmpdir(), "untorn-first-read-"));
  const load0 = loadavg()[0]!;
  try {
    const file = join(work, "fleet.json.gz");
    const { samples } = await writeSyntheticReplay(file, { size, end: END });
    const runs: ({ round: number; build: Build; heapCapMb: number | null; load1m: number } & ChildOut)[] = [];
    for (const heapCapMb of cap ? [null, cap] : [null])
      for (let r = 1; r <= rounds; r++)
        for (const build of (r % 2 ? ["before", "after"] : ["after", "before"]) as Build[]) {
          const load1m = Math.round(loadavg()[0]! * 10) / 10;
          const out = run(roots[build], file, heapCapMb);
          runs.push({ round: r, build, heapCapMb, load1m, ...out });
          console.log(
            `round ${r} ${build}${heapCapMb ? ` (cap ${heapCapMb} MB)` : ""}, load ${load1m}: ${JSON.stringify(out.steps)} after read ${JSON.stringify(out.afterRead)} peak ${out.peakReadRssMb} MB`,
          );
        }
    const lab = (["before", "after"] as Build[]).map((build) => ({ build, ...run(roots[build], LAB, null) }));
    const sameSynthetic = new Set(runs.map((x) => x.digest)).size === 1;
    const sameLab = lab[0]!.digest === lab[1]!.digest;
    if (!sameSynthetic || !sameLab) {
      const differing = (a: ChildOut, b: ChildOut) =>
        Object.keys(a.digests).filter((k) => a.digests[k] !== b.digests[k]);
      throw new Error(
        `the builds' results differ: synthetic ${sameSynthetic ? "same" : differing(runs[0]!, runs.find((x) => x.digest !== runs[0]!.digest)!).join(", ")}; lab ${sameLab ? "same" : differing(lab[0]!, lab[1]!).join(", ")}`,
      );
    }
    const pick = (b: Build, capMb: number | null, f: (x: ChildOut) => number) =>
      median(runs.filter((x) => x.build === b && x.heapCapMb === capMb).map(f));
    const measures: Record<string, (x: ChildOut) => number> = {
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
      peakReadRssMb: (x) => x.peakReadRssMb,
      rssAfterReadCollectedMb: (x) => x.afterRead.rssMb,
      heapAfterReadCollectedMb: (x) => x.afterRead.heapMb,
    };
    const summary = Object.fromEntries(
      (cap ? [null, cap] : [null]).map((capMb) => [
        capMb ? `heapCap${capMb}` : "defaultHeap",
        Object.fromEntries(
          Object.entries(measures).map(([k, f]) => {
            const b = pick("before", capMb, f);
            const a = pick("after", capMb, f);
            return [k, { before: b, after: a, ratio: Math.round((a / b) * 1000) / 1000 }];
          }),
        ),
      ]),
    );
    const result = {
      benchmark:
        "web console's first read over a replay, previous build beside this one, each run in its own process: streamed decode, facts, snapshot, and the CLI profile of the same facts",
      when: new Date().toISOString(),
      machine: benchMachine(load0),
      builds: { before: roots.before, after: roots.after },
      fleet: { instances: size, samples, rounds },
      sameResults: { synthetic: sameSynthetic, lab: sameLab, digest: runs[0]!.digest },
      medians: summary,
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
  const [root, file] = rest;
  if (!root || !file)
    throw new Error(`usage: first-read.ts --child <checkout> <replay file>, not ${rest.join(" ")}`);
  await child(root, file);
} else await main();
