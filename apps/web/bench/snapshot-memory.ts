/**
 * The console's first fleet read over a synthetic 10,000-instance replay, in one process, and the heap
 * its snapshot keeps: the snapshot as built before issue 16's slimming (every instance's full advice
 * kept, reproduced below from the previous snapshot.ts) beside buildSnapshot (only what the fleet pages
 * read kept, one instance's full advice given again by instanceAdvice when its page opens).
 *
 *   npm run bench:snapshot -w @untorn/web            (node --expose-gc; UNTORN_BENCH_SIZE, UNTORN_BENCH_ROUNDS)
 *
 * Heap is `heapUsed` after two forced collections, so each figure is what is retained, not garbage. Each
 * variant also runs alone in a child process for its RSS after the first read (decode, facts and the
 * snapshot: the console's first read without Next.js) and its peak RSS. Writes bench/results/web-snapshot-memory.json.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, tmpdir, totalmem } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Advice } from "@untorn/advisor/advise";
import { buildFleetFacts, type FleetFacts } from "@untorn/fleet/facts";
import { mergeMetadata } from "@untorn/fleet/metadata";
import { adviseAll } from "@untorn/fleet/profile";
import { decodeReplay, ReplayApi, replayFactsOptions } from "@untorn/fleet/replay";
import { rankRows } from "@untorn/fleet/rows";
import { buildSnapshot, instanceAdvice, type Snapshot } from "../src/server/snapshot.js";
import { instanceName, writeSyntheticReplay } from "./synthetic-fleet.js";

const SIZE = Number(process.env.UNTORN_BENCH_SIZE ?? 10_000);
const ROUNDS = Number(process.env.UNTORN_BENCH_ROUNDS ?? 3);
/** The web bench's evaluation time, so both benches read the same synthetic fleet. */
const END = 1_795_000_000;
const RESULTS = fileURLToPath(new URL("../../../bench/results/web-snapshot-memory.json", import.meta.url));
const SELF = fileURLToPath(import.meta.url);

type Variant = "before" | "after";

const gc = (globalThis as { gc?: () => void }).gc;
const round1 = (x: number) => Math.round(x * 10) / 10;
const mb = (bytes: number) => round1(bytes / 2 ** 20);

function heap(): number {
  if (!gc) throw new Error("run with node --expose-gc: the heap figures need forced collections");
  gc();
  gc();
  return process.memoryUsage().heapUsed;
}

function time<T>(fn: () => T): [T, number] {
  const t0 = performance.now();
  const out = fn();
  return [out, performance.now() - t0];
}

async function timeAsync<T>(fn: () => Promise<T>): Promise<[T, number]> {
  const t0 = performance.now();
  const out = await fn();
  return [out, performance.now() - t0];
}

const median = (xs: readonly number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2]! : (s[s.length / 2 - 1]! + s[s.length / 2]!) / 2;
};

/**
 * The snapshot's per-instance content as the previous snapshot.ts built and kept it (merge, advise every
 * instance, keep every full Advice, rank): what this bench compares against.
 */
function previousSnapshot(fleet: Omit<FleetFacts, "plan">) {
  const t0 = performance.now();
  const measured = new Map(fleet.facts.map((f) => [f.identity.instance, f]));
  const merged = new Map(fleet.facts.map((f) => [f.identity.instance, mergeMetadata(f, undefined)]));
  const { advice, failed } = adviseAll([...merged.values()].map((m) => m.facts));
  const adviceMap = new Map<string, Advice>(advice.map((a) => [a.identity.instance, a]));
  const facts = new Map([...merged].map(([k, m]) => [k, m.facts]));
  const ranked = rankRows(adviceMap, facts, fleet.skipped.length + failed.length);
  const rows = ranked.rows.map((r) => ({
    ...r,
    exporters: fleet.exporters[r.instance] ?? { untorn: false, mysqldExporter: false },
    stale: false,
  }));
  return { measured, merged, advice: adviceMap, ...ranked, rows, adviseMs: performance.now() - t0 };
}

function currentSnapshot(fleet: Omit<FleetFacts, "plan">): Snapshot {
  return buildSnapshot({ fleet, metadata: [], storeProblem: null, fetchedAt: 0, fetchMs: 0, window: "1h" });
}

function build(v: Variant, fleet: Omit<FleetFacts, "plan">) {
  return v === "before" ? previousSnapshot(fleet) : currentSnapshot(fleet);
}

/**
 * Builds one variant's snapshot and measures the heap it retains. Synchronous and separate from main so
 * no snapshot outlives it in an async function's saved frame (which would count it in the next base).
 */
function measure(v: Variant, fleet: Omit<FleetFacts, "plan">, compare: boolean) {
  const base = heap();
  const [snap, t] = time(() => build(v, fleet));
  const held = heap() - base;
  const results = compare
    ? JSON.stringify({ rows: snap.rows, summary: snap.summary, ranking: snap.ranking })
    : null;
  return { adviseAndRankMs: round1(t), heapMb: mb(held), results };
}

/** Child mode: the first read alone (decode, facts, snapshot) for one variant; prints its figures. */
async function child(v: Variant, file: string): Promise<void> {
  const [api, decodeMs] = time(() => new ReplayApi(decodeReplay(readFileSync(file))));
  const [fleet, factsMs] = await timeAsync(() => buildFleetFacts(api, replayFactsOptions(api.meta)));
  const [snap, snapshotMs] = time(() => build(v, fleet));
  const heapUsed = heap();
  process.stdout.write(
    `${JSON.stringify({
      variant: v,
      decodeMs: round1(decodeMs),
      factsMs: round1(factsMs),
      adviseAndRankMs: round1(snapshotMs),
      rows: snap.rows.length,
      heapMb: mb(heapUsed),
      // What the process holds once the first read's garbage is collected, and its high-water mark.
      rssAfterGcMb: mb(process.memoryUsage().rss),
      peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    })}\n`,
  );
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "untorn-snapshot-bench-"));
  const loadBefore = loadavg()[0]!;
  try {
    const file = join(work, "fleet.json.gz");
    const { samples } = await writeSyntheticReplay(file, { size: SIZE, end: END });

    const h0 = heap();
    const [api, decodeMs] = time(() => new ReplayApi(decodeReplay(readFileSync(file))));
    const h1 = heap();
    const [fleet, factsMs] = await timeAsync(() => buildFleetFacts(api, replayFactsOptions(api.meta)));
    const h2 = heap();
    console.log(
      `${SIZE} instances: decode ${round1(decodeMs)} ms (${mb(h1 - h0)} MB), facts ${round1(factsMs)} ms (${mb(h2 - h1)} MB)`,
    );

    // Side by side, alternating which goes first; each snapshot is dropped before the next is built.
    const runs: { round: number; variant: Variant; adviseAndRankMs: number; heapMb: number }[] = [];
    let same: boolean | null = null;
    for (let r = 1; r <= ROUNDS; r++) {
      const order: Variant[] = r % 2 ? ["before", "after"] : ["after", "before"];
      const rowsOf: Partial<Record<Variant, string>> = {};
      for (const v of order) {
        const m = measure(v, fleet, r === 1);
        runs.push({ round: r, variant: v, adviseAndRankMs: m.adviseAndRankMs, heapMb: m.heapMb });
        console.log(`round ${r} ${v}: advise+rank ${m.adviseAndRankMs} ms, snapshot heap ${m.heapMb} MB`);
        if (m.results) rowsOf[v] = m.results;
      }
      if (r === 1) same = rowsOf.before === rowsOf.after;
    }
    if (!same)
      throw new Error(
        "the two snapshots' rows, summary or ranking differ: the slim snapshot changed results",
      );

    // What the instance page now pays: one instance's full advice again, for 200 instances across the fleet.
    const snap = currentSnapshot(fleet);
    const picks = Array.from({ length: 200 }, (_, i) => instanceName(Math.floor((i * SIZE) / 200), SIZE));
    const [, pageMs] = time(() => {
      for (const p of picks) if (!instanceAdvice(snap, `${p}`)) throw new Error(`no advice for ${p}`);
    });

    // Each variant's first read alone, for its RSS: with V8's default heap limit, and with the old space
    // capped at 512 MB (--max-old-space-size), which makes V8 collect before the heap grows past it.
    const alone = [null, 512].flatMap((limit) =>
      (["before", "after"] as const).map((v) => ({
        heapLimitMb: limit,
        ...(JSON.parse(
          execFileSync(
            process.execPath,
            [
              ...(limit ? [`--max-old-space-size=${limit}`] : []),
              "--expose-gc",
              "--conditions=@untorn/source",
              "--import",
              "tsx",
              SELF,
              "--child",
              v,
              file,
            ],
            { encoding: "utf8", maxBuffer: 1 << 20 },
          ),
        ) as Record<string, number | string>),
      })),
    );

    const med = (v: Variant, k: "adviseAndRankMs" | "heapMb") =>
      round1(median(runs.filter((x) => x.variant === v).map((x) => x[k])));
    const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
    const result = {
      benchmark:
        "web console: the fleet snapshot's heap and the first read's time over a synthetic replay, previous snapshot (every full advice kept) beside the current one (what the fleet pages read kept)",
      when: new Date().toISOString(),
      machine: {
        cpus: cpus().length,
        cpuModel: cpus()[0]?.model ?? "",
        memoryGiB: Math.round(totalmem() / 2 ** 30),
        node: process.version,
        loadAverage1mBefore: round1(loadBefore),
        loadAverage1mAfter: round1(loadavg()[0]!),
      },
      fleet: { instances: SIZE, samples, rows: snap.rows.length },
      firstRead: {
        decodeMs: round1(decodeMs),
        factsMs: round1(factsMs),
        queries: fleet.queries,
        heapMb: { replay: mb(h1 - h0), facts: mb(h2 - h1) },
      },
      rounds: ROUNDS,
      runs,
      median: {
        before: {
          adviseAndRankMs: med("before", "adviseAndRankMs"),
          snapshotHeapMb: med("before", "heapMb"),
        },
        after: { adviseAndRankMs: med("after", "adviseAndRankMs"), snapshotHeapMb: med("after", "heapMb") },
      },
      ratiosAfterOverBefore: {
        snapshotHeap: ratio(med("after", "heapMb"), med("before", "heapMb")),
        adviseAndRank: ratio(med("after", "adviseAndRankMs"), med("before", "adviseAndRankMs")),
      },
      sameRowsSummaryRanking: same,
      instancePageAdviceMs: { instances: picks.length, meanMs: round1((pageMs / picks.length) * 100) / 100 },
      alone,
    };
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    console.log(
      JSON.stringify(result.median),
      JSON.stringify(result.ratiosAfterOverBefore),
      JSON.stringify(alone),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const [mode, variant, file] = process.argv.slice(2);
if (mode === "--child") {
  if ((variant !== "before" && variant !== "after") || !file)
    throw new Error(
      `usage: snapshot-memory.ts --child before|after <replay file>, not ${process.argv.slice(2).join(" ")}`,
    );
  await child(variant, file);
} else await main();
