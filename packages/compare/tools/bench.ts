// Benchmark: compare of 20 instances × 8 metrics, 7-day before and 7-day after windows at 15 s.
// Each scenario runs in its own single-threaded child process (V8 --single-threaded) so time and peak
// memory are its own. Writes bench/results/compare.json and prints a one-line summary.
// Run after a build: npm run bench -w @untorn/compare
import { execFileSync } from "node:child_process";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { compare } from "@untorn/compare/compare";
import { ComparisonInput, type ComparisonInputJson } from "@untorn/compare/input";
import { createRng } from "@untorn/compare/prng";
import { sharedFactor, simulateSeries } from "@untorn/compare/simulate";

const DAY = 86_400;
const STEP = 15;
const DAYS = 7;
const INSTANCES = 20;
const T0 = 1_767_225_600; // 2026-01-01T00:00:00Z

const METRICS: ComparisonInputJson["metrics"] = [
  { id: "tps", kind: "throughput", unit: "1/s" },
  { id: "commit_latency", kind: "latency", unit: "s" },
  { id: "bytes_per_trx", kind: "efficiency", unit: "bytes" },
  { id: "write_ops_per_trx", kind: "efficiency" },
  { id: "fsyncs_per_trx", kind: "efficiency" },
  { id: "dblwr_wait", kind: "wait", unit: "s/s" },
  { id: "com_insert", kind: "workload", unit: "1/s" },
  { id: "com_update", kind: "workload", unit: "1/s" },
];
// Effect of the change on treated instances (doublewrite off: about half the bytes, fewer fsyncs).
const EFFECT: Record<string, number> = {
  bytes_per_trx: 0.55,
  write_ops_per_trx: 0.8,
  fsyncs_per_trx: 0.6,
  dblwr_wait: 0.3,
};
const LEVEL: Record<string, number> = {
  tps: 800,
  commit_latency: 0.004,
  bytes_per_trx: 120_000,
  write_ops_per_trx: 9,
  fsyncs_per_trx: 2.5,
  dblwr_wait: 0.02,
  com_insert: 500,
  com_update: 1500,
};

interface Scenario {
  readonly name: string;
  readonly controls: number;
  readonly method: "auto" | "block-bootstrap";
}
const SCENARIOS: Scenario[] = [
  { name: "difference-in-differences", controls: 4, method: "auto" },
  { name: "before-after-matched-hours", controls: 0, method: "auto" },
  { name: "before-after-block-bootstrap", controls: 0, method: "block-bootstrap" },
];

function buildInput(scenario: Scenario): ComparisonInputJson {
  const rng = createRng(20_260_101);
  const n = (DAYS * DAY) / STEP;
  const fleet = { before: sharedFactor(n, 0.05, 0.95, rng), after: sharedFactor(n, 0.05, 0.95, rng) };
  const instances: ComparisonInputJson["instances"] = [];
  for (let i = 0; i < INSTANCES; i++) {
    const role = i < INSTANCES - scenario.controls ? "treated" : "control";
    const series: Record<
      string,
      { before: { t: number[]; v: (number | null)[] }; after: { t: number[]; v: (number | null)[] } }
    > = {};
    for (const m of METRICS) {
      const spec = (day: number, shared: Float64Array, effect: number) => ({
        start: T0 + day * DAY,
        seconds: DAYS * DAY,
        step: STEP,
        level: LEVEL[m.id]! * (1 + 0.1 * i),
        noise: { sd: 0.1, phi: 0.9 },
        seasonality: { amplitude: 0.3, peakHour: 14 },
        shared,
        effect,
        outliers: { rate: 0.002, scale: m.kind === "latency" ? 5 : 0.3 },
        gaps: { count: 2, seconds: 600 },
      });
      const effect = role === "treated" ? (EFFECT[m.id] ?? 1) : 1;
      series[m.id] = {
        before: simulateSeries(spec(0, fleet.before, 1), rng),
        after: simulateSeries(spec(DAYS, fleet.after, effect), rng),
      };
    }
    instances.push({ id: `db-${String(i + 1).padStart(2, "0")}`, role, series });
  }
  return { seed: 1, metrics: METRICS, instances, options: { method: scenario.method } };
}

function runScenario(name: string): void {
  const scenario = SCENARIOS.find((s) => s.name === name)!;
  const json = buildInput(scenario);
  const samples = json.instances.reduce(
    (acc, inst) =>
      acc + Object.values(inst.series).reduce((a, s) => a + s.before.t.length + s.after.t.length, 0),
    0,
  );
  const baselineRss = process.memoryUsage().rss;
  const t0 = performance.now();
  const parsed = ComparisonInput.parse(json);
  const t1 = performance.now();
  const result = compare(parsed);
  const t2 = performance.now();
  const out = {
    name,
    instances: INSTANCES,
    controls: scenario.controls,
    metrics: METRICS.length,
    daysPerWindow: DAYS,
    stepSeconds: STEP,
    samples,
    parseSeconds: round((t1 - t0) / 1000),
    compareSeconds: round((t2 - t1) / 1000),
    baselineRssMB: Math.round(baselineRss / 2 ** 20),
    peakRssMB: Math.round((process.resourceUsage().maxRSS * 1024) / 2 ** 20),
    verdict: result.overall.verdict,
    methods: [...new Set(result.results.map((r) => r.method))],
  };
  process.stdout.write(JSON.stringify(out));
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

const arg = process.argv[2];
if (arg) {
  runScenario(arg);
} else {
  const self = fileURLToPath(import.meta.url);
  // Shared CI and dev machines: record the load so a slow run can be told from a slow change.
  const loadBefore = loadavg()[0]!;
  const results = SCENARIOS.map((s) =>
    JSON.parse(
      execFileSync(process.execPath, ["--single-threaded", "--max-old-space-size=4096", self, s.name], {
        encoding: "utf8",
        maxBuffer: 1 << 20,
      }),
    ),
  );
  const report = {
    benchmark: "compare",
    description: `${INSTANCES} instances x ${METRICS.length} metrics, ${DAYS}-day before and ${DAYS}-day after windows at ${STEP} s; one single-threaded process per scenario`,
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    loadAverage1m: { before: round(loadBefore), after: round(loadavg()[0]!) },
    scenarios: results,
  };
  const file = fileURLToPath(new URL("../../../../bench/results/compare.json", import.meta.url));
  mkdirSync(fileURLToPath(new URL("../../../../bench/results/", import.meta.url)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  const samples = results[0].samples as number;
  console.log(
    `compare: ${INSTANCES} instances x ${METRICS.length} metrics x ${DAYS}+${DAYS} days @ ${STEP} s (${(samples / 1e6).toFixed(1)} M samples): ` +
      results
        .map((r) => `${r.name} ${r.compareSeconds} s (parse ${r.parseSeconds} s, peak RSS ${r.peakRssMB} MB)`)
        .join("; "),
  );
}
