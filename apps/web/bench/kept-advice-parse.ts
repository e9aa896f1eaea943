/**
 * A restart's load of the kept fleet read (kept-file.ts readKeptRead: gunzip, one JSON line per
 * instance, the facts' identity and each instance's kept advice checked) with the code of several
 * checkouts side by side. A synthetic fleet's read (facts and the snapshot's kept advice) is written once
 * as a kept read; then each child process loads it with its checkout's readKeptRead and, apart, checks
 * every advice again with its parseKeptAdvice alone, and prints the CPU times and a digest of what it
 * loaded (the bench fails unless every variant gives the same one). Each round runs every variant once,
 * the order rotated and alternated.
 *
 *   UNTORN_BENCH_VARIANTS=<name>=<checkout>,... npm run bench:kept-advice -w @untorn/web
 *   (UNTORN_BENCH_SIZE, default 10000; UNTORN_BENCH_ROUNDS, default 5; UNTORN_BENCH_OUT, the result
 *   file's name under bench/results, default web-kept-advice-parse.json; "." is this checkout)
 */
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { createReadStream, promises as fsp, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { benchMachine } from "./machine.js";

const SELF = fileURLToPath(import.meta.url);
const HERE = resolve(fileURLToPath(new URL("../../..", import.meta.url)));
const RESULTS = join(HERE, "bench/results", process.env.UNTORN_BENCH_OUT ?? "web-kept-advice-parse.json");
const END = 1_795_000_000;
const BUILD = "bench";
const SOURCE = { kind: "live", url: "http://bench:9090", window: "1h" } as const;

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};
const r3 = (x: number) => Math.round(x * 1000) / 1000;

/** Setup: the read of the replay at `file` as a kept read in `dir`, and its kept advice as JSON in `out`. */
async function setup(file: string, dir: string, out: string): Promise<void> {
  const { readReplayApi, replayFactsOptions } = await import("@untorn/fleet/replay");
  const { buildFleetFacts } = await import("@untorn/fleet/facts");
  const { adviceInputs, buildSnapshot } = await import("@untorn/fleet/pipeline");
  const { webRows } = await import("../src/lib/fleet-row.js");
  const { writeKeptRead } = await import("../src/server/fleet/kept-file.js");
  const api = await readReplayApi({
    chunks: () => createReadStream(file, { highWaterMark: 256 * 1024 }),
    whole: () => fsp.readFile(file),
  });
  const fleet = await buildFleetFacts(api, replayFactsOptions(api.meta));
  const snap = await buildSnapshot({
    fleet,
    rowsOf: webRows,
    metadata: [],
    storeProblem: null,
    fetchedAt: 0,
    fetchMs: 0,
    window: fleet.plan.window,
  });
  writeFileSync(out, JSON.stringify([...snap.advice.values()]));
  await writeKeptRead(
    dir,
    { build: BUILD, source: SOURCE, at: fleet.at, fetchedAt: 0, fetchMs: 0 },
    fleet,
    (i) => {
      const advice = snap.advice.get(i);
      return advice ? { advice, inputs: adviceInputs(snap, i) } : null;
    },
  );
}

const cpuMsSince = (c0: NodeJS.CpuUsage) => {
  const c = process.cpuUsage(c0);
  return Math.round((c.user + c.system) / 100) / 10;
};

/** Child: the checkout at `root` loads the kept read in `dir` and checks the advice in `file`; one JSON line. */
async function child(root: string, dir: string, file: string): Promise<void> {
  const { parseKeptAdvice } = await import(join(root, "apps/web/src/server/fleet/kept-advice-schema.ts"));
  const { keptSourceKey, readKeptRead } = await import(join(root, "apps/web/src/server/fleet/kept-file.ts"));
  const t0 = performance.now();
  let c0 = process.cpuUsage();
  const load = await readKeptRead(dir, { build: BUILD, sourceKey: keptSourceKey(SOURCE) });
  const loadCpuMs = cpuMsSince(c0);
  const loadWallMs = Math.round((performance.now() - t0) * 10) / 10;
  if (!load.ok) throw new Error(`the kept read was refused: ${load.reason}`);
  const advice = JSON.parse(readFileSync(file, "utf8")) as unknown[];
  c0 = process.cpuUsage();
  const parsed = advice.map((a) => parseKeptAdvice(a));
  const parseCpuMs = cpuMsSince(c0);
  const h = createHash("sha256");
  h.update(`${JSON.stringify(load.read.fleet)}\n${load.read.adviceRejected}\n`);
  for (const [instance, a] of load.read.advice) h.update(`${instance} ${JSON.stringify(a)}\n`);
  for (const p of parsed) h.update(`${JSON.stringify(p)}\n`);
  const out = {
    loadCpuMs,
    loadWallMs,
    parseCpuMs,
    instances: load.read.fleet.facts.length,
    adviceKept: load.read.advice.size,
    digest: h.digest("hex"),
  };
  process.stdout.write(`${JSON.stringify(out)}\n`);
}

type ChildOut = {
  loadCpuMs: number;
  loadWallMs: number;
  parseCpuMs: number;
  instances: number;
  adviceKept: number;
  digest: string;
};
const MEASURES = ["loadCpuMs", "loadWallMs", "parseCpuMs"] as const;

function spawn(args: string[]): string {
  return execFileSync(process.execPath, ["--conditions=@untorn/source", "--import", "tsx", SELF, ...args], {
    encoding: "utf8",
    maxBuffer: 1 << 20,
  });
}

/** Per ordered pair of variants, each measure's median (and range) of the per-round ratios. */
function ratiosOf(
  runs: readonly ({ round: number; variant: string } & ChildOut)[],
  names: readonly string[],
) {
  const of = (name: string) => runs.filter((x) => x.variant === name);
  const out: Record<string, Record<string, { median: number; min: number; max: number }>> = {};
  for (const a of names)
    for (const b of names) {
      if (a === b) continue;
      out[`${a}/${b}`] = Object.fromEntries(
        MEASURES.map((k) => {
          const per = of(a).map((x) => x[k] / of(b).find((y) => y.round === x.round)![k]);
          return [k, { median: r3(median(per)), min: r3(Math.min(...per)), max: r3(Math.max(...per)) }];
        }),
      );
    }
  return out;
}

async function main(): Promise<void> {
  const spec = process.env.UNTORN_BENCH_VARIANTS;
  if (!spec) throw new Error("set UNTORN_BENCH_VARIANTS=<name>=<checkout>,...");
  const variants = spec.split(",").map((v) => {
    const [name, root] = v.split("=");
    if (!name || !root) throw new Error(`UNTORN_BENCH_VARIANTS: "${v}" is not name=<checkout>`);
    return { name, root: root === "." ? HERE : resolve(root) };
  });
  const size = Number(process.env.UNTORN_BENCH_SIZE ?? 10_000);
  const rounds = Number(process.env.UNTORN_BENCH_ROUNDS ?? 5);
  const { writeSyntheticReplay } = await import("./synthetic-fleet.js");
  const work = mkdtempSync(join(tmpdir(), "untorn-kept-advice-"));
  const load0 = loadavg()[0]!;
  try {
    const replay = join(work, "fleet.json.gz");
    const advice = join(work, "advice.json");
    const kept = join(work, "kept");
    await writeSyntheticReplay(replay, { size, end: END });
    spawn(["--setup", replay, kept, advice]);
    const runs: ({ round: number; variant: string; load1m: number } & ChildOut)[] = [];
    for (let r = 1; r <= rounds; r++) {
      // Every variant in every place of the order in turn (as first-read.ts).
      const k = Math.floor((r - 1) / 2) % variants.length;
      const rotated = [...variants.slice(k), ...variants.slice(0, k)];
      for (const v of r % 2 ? rotated : rotated.reverse()) {
        const load1m = Math.round(loadavg()[0]! * 10) / 10;
        const out = JSON.parse(spawn(["--child", v.root, kept, advice])) as ChildOut;
        runs.push({ round: r, variant: v.name, load1m, ...out });
        console.log(
          `round ${r} ${v.name}, load ${load1m}: load ${out.loadCpuMs} ms CPU (${out.loadWallMs} ms wall), advice check alone ${out.parseCpuMs} ms CPU, ${out.adviceKept} of ${out.instances} kept`,
        );
      }
    }
    const same = new Set(runs.map((x) => x.digest)).size === 1;
    if (!same) throw new Error("the variants' results differ");
    const names = variants.map((v) => v.name);
    const medians = Object.fromEntries(
      names.map((n) => [
        n,
        Object.fromEntries(
          MEASURES.map((k) => [k, r3(median(runs.filter((x) => x.variant === n).map((x) => x[k])))]),
        ),
      ]),
    );
    const ratios = ratiosOf(runs, names);
    const result = {
      benchmark:
        "a restart's load of the kept fleet read (readKeptRead) and its kept advice check alone (parseKeptAdvice), variants side by side in child processes",
      when: new Date().toISOString(),
      machine: benchMachine(load0),
      variants,
      fleet: { instances: size, rounds },
      sameResults: same,
      medians,
      ratios,
      runs,
    };
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    console.log(JSON.stringify({ medians, ratios }, null, 1));
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const [mode, ...rest] = process.argv.slice(2);
if (mode === "--setup") await setup(rest[0]!, rest[1]!, rest[2]!);
else if (mode === "--child") await child(rest[0]!, rest[1]!, rest[2]!);
else await main();
