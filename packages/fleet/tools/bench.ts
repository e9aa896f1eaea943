// Benchmark: the fleet profile (facts for every instance + advice + ranking) against a real prometheus
// holding synthetic untorn-exporter history for 1,000 and 10,000 instances, backfilled with promtool.
// Reports the PromQL requests per profile (must not grow with the fleet) and our total time against the
// sum of Prometheus' own times for the same requests, measured by re-issuing the exact queries with plain
// fetch (no decoding). Both sides run one request at a time so the sums compare like for like.
// Writes bench/results/fleet.json at the repo root. Run after a build: npm run bench -w @untorn/fleet
// UNTORN_BENCH_QUICK=1 runs 100 and 1,000 instances; UNTORN_BENCH_SIZES=10000 the sizes listed;
// UNTORN_BENCH_RESULT=<name>.json writes bench/results/<name>.json instead;
// UNTORN_BENCH_BACKEND=victoria-metrics runs the same profiles on VictoriaMetrics (history imported through
// its import API, the same recording rules replayed by vmalert); UNTORN_BENCH_REPEATS=3 sets the repeats
// of the side-by-side paths (default 3, 2 from 10,000 instances).
import { execFileSync } from "node:child_process";
import { mkdirSync, readdirSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { cpus, loadavg, totalmem } from "node:os";
import { join } from "node:path";
import { DEFAULT_FLEET_WINDOW, RECORDED_WINDOW, RULES_PROBE_LABEL } from "@untorn/catalog/rules";
import { FACT_LABEL, STAT_LABEL } from "@untorn/catalog/window-stats";
import type { MatrixSeries, PromQueryApi, QueryAnswer, VectorSample } from "@untorn/fleet/api";
import type { RecordedTier } from "@untorn/fleet/facts";
import { profileFleet } from "@untorn/fleet/profile";
import { sampleCount, syntheticFleet } from "@untorn/fleet/testing/synthetic";
import { PromClient } from "@untorn/prom/client";
import { parseDuration } from "@untorn/prom/duration";
import { makeTempDir, repoRoot, requireBinary } from "@untorn/testkit/process";
import { startPrometheus } from "@untorn/testkit/prometheus";
import { replayRules, startVictoriaMetrics } from "@untorn/testkit/victoria-metrics";
import {
  backfill,
  backfillRecordingRules,
  importHistory,
  windowGroup,
  writeRateRules,
  writeWindowRules,
} from "./backfill.js";

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
/** The product's default window: the one untorn.window records. */
const WINDOW = DEFAULT_FLEET_WINDOW;
const HISTORY_MINUTES = 66; // the window plus the rules' 5m rate window and a margin
/** untorn.window evaluated over the last minutes of the history only: an instant read needs the last. */
const WINDOW_RULES_MINUTES = 3;
const WINDOW_EVAL_SECONDS = parseDuration(RECORDED_WINDOW.interval) / 1000;
/** Repeats of the three paths side by side at n instances. */
const repeatsAt = (n: number) => {
  const env = process.env.UNTORN_BENCH_REPEATS;
  if (env === undefined) return n >= 10_000 ? 2 : 3;
  const r = Number.parseInt(env, 10);
  if (!(r >= 1)) throw new Error(`UNTORN_BENCH_REPEATS must be a positive integer, got "${env}"`);
  return r;
};
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
  /** rawMs by part of the plan: the probe, the instant facts, the quality query, the windowed facts. */
  backendMsByKind: Record<"probe" | "instant" | "quality" | "windowed", number>;
  requests: number;
  instances: number;
}

type Path = "window" | "recorded" | "raw";
const PATHS: readonly Path[] = ["window", "recorded", "raw"];

/** Profile options and the tier each path must read (the bench fails when the probe chose another). */
const PATH_OPTS: Record<Path, { recordingRules: boolean; windowRules: boolean; tier: RecordedTier }> = {
  window: { recordingRules: true, windowRules: true, tier: "window" },
  recorded: { recordingRules: true, windowRules: false, tier: "rates" },
  raw: { recordingRules: false, windowRules: false, tier: "raw" },
};

/** One profile, one request at a time, each request also re-issued raw (not counted in oursMs). */
async function pairedRun(url: string, at: number, path: Path): Promise<Run> {
  const paired = new Paired(client(url, 1), url);
  const { tier, ...o } = PATH_OPTS[path];
  const t0 = performance.now();
  const p = await profileFleet(paired, { window: WINDOW, at, concurrency: 1, ...o });
  const wall = performance.now() - t0;
  if (p.recordingRules.tier !== tier)
    throw new Error(
      `${path}: read ${p.recordingRules.tier}, expected ${tier}: ${p.recordingRules.fallbackReason ?? p.recordingRules.windowNote}`,
    );
  const slowest = [...paired.perQuery]
    .sort((a, b) => b.ms - a.ms)
    .slice(0, 6)
    .map((q) => ({ expr: q.expr.slice(0, 100), ms: round(q.ms, 0) }));
  const byKind = { instant: 0, quality: 0, windowed: 0, probe: 0 };
  paired.perQuery.forEach((q, i) => {
    byKind[kindOf(q.expr, i)] += q.ms;
  });
  return {
    oursMs: wall - paired.rawMs,
    slowest,
    rawMs: paired.rawMs,
    backendMsByKind: {
      probe: round(byKind.probe, 0),
      instant: round(byKind.instant, 0),
      quality: round(byKind.quality, 0),
      windowed: round(byKind.windowed, 0),
    },
    requests: p.queries,
    instances: p.rows.length,
  };
}

/** Which part of the plan a request is (the probe goes first when sent; the quality query is tagged). */
function kindOf(expr: string, i: number): "instant" | "quality" | "windowed" | "probe" {
  if (i === 0 && expr.includes(RULES_PROBE_LABEL)) return "probe";
  if (expr.includes(`"${STAT_LABEL}"`)) return "windowed";
  if (expr.includes(`"${FACT_LABEL}"`)) return "quality";
  return "instant";
}

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

interface PathRuns {
  coldMs: number[];
  oursMs: number[];
  rawPrometheusMs: number[];
  backendMsByKind: Run["backendMsByKind"][];
  requests: number;
  slowest: Run["slowest"][];
  /** The machine's 1 min load average at the end of each repeat (shared machine). */
  load: number[];
}

/**
 * The three paths side by side, each on a freshly started backend (cold: no query results or head chunks
 * warmed by another path), rotating which goes first: the wall time of a profile with 4 requests in
 * flight, then one paired run (one request at a time, each re-issued raw) for the backend time of the
 * very queries the path sends.
 */
async function sideBySide(tsdb: string, at: number, n: number, repeats: number) {
  const out = Object.fromEntries(
    PATHS.map((p) => [
      p,
      {
        coldMs: [],
        oursMs: [],
        rawPrometheusMs: [],
        backendMsByKind: [],
        requests: 0,
        slowest: [],
        load: [],
      } as PathRuns,
    ]),
  ) as Record<Path, PathRuns>;
  for (let r = 0; r < repeats; r++) {
    const order = PATHS.map((_, i) => PATHS[(i + r) % PATHS.length]!);
    for (const path of order) {
      const prom = await startBackend(tsdb);
      try {
        const { tier, ...o } = PATH_OPTS[path];
        const t0 = performance.now();
        const p = await profileFleet(client(prom.url, 4), { window: WINDOW, at, ...o });
        const coldMs = performance.now() - t0;
        if (p.rows.length !== n) throw new Error(`expected ${n} instances, got ${p.rows.length}`);
        if (p.recordingRules.tier !== tier)
          throw new Error(
            `${path}: read ${p.recordingRules.tier} (${p.recordingRules.fallbackReason ?? p.recordingRules.windowNote})`,
          );
        const x = await pairedRun(prom.url, at, path);
        const po = out[path];
        po.coldMs.push(round(coldMs, 0));
        po.oursMs.push(round(x.oursMs, 0));
        po.rawPrometheusMs.push(round(x.rawMs, 0));
        po.backendMsByKind.push(x.backendMsByKind);
        po.requests = p.queries;
        po.slowest.push(x.slowest);
        po.load.push(round(loadavg()[0]!, 1));
        log(
          `${n} ${path} (load ${round(loadavg()[0]!, 1)}): cold ${round(coldMs, 0)} ms; one at a time: ours ${round(x.oursMs, 0)} ms + backend ${round(x.rawMs, 0)} ms ${JSON.stringify(x.backendMsByKind)}`,
        );
      } finally {
        await prom.stop();
      }
    }
  }
  const over = (a: Path, b: Path) => out[a].coldMs.map((c, i) => round(c / out[b].coldMs[i]!, 3));
  // oursMs is the paired run's wall time less the raw re-issues: it already holds the client's own
  // requests (the backend's time for them included), so the whole profile ÷ the backend is ours ÷ raw.
  const totalOverBackend = (p: Path) => out[p].oursMs.map((o, i) => round(o / out[p].rawPrometheusMs[i]!, 3));
  const coldOverBackend = (p: Path) => out[p].coldMs.map((c, i) => round(c / out[p].rawPrometheusMs[i]!, 3));
  return {
    ...out,
    coldRecordedOverRaw: over("recorded", "raw"),
    coldRecordedOverRawMedian: round(median(over("recorded", "raw")), 3),
    coldWindowOverRecorded: over("window", "recorded"),
    coldWindowOverRaw: over("window", "raw"),
    recordedTotalOverBackend: totalOverBackend("recorded"),
    recordedTotalOverBackendMedian: round(median(totalOverBackend("recorded")), 3),
    /** Per path and repeat: the whole profile ÷ the backend's time for its requests, one request at a time. */
    totalOverBackend: Object.fromEntries(PATHS.map((p) => [p, totalOverBackend(p)])) as Record<
      Path,
      number[]
    >,
    /** Per path and repeat: the cold profile (4 in flight) ÷ the backend's own time for its requests. */
    coldOverBackend: Object.fromEntries(PATHS.map((p) => [p, coldOverBackend(p)])) as Record<Path, number[]>,
  };
}

/**
 * What one evaluation of untorn.window costs the backend: each rule's expression as an instant query at
 * `at`, one after another (as a rule group evaluates), summed. Two passes; the second is warm.
 */
async function windowGroupEvalMs(url: string, at: number): Promise<number[]> {
  const rules = windowGroup().rules;
  const passes: number[] = [];
  for (let pass = 0; pass < 2; pass++) {
    let ms = 0;
    for (const r of rules) ms += await rawTime(url, r.expr, at);
    passes.push(round(ms, 0));
  }
  return passes;
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
  let windowRulesMs = 0;
  let windowEvalMs: number[] = [];
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
    windowEvalMs = await windowGroupEvalMs(vm.url, end);
    log(
      `${n}: one evaluation of untorn.window costs the backend ${windowEvalMs.join(" / ")} ms (cold / warm)`,
    );
    // Then untorn.window over the rates just written, at its own interval (-datasource.queryStep).
    const windowFile = join(work, "window-rules.json");
    await writeWindowRules(windowFile);
    const t1 = performance.now();
    await replayRules({
      vmUrl: vm.url,
      ruleFiles: [windowFile],
      evaluationInterval: RECORDED_WINDOW.interval,
      from: end - WINDOW_RULES_MINUTES * 60,
      to: end,
      timeoutMs: 3_600_000,
    });
    await vm.flush();
    windowRulesMs = performance.now() - t1;
    log(`${n}: untorn.window replayed by vmalert in ${round(windowRulesMs, 0)} ms`);
  } finally {
    await vm.stop();
  }
  const paths = await sideBySide(data, end, n, repeatsAt(n));
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
    windowRulesBackfillMs: round(windowRulesMs, 0),
    windowGroupEvalMs: windowEvalMs,
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
    // Then untorn.window, which reads the rates just backfilled: promtool queries a prometheus that has them.
    const windowProm = await startPrometheus({ jobs: [], storagePath: tsdb });
    let windowRulesMs = 0;
    let windowEvalMs: number[] = [];
    try {
      windowEvalMs = await windowGroupEvalMs(windowProm.url, end);
      log(
        `${n}: one evaluation of untorn.window costs the backend ${windowEvalMs.join(" / ")} ms (cold / warm)`,
      );
      const r = await backfillRecordingRules(
        windowProm.url,
        { start: end - WINDOW_RULES_MINUTES * 60, end, evalSeconds: WINDOW_EVAL_SECONDS },
        join(work, "window-rules"),
        "window",
      );
      windowRulesMs = r.promtoolMs;
      for (const b of readdirSync(r.dir).filter((x) => /^[0-9A-Z]{26}$/.test(x)))
        renameSync(join(r.dir, b), join(tsdb, b));
      log(`${n}: ${r.rules} untorn.window rules backfilled in ${round(windowRulesMs, 0)} ms`);
    } finally {
      await windowProm.stop();
    }
    const paths = await sideBySide(tsdb, end, n, repeatsAt(n));
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
      windowRulesBackfillMs: round(windowRulesMs, 0),
      windowGroupEvalMs: windowEvalMs,
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
      windowRulesMinutes: WINDOW_RULES_MINUTES,
      preparation:
        BACKEND === "victoria-metrics"
          ? "victoria-metrics: the history imported through /api/v1/import/prometheus (backfillMs.generate includes the generation), untorn.rates replayed by vmalert every 15 s over the history, then untorn.window by vmalert at its 1m interval over the last WINDOW_RULES_MINUTES (-datasource.queryStep = the evaluation interval); where the texts below say promtool and prometheus, read vmalert and victoria-metrics"
          : "prometheus: promtool tsdb create-blocks-from openmetrics, then rules, as the texts below say",
      repeats: SIZES.map((n) => ({ instances: n, repeats: repeatsAt(n) })),
      windowPath:
        "path window: untorn.window's recorded 1h statistics (tier 2), backfilled with promtool tsdb create-blocks-from rules over the last WINDOW_RULES_MINUTES of the history at the group's 1m interval, against a prometheus already holding the rates (tier 1); path recorded: the per-instance 5m rates (tier 1, windowRules: false); path raw: raw series. windowGroupEvalMs: one evaluation of untorn.window (each rule's expression as an instant query at the end, one after another), first pass / second pass. backendMsByKind: the backend time of the paired run by part of the plan",
      recordedVsRaw:
        "the catalog's rate recording rules backfilled over the history with promtool tsdb create-blocks-from rules (eval interval = scrape interval); per repeat, each path on a freshly started prometheus (alternating order): coldMs = one profile with 4 requests in flight, then one paired run (oursMs / rawPrometheusMs as above). overhead, oursMs and rawPrometheusMs at the top level are the raw-series path (recordingRules: false), as before",
      method:
        "synthetic untorn-exporter history (packages/fleet/src/testing/synthetic.ts) backfilled with promtool tsdb create-blocks-from openmetrics; one cold profile with 4 requests in flight (firstProfileConcurrency4Ms), then profiles one request at a time where every request is also re-issued with plain fetch right before or after (alternating): Prometheus time = sum of those raw requests, ours = the profile's wall time minus them; overhead = median over runs of ours / Prometheus - 1",
      quick,
    },
    results,
    goals: {
      windowColdAtMostMs: 5000,
      windowColdMet: results.every(
        (r) => r.instances < 10_000 || Math.min(...r.recordedVsRaw.window.coldMs) <= 5000,
      ),
      windowTotalOverBackendAtMost: 1.2,
      windowTotalOverBackendMet: results.every((r) => median(r.recordedVsRaw.totalOverBackend.window) <= 1.2),
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
        `${r.instances} instances: window ${r.recordedVsRaw.window.coldMs.join("/")} ms cold (÷ backend ${r.recordedVsRaw.coldOverBackend.window.join("/")}); recorded / raw cold ${r.recordedVsRaw.coldRecordedOverRaw.join("/")} (recorded ${r.recordedVsRaw.recorded.coldMs.join("/")} ms, raw ${r.recordedVsRaw.raw.coldMs.join("/")} ms); ${r.requests} requests, overhead ${round(r.overhead * 100)}% (ours ${r.oursMs.join("/")} ms vs Prometheus ${r.rawPrometheusMs.join("/")} ms)`,
    )
    .join("; "),
);
log(`wrote ${file}`);
