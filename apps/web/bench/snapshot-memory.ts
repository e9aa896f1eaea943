/**
 * The console's first fleet read over a synthetic 10,000-instance replay, in one process, and the heap
 * its snapshot keeps: the snapshot as built before issue 16's slimming (every instance's full advice
 * kept, reproduced below from the web app's snapshot.ts of then) beside @untorn/fleet/pipeline's
 * buildSnapshot (only what the fleet pages read kept, one instance's full advice given again by
 * instanceAdvice when its page opens).
 *
 *   npm run bench:snapshot -w @untorn/web            (node --expose-gc; UNTORN_BENCH_SIZE, UNTORN_BENCH_ROUNDS)
 *
 * Heap is `heapUsed` after two forced collections, so each figure is what is retained, not garbage. Each
 * variant also runs alone in a child process for its RSS after the first read (decode, facts and the
 * snapshot: the console's first read without Next.js) and its peak RSS (`resourceUsage().maxRSS`).
 * The replay decode is compared the same way, one fresh child per run: the previous decode
 * (`new ReplayApi(decodeReplay(bytes))`: the parsed JSON and zod's whole validated copy alive at once)
 * beside decodeReplayApi (validated entry by entry into the columnar store), alone and as part of the
 * first read. Writes bench/results/web-snapshot-memory.json.
 */

import { execFileSync } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import type { Advice } from "@untorn/advisor/advise";
import { buildFleetFacts, type FleetFacts } from "@untorn/fleet/facts";
import { mergeMetadata } from "@untorn/fleet/metadata";
import { adviseAll, buildSnapshot, instanceAdvice } from "@untorn/fleet/pipeline";
import { decodeReplay, decodeReplayApi, ReplayApi, replayFactsOptions } from "@untorn/fleet/replay";
import { rankRows } from "@untorn/fleet/rows";
import { webRows } from "../src/lib/fleet-row.js";
import type { Snapshot } from "../src/server/fleet/data.js";
import { benchMachine } from "./machine.js";
import { instanceName, writeSyntheticReplay } from "./synthetic-fleet.js";

const SIZE = Number(process.env.UNTORN_BENCH_SIZE ?? 10_000);
const ROUNDS = Number(process.env.UNTORN_BENCH_ROUNDS ?? 3);
/** The web bench's evaluation time, so both benches read the same synthetic fleet. */
const END = 1_795_000_000;
const RESULTS = fileURLToPath(new URL("../../../bench/results/web-snapshot-memory.json", import.meta.url));
const SELF = fileURLToPath(import.meta.url);

type Variant = "before" | "after";
/** How the replay file becomes a ReplayApi: before issue 16's entry-by-entry decode, and now. */
type Decoder = "previous" | "entrywise";

const decode = (d: Decoder, bytes: Uint8Array): ReplayApi =>
  d === "previous" ? new ReplayApi(decodeReplay(bytes)) : decodeReplayApi(bytes);

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
 * The snapshot's per-instance content as the web app's snapshot.ts of before issue 16 built and kept it
 * (merge, advise every instance, keep every full Advice, rank): what this bench compares against.
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
  return buildSnapshot({
    fleet,
    rowsOf: webRows,
    metadata: [],
    storeProblem: null,
    fetchedAt: 0,
    fetchMs: 0,
    window: "1h",
  });
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
async function child(v: Variant, d: Decoder, file: string): Promise<void> {
  const [api, decodeMs] = time(() => decode(d, readFileSync(file)));
  const [fleet, factsMs] = await timeAsync(() => buildFleetFacts(api, replayFactsOptions(api.meta)));
  const [snap, snapshotMs] = time(() => build(v, fleet));
  const heapUsed = heap();
  process.stdout.write(
    `${JSON.stringify({
      variant: v,
      decoder: d,
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

/** Child mode: the replay decode alone; prints its time, retained heap and RSS before, after and at peak. */
function decodeChild(d: Decoder, file: string): void {
  const bytes = readFileSync(file);
  const heapBefore = heap();
  const rssBeforeMb = mb(process.memoryUsage().rss);
  const [api, decodeMs] = time(() => decode(d, bytes));
  const heapMb = mb(heap() - heapBefore);
  process.stdout.write(
    `${JSON.stringify({
      decoder: d,
      decodeMs: round1(decodeMs),
      instances: api.meta.instances.length,
      replayHeapMb: heapMb,
      rssBeforeMb,
      rssAfterGcMb: mb(process.memoryUsage().rss),
      peakRssMb: mb(process.resourceUsage().maxRSS * 1024),
    })}\n`,
  );
}

/** Runs this file in a fresh node process with `args`; returns the JSON line it prints. */
function fresh(args: readonly string[], heapLimitMb: number | null): Record<string, number | string> {
  return JSON.parse(
    execFileSync(
      process.execPath,
      [
        ...(heapLimitMb ? [`--max-old-space-size=${heapLimitMb}`] : []),
        "--expose-gc",
        "--conditions=@untorn/source",
        "--import",
        "tsx",
        SELF,
        ...args,
      ],
      { encoding: "utf8", maxBuffer: 1 << 20 },
    ),
  ) as Record<string, number | string>;
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "untorn-snapshot-bench-"));
  const loadBefore = loadavg()[0]!;
  try {
    const file = join(work, "fleet.json.gz");
    const { samples } = await writeSyntheticReplay(file, { size: SIZE, end: END });

    const h0 = heap();
    const [api, decodeMs] = time(() => decodeReplayApi(readFileSync(file)));
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
    // Both decoders with the current snapshot as well: the peak of the console's first read, before and now.
    const alone = [null, 512].flatMap((limit) =>
      (
        [
          ["before", "entrywise"],
          ["after", "entrywise"],
          ["after", "previous"],
        ] as const
      ).map(([v, d]) => ({ heapLimitMb: limit, ...fresh(["--child", v, d, file], limit) })),
    );

    // The decode alone, previous and entry by entry alternating, each in a fresh process.
    const decodes: Record<string, number | string>[] = [1, 2].flatMap((r) =>
      (r % 2 ? (["previous", "entrywise"] as const) : (["entrywise", "previous"] as const)).map((d) => ({
        round: r,
        ...fresh(["--decode", d, file], null),
      })),
    );
    const decodeMed = (d: Decoder, k: "decodeMs" | "peakRssMb" | "replayHeapMb") =>
      round1(median(decodes.filter((x) => x.decoder === d).map((x) => Number(x[k]))));
    const decodeSummary = Object.fromEntries(
      (["previous", "entrywise"] as const).map((d) => [
        d,
        {
          decodeMs: decodeMed(d, "decodeMs"),
          peakRssMb: decodeMed(d, "peakRssMb"),
          replayHeapMb: decodeMed(d, "replayHeapMb"),
        },
      ]),
    ) as Record<Decoder, { decodeMs: number; peakRssMb: number; replayHeapMb: number }>;

    const med = (v: Variant, k: "adviseAndRankMs" | "heapMb") =>
      round1(median(runs.filter((x) => x.variant === v).map((x) => x[k])));
    const ratio = (a: number, b: number) => Math.round((a / b) * 1000) / 1000;
    const result = {
      benchmark:
        "web console: the fleet snapshot's heap and the first read's time over a synthetic replay, previous snapshot (every full advice kept) beside the current one (what the fleet pages read kept)",
      when: new Date().toISOString(),
      machine: benchMachine(loadBefore),
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
      decodeAlone: {
        runs: decodes,
        median: decodeSummary,
        ratiosEntrywiseOverPrevious: {
          peakRss: ratio(decodeSummary.entrywise.peakRssMb, decodeSummary.previous.peakRssMb),
          decodeTime: ratio(decodeSummary.entrywise.decodeMs, decodeSummary.previous.decodeMs),
        },
      },
    };
    writeFileSync(RESULTS, `${JSON.stringify(result, null, 2)}\n`);
    console.log(
      JSON.stringify(result.median),
      JSON.stringify(result.ratiosAfterOverBefore),
      JSON.stringify(alone),
      JSON.stringify(result.decodeAlone),
    );
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const [mode, ...rest] = process.argv.slice(2);
const isDecoder = (d: string | undefined): d is Decoder => d === "previous" || d === "entrywise";
if (mode === "--child") {
  const [variant, decoder, file] = rest;
  if ((variant !== "before" && variant !== "after") || !isDecoder(decoder) || !file)
    throw new Error(
      `usage: snapshot-memory.ts --child before|after previous|entrywise <replay file>, not ${rest.join(" ")}`,
    );
  await child(variant, decoder, file);
} else if (mode === "--decode") {
  const [decoder, file] = rest;
  if (!isDecoder(decoder) || !file)
    throw new Error(
      `usage: snapshot-memory.ts --decode previous|entrywise <replay file>, not ${rest.join(" ")}`,
    );
  decodeChild(decoder, file);
} else await main();
