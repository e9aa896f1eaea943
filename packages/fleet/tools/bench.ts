// Benchmark: the fleet profile (facts for every instance + advice + ranking) against a real prometheus
// holding synthetic untorn-exporter history for 1,000 and 10,000 instances, backfilled with promtool.
// Reports the PromQL requests per profile (must not grow with the fleet) and our total time against the
// sum of Prometheus' own times for the same requests, measured by re-issuing the exact queries with plain
// fetch (no decoding). Both sides run one request at a time so the sums compare like for like.
// Writes bench/results/fleet.json at the repo root. Run after a build: npm run bench -w @untorn/fleet
// UNTORN_BENCH_QUICK=1 runs 100 and 1,000 instances; UNTORN_BENCH_SIZES=10000 the sizes listed;
// UNTORN_BENCH_RESULT=<name>.json writes bench/results/<name>.json instead;
// UNTORN_BENCH_BACKEND=victoria-metrics runs the same profiles on VictoriaMetrics (history imported through
// its import API, the same recording rules replayed by vmalert).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import type { MatrixSeries, PromQueryApi, QueryAnswer, VectorSample } from "@untorn/fleet/api";
import { profileFleet } from "@untorn/fleet/profile";
import { sampleCount, syntheticFleet } from "@untorn/fleet/testing/synthetic";
import { PromClient } from "@untorn/prom/client";
import { makeTempDir, repoRoot, requireBinary } from "@untorn/testkit/process";
import { startPrometheus } from "@untorn/testkit/prometheus";
import { replayRules, startVictoriaMetrics } from "@untorn/testkit/victoria-metrics";
import { backfill, backfillRecordingRules, importHistory, writeRateRules } from "./backfill.js";

const quick = process.env.UNTORN_BENCH_QUICK === "1";
/** UNTORN_BENCH_SIZES=10000 runs only the sizes listed (comma-separated). */
const SIZES = process.env.UNTORN_BENCH_SIZES
  ? process.env.UNTORN_BENCH_SIZES.split(",").map((x) => Number.parseInt(x, 10))
  : quick
    ? [100, 1000]
    : [1000, 10_000];
type Backend = "prometheus" | "victoria-metrics";
const BACKEND: Backend =
  process.env.UNTORN_BENCH_BACKEND === "victoria-metrics" ? "victoria-metrics" : "prometheus";
const WINDOW = "30m";
const HISTORY_MINUTES = 34; // the window plus the per-step rate window and a margin
const STEP = 15;
const SLOW_STEP = 60; // constant configuration series; a 5 min lookback still finds them
const TIMEOUT = "2m";

const log = (m: string) => process.stderr.write(`[bench fleet] ${m}\n`);
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const round = (x: number, d = 1) => Math.round(x * 10 ** d) / 10 ** d;

/**
 * Times each request of a profile twice, back to back: through the client (HTTP, JSON, zod decoding) and
 * re-issued with plain fetch (the same POST, body read, nothing decoded). Alternating which goes first,
 * the pair shares the machine's state, so other load on the machine shifts both alike.
 */
class Paired implements PromQueryApi {
  rawMs = 0;
  requests = 0;
  /** Backend time per request, by expression. */
  readonly perQuery: { expr: string; ms: number }[] = [];
  constructor(
    private readonly inner: PromClient,
    private readonly url: string,
  ) {}
  async queryVector(expr: string, opts: { time: number }): Promise<QueryAnswer<VectorSample[]>> {
    const rawFirst = this.requests++ % 2 === 1;
    let ms = 0;
    if (rawFirst) ms = await rawTime(this.url, expr, opts.time);
    const a = await this.inner.queryVector(expr, opts);
    if (!rawFirst) ms = await rawTime(this.url, expr, opts.time);
    this.rawMs += ms;
    this.perQuery.push({ expr, ms });
    return a;
  }
  queryRange(
    expr: string,
    opts: { start: number; end: number; step: number },
  ): Promise<QueryAnswer<MatrixSeries[]>> {
    return this.inner.queryRange(expr, opts);
  }
}

async function rawTime(url: string, expr: string, time: number): Promise<number> {
  const body = new URLSearchParams({ query: expr, time: time.toFixed(3), timeout: TIMEOUT });
  const t0 = performance.now();
  const res = await fetch(`${url}/api/v1/query`, {
    method: "POST",
    body,
    headers: { "content-type": "application/x-www-form-urlencoded", accept: "application/json" },
  });
  const text = await res.text();
  const ms = performance.now() - t0;
  if (!res.ok) throw new Error(`raw query failed: ${res.status} ${text.slice(0, 200)}`);
  return ms;
}

const client = (url: string, concurrency: number) =>
  new PromClient({ baseUrl: url, maxConcurrency: concurrency, timeoutMs: 120_000, totalTimeoutMs: 600_000 });

interface Run {
  /** Our whole profile: requests through the client, decoding, facts, advice, ranking. */
  oursMs: number;
  /** The requests with the most backend time: the first 100 characters of each and its time. */
  slowest: { expr: string; ms: number }[];
  /** Prometheus' own time for the same requests. */
  rawMs: number;
  requests: number;
  instances: number;
}

/** One profile, one request at a time, each request also re-issued raw (not counted in oursMs). */
async function pairedRun(url: string, at: number, recordingRules = true): Promise<Run> {
  const paired = new Paired(client(url, 1), url);
  const t0 = performance.now();
  const p = await profileFleet(paired, { window: WINDOW, at, concurrency: 1, recordingRules });
  const wall = performance.now() - t0;
  if (p.recordingRules.used !== recordingRules)
    throw new Error(`expected recording rules used = ${recordingRules}: ${p.recordingRules.fallbackReason}`);
  const slowest = [...paired.perQuery]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 6)
    .map((q) => ({ expr: q.expr.slice(0, 100), ms: round(q.ms, 0) }));
  return {
    oursMs: wall - paired.rawMs,
    slowest,
    rawMs: paired.rawMs,
    requests: p.queries,
    instances: p.rows.length,
  };
}

type Path = "recorded" | "raw";

/**
 * Both paths side by side on a freshly started prometheus each (cold: no query results or head chunks
 * warmed by the other path), alternating which goes first: the wall time of a profile with 4 requests in
 * flight, then one paired run (one request at a time, each re-issued raw) for the backend time of the
 * very queries the path sends.
 */
/** A backend served from the prepared data directory, freshly started (cold). */
async function startBackend(data: string): Promise<{ url: string; stop(): Promise<void> }> {
  return BACKEND === "prometheus"
    ? startPrometheus({ jobs: [], storagePath: data })
    : startVictoriaMetrics({ storagePath: data });
}

async function sideBySide(tsdb: string, at: number, n: number, repeats: number) {
  const out: Record<
    Path,
    {
      coldMs: number[];
      oursMs: number[];
      rawPrometheusMs: number[];
      requests: number;
      slowest: Run["slowest"][];
      /** The machine's 1 min load average at the end of each repeat (shared machine). */
      load: number[];
    }
  > = {
    recorded: { coldMs: [], oursMs: [], rawPrometheusMs: [], requests: 0, slowest: [], load: [] },
    raw: { coldMs: [], oursMs: [], rawPrometheusMs: [], requests: 0, slowest: [], load: [] },
  };
  for (let r = 0; r < repeats; r++) {
    const order: Path[] = r % 2 === 0 ? ["recorded", "raw"] : ["raw", "recorded"];
    for (const path of order) {
      const prom = await startBackend(tsdb);
      try {
        const rules = path === "recorded";
        const t0 = performance.now();
        const p = await profileFleet(client(prom.url, 4), { window: WINDOW, at, recordingRules: rules });
        const coldMs = performance.now() - t0;
        if (p.rows.length !== n) throw new Error(`expected ${n} instances, got ${p.rows.length}`);
        if (p.recordingRules.used !== rules)
          throw new Error(
            `${path}: recording rules used = ${p.recordingRules.used} (${p.recordingRules.fallbackReason})`,
          );
        const x = await pairedRun(prom.url, at, rules);
        const o = out[path];
        o.coldMs.push(round(coldMs, 0));
        o.oursMs.push(round(x.oursMs, 0));
        o.rawPrometheusMs.push(round(x.rawMs, 0));
        o.requests = p.queries;
        o.slowest.push(x.slowest);
        o.load.push(round(loadavg()[0]!, 1));
        log(
          `${n} ${path} (load ${round(loadavg()[0]!, 1)}): cold ${round(coldMs, 0)} ms; one at a time: ours ${round(x.oursMs, 0)} ms + Prometheus ${round(x.rawMs, 0)} ms`,
        );
      } finally {
        await prom.stop();
      }
    }
  }
  const ratios = out.recorded.coldMs.map((c, i) => c / out.raw.coldMs[i]!);
  const totalVsBackend = out.recorded.oursMs.map(
    (o, i) => (o + out.recorded.rawPrometheusMs[i]!) / out.recorded.rawPrometheusMs[i]!,
  );
  return {
    ...out,
    coldRecordedOverRaw: ratios.map((x) => round(x, 3)),
    coldRecordedOverRawMedian: round(median(ratios), 3),
    recordedTotalOverBackend: totalVsBackend.map((x) => round(x, 3)),
    recordedTotalOverBackendMedian: round(median(totalVsBackend), 3),
  };
}

/** The same measurement on VictoriaMetrics: history imported, the same rules replayed by vmalert. */
async function benchVictoriaMetrics(
  n: number,
  fleet: ReturnType<typeof syntheticFleet>,
  history: Parameters<typeof sampleCount>[1],
  end: number,
  work: string,
) {
  const data = join(work, "vm-data");
  const vm = await startVictoriaMetrics({ storagePath: data });
  let importMs = 0;
  let rulesMs = 0;
  try {
    importMs = (await importHistory(vm, fleet, history)).ms;
    log(`${n}: imported in ${round(importMs, 0)} ms`);
    const file = join(work, "rules.json");
    const rules = await writeRateRules(file);
    const t0 = performance.now();
    await replayRules({
      vmUrl: vm.url,
      ruleFiles: [file],
      evaluationInterval: `${STEP}s`,
      from: history.start,
      to: history.end,
      timeoutMs: 3_600_000,
    });
    await vm.flush();
    rulesMs = performance.now() - t0;
    log(`${n}: ${rules} recording rules replayed by vmalert in ${round(rulesMs, 0)} ms`);
  } finally {
    await vm.stop();
  }
  const paths = await sideBySide(data, end, n, n >= 10_000 ? 2 : 3);
  const raw = paths.raw;
  const ratios = raw.oursMs.map((o, i) => o / raw.rawPrometheusMs[i]! - 1);
  return {
    instances: n,
    series: sampleCount(fleet, { ...history, end: history.start }),
    samples: sampleCount(fleet, history),
    backfillMs: { generate: round(importMs, 0), promtool: 0, importIncludesGeneration: true },
    requests: raw.requests,
    repeats: raw.oursMs.length,
    oursMs: raw.oursMs,
    rawPrometheusMs: raw.rawPrometheusMs,
    overhead: round(median(ratios), 3),
    overheadRuns: ratios.map((x) => round(x, 3)),
    firstProfileConcurrency4Ms: raw.coldMs[0]!,
    recordingRulesBackfillMs: round(rulesMs, 0),
    recordedVsRaw: paths,
  };
}

async function benchSize(n: number) {
  // History ends 5 min ago: inside testkit's 30 d retention, so prometheus loads the blocks as they are.
  const end = Math.floor(Date.now() / 1000 / 60) * 60 - 300;
  const fleet = syntheticFleet(n, 42);
  const history = {
    start: end - HISTORY_MINUTES * 60,
    end,
    stepSeconds: STEP,
    slowStepSeconds: SLOW_STEP,
    noise: 0.1,
  };
  const work = await makeTempDir(`fleet-bench-${n}`);
  try {
    log(
      `${n} instances: generating ${sampleCount(fleet, history).toLocaleString("en")} samples and backfilling (${BACKEND})`,
    );
    if (BACKEND === "victoria-metrics") return await benchVictoriaMetrics(n, fleet, history, end, work);
    // Two halves in parallel (promtool is single-threaded); the blocks then share one TSDB directory.
    const halves = [fleet.slice(0, n >> 1), fleet.slice(n >> 1)];
    const parts = await Promise.all(halves.map((h, i) => backfill(h, history, join(work, `part${i}`))));
    const tsdb = join(work, "tsdb");
    mkdirSync(tsdb);
    for (const p of parts) for (const b of readdirSync(p.dir)) renameSync(join(p.dir, b), join(tsdb, b));
    const backfillMs = {
      generate: round(Math.max(...parts.map((p) => p.generateMs)), 0),
      promtool: round(Math.max(...parts.map((p) => p.promtoolMs)), 0),
    };
    log(`${n}: generated in ${backfillMs.generate} ms, promtool ${backfillMs.promtool} ms`);
    // The catalog's rate rules evaluated over the history, as if they had been loaded all along.
    const rulesProm = await startPrometheus({ jobs: [], storagePath: tsdb });
    let rulesMs = 0;
    try {
      const r = await backfillRecordingRules(
        rulesProm.url,
        { start: history.start, end: history.end, evalSeconds: STEP },
        join(work, "rules"),
      );
      rulesMs = r.promtoolMs;
      for (const b of readdirSync(r.dir).filter((x) => /^[0-9A-Z]{26}$/.test(x)))
        renameSync(join(r.dir, b), join(tsdb, b));
      log(`${n}: ${r.rules} recording rules backfilled in ${round(rulesMs, 0)} ms`);
    } finally {
      await rulesProm.stop();
    }
    const paths = await sideBySide(tsdb, end, n, n >= 10_000 ? 2 : 3);
    // The raw-series path's paired runs give the overhead figures reported before (same method).
    const raw = paths.raw;
    const ratios = raw.oursMs.map((o, i) => o / raw.rawPrometheusMs[i]! - 1);
    return {
      instances: n,
      series: sampleCount(fleet, { ...history, end: history.start }),
      samples: sampleCount(fleet, history),
      backfillMs,
      requests: raw.requests,
      repeats: raw.oursMs.length,
      oursMs: raw.oursMs,
      rawPrometheusMs: raw.rawPrometheusMs,
      overhead: round(median(ratios), 3),
      overheadRuns: ratios.map((x) => round(x, 3)),
      firstProfileConcurrency4Ms: raw.coldMs[0]!,
      recordingRulesBackfillMs: round(rulesMs, 0),
      recordedVsRaw: paths,
    };
  } finally {
    rmSync(work, { recursive: true, force: true });
  }
}

const results: Awaited<ReturnType<typeof benchSize>>[] = [];
const prometheusVersion =
  execFileSync(
    BACKEND === "prometheus"
      ? requireBinary("prometheus", "prometheus")
      : requireBinary("victoria-metrics", "victoria-metrics"),
    BACKEND === "prometheus" ? ["--version"] : ["-version"],
    { encoding: "utf8" },
  )
    .split("\n")[0]!
    .trim() || `${BACKEND} (prints no version)`;
/** Written after each size, so a run stopped during the larger size keeps the smaller one's figures. */
function writeResults(complete: boolean): string {
  const out = {
    complete,
    benchmark: "fleet profile: facts for every instance + advice + ranking",
    generatedAt: new Date().toISOString(),
    machine: {
      cpus: cpus().length,
      cpu: cpus()[0]?.model ?? "",
      memoryBytes: totalmem(),
      node: process.version,
      prometheus: prometheusVersion,
      backend: BACKEND,
    },
    setup: {
      window: WINDOW,
      historyMinutes: HISTORY_MINUTES,
      scrapeIntervalSeconds: STEP,
      configSeriesIntervalSeconds: SLOW_STEP,
      stats: "avg and p95 (the defaults)",
      recordedVsRaw:
        "the catalog's rate recording rules backfilled over the history with promtool tsdb create-blocks-from rules (eval interval = scrape interval); per repeat, each path on a freshly started prometheus (alternating order): coldMs = one profile with 4 requests in flight, then one paired run (oursMs / rawPrometheusMs as above). overhead, oursMs and rawPrometheusMs at the top level are the raw-series path (recordingRules: false), as before",
      method:
        "synthetic untorn-exporter history (packages/fleet/src/testing/synthetic.ts) backfilled with promtool tsdb create-blocks-from openmetrics; one cold profile with 4 requests in flight (firstProfileConcurrency4Ms), then profiles one request at a time where every request is also re-issued with plain fetch right before or after (alternating): Prometheus time = sum of those raw requests, ours = the profile's wall time minus them; overhead = median over runs of ours / Prometheus - 1",
      quick,
    },
    results,
    goals: {
      recordedColdAtMostMs: 5000,
      recordedColdMet: results.every(
        (r) => r.instances < 10_000 || Math.min(...r.recordedVsRaw.recorded.coldMs) <= 5000,
      ),
      recordedTotalOverBackendAtMost: 1.2,
      recordedTotalOverBackendMet: results.every(
        (r) => r.recordedVsRaw.recordedTotalOverBackendMedian <= 1.2,
      ),
      overheadAtMost: 0.5,
      overheadMet: results.every((r) => r.overhead <= 0.5),
      constantRequests: new Set(results.map((r) => r.requests)).size === 1,
    },
  };
  const file = join(repoRoot(), "bench", "results", process.env.UNTORN_BENCH_RESULT ?? "fleet.json");
  mkdirSync(join(repoRoot(), "bench", "results"), { recursive: true });
  writeFileSync(file, `${JSON.stringify(out, null, 2)}\n`);
  return file;
}

for (const n of SIZES) {
  results.push(await benchSize(n));
  writeResults(results.length === SIZES.length);
}
const file = writeResults(true);
log(
  results
    .map(
      (r) =>
        `${r.instances} instances: recorded / raw cold ${r.recordedVsRaw.coldRecordedOverRaw.join("/")} (recorded ${r.recordedVsRaw.recorded.coldMs.join("/")} ms, raw ${r.recordedVsRaw.raw.coldMs.join("/")} ms); ${r.requests} requests, overhead ${round(r.overhead * 100)}% (ours ${r.oursMs.join("/")} ms vs Prometheus ${r.rawPrometheusMs.join("/")} ms)`,
    )
    .join("; "),
);
log(`wrote ${file}`);
