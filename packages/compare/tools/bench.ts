// Benchmark: compare of 20 instances × 8 metrics, 7-day before and 7-day after windows at 15 s, with
// the same samples in both input forms side by side: explicit timestamps ({ t, v }) and the compact
// grid ({ start, step, v }). Each (scenario, form) runs in its own single-threaded child process (V8
// --single-threaded) so time and peak memory are its own; rounds alternate the order of the forms and
// the report keeps every run and their medians. Writes bench/results/compare.json and prints a summary.
// Run after a build: npm run bench -w @untorn/compare [-- <rounds, default 5>]
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import { mkdirSync, writeFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { compare } from "@untorn/compare/compare";
import { ComparisonInput, type ComparisonInputJson } from "@untorn/compare/input";
import { createRng } from "@untorn/compare/prng";
import type { Flag } from "@untorn/compare/result";
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

const FORMS = ["explicit", "compact"] as const;
type Form = (typeof FORMS)[number];

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

type JsonWindow = ComparisonInputJson["instances"][number]["series"][string]["before"];

/**
 * The simulated window in the requested form. Compact: the grid from the first sample, null where
 * the simulation left a gap (as a Prometheus range query over JSON gives it); the same samples.
 */
function inForm(w: { t: number[]; v: (number | null)[] }, form: Form): JsonWindow {
  if (form === "explicit") return w;
  const start = w.t[0]!;
  const n = Math.round((w.t[w.t.length - 1]! - start) / STEP) + 1;
  const v: (number | null)[] = new Array(n).fill(null);
  for (let i = 0; i < w.t.length; i++) v[Math.round((w.t[i]! - start) / STEP)] = w.v[i]!;
  return { start, step: STEP, v };
}

function buildInput(scenario: Scenario, form: Form): ComparisonInputJson {
  const rng = createRng(20_260_101);
  const n = (DAYS * DAY) / STEP;
  const fleet = { before: sharedFactor(n, 0.05, 0.95, rng), after: sharedFactor(n, 0.05, 0.95, rng) };
  const instances: ComparisonInputJson["instances"] = [];
  for (let i = 0; i < INSTANCES; i++) {
    const role = i < INSTANCES - scenario.controls ? "treated" : "control";
    const series: Record<string, { before: JsonWindow; after: JsonWindow }> = {};
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
        before: inForm(simulateSeries(spec(0, fleet.before, 1), rng), form),
        after: inForm(simulateSeries(spec(DAYS, fleet.after, effect), rng), form),
      };
    }
    instances.push({ id: `db-${String(i + 1).padStart(2, "0")}`, role, series });
  }
  return { seed: 1, metrics: METRICS, instances, options: { method: scenario.method } };
}

function runScenario(name: string, form: Form): void {
  const scenario = SCENARIOS.find((s) => s.name === name)!;
  // Dropped once validated, as `untorn compare --input` drops the parsed JSON: compare reads the copies.
  let json: ComparisonInputJson | undefined = buildInput(scenario, form);
  let samples = 0;
  let slots = 0;
  for (const inst of json.instances) {
    for (const s of Object.values(inst.series)) {
      for (const w of [s.before, s.after]) {
        slots += w.v.length;
        for (const x of w.v) if (x !== null) samples++;
      }
    }
  }
  const baselineRss = process.memoryUsage().rss;
  const t0 = performance.now();
  const parsed = ComparisonInput.parse(json);
  json = undefined;
  const t1 = performance.now();
  const result = compare(parsed);
  const t2 = performance.now();
  const out = {
    name,
    form,
    instances: INSTANCES,
    controls: scenario.controls,
    metrics: METRICS.length,
    daysPerWindow: DAYS,
    stepSeconds: STEP,
    samples,
    inputSlots: slots,
    parseSeconds: round((t1 - t0) / 1000),
    compareSeconds: round((t2 - t1) / 1000),
    totalSeconds: round((t2 - t0) / 1000),
    baselineRssMB: Math.round(baselineRss / 2 ** 20),
    peakRssMB: Math.round((process.resourceUsage().maxRSS * 1024) / 2 ** 20),
    verdict: result.overall.verdict,
    methods: [...new Set(result.results.map((r) => r.method))],
    // Fingerprint of the whole result: both forms of the same samples must give the same one, but for
    // the compact form's info flag counting its gaps (nulls) as missing samples.
    resultHash: createHash("sha256")
      .update(
        JSON.stringify(result, (key, value) =>
          key === "flags" ? (value as Flag[]).filter((f) => f.code !== "non_finite") : value,
        ),
      )
      .digest("hex")
      .slice(0, 16),
  };
  process.stdout.write(JSON.stringify(out));
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

type Run = Record<string, unknown> & {
  name: string;
  form: Form;
  totalSeconds: number;
  parseSeconds: number;
  compareSeconds: number;
  peakRssMB: number;
  resultHash: string;
  samples: number;
};

const [arg, formArg] = process.argv.slice(2);
if (arg && formArg) {
  runScenario(arg, formArg as Form);
} else {
  const rounds = Math.max(1, Number(arg ?? 5) || 5);
  const self = fileURLToPath(import.meta.url);
  // Shared CI and dev machines: record the load so a slow run can be told from a slow change.
  const loads: number[] = [loadavg()[0]!];
  const runs: Run[] = [];
  for (let r = 0; r < rounds; r++) {
    for (const s of SCENARIOS) {
      // Alternate which form goes first, so a load swing does not favour one.
      const forms = r % 2 === 0 ? FORMS : [...FORMS].reverse();
      for (const form of forms) {
        runs.push({
          ...JSON.parse(
            execFileSync(process.execPath, ["--single-threaded", self, s.name, form], {
              encoding: "utf8",
              maxBuffer: 1 << 20,
            }),
          ),
          round: r + 1,
          loadAverage1m: round(loadavg()[0]!),
        });
      }
    }
    loads.push(loadavg()[0]!);
  }
  const summary = SCENARIOS.map((s) => {
    const of = (form: Form) => runs.filter((x) => x.name === s.name && x.form === form);
    const med = (form: Form, key: "totalSeconds" | "parseSeconds" | "compareSeconds" | "peakRssMB") =>
      round(median(of(form).map((x) => x[key])));
    const ratio = (key: "totalSeconds" | "peakRssMB") => {
      // Per round: compact ÷ explicit of the same round (same load), then the median.
      const rs = of("compact").map((c) => {
        const e = of("explicit").find((x) => x["round"] === c["round"])!;
        return c[key] / e[key];
      });
      return round(median(rs));
    };
    const hashes = new Set(runs.filter((x) => x.name === s.name).map((x) => x.resultHash));
    return {
      name: s.name,
      samples: of("explicit")[0]!.samples,
      explicit: {
        totalSeconds: med("explicit", "totalSeconds"),
        parseSeconds: med("explicit", "parseSeconds"),
        compareSeconds: med("explicit", "compareSeconds"),
        peakRssMB: med("explicit", "peakRssMB"),
      },
      compact: {
        totalSeconds: med("compact", "totalSeconds"),
        parseSeconds: med("compact", "parseSeconds"),
        compareSeconds: med("compact", "compareSeconds"),
        peakRssMB: med("compact", "peakRssMB"),
      },
      compactOverExplicit: { totalSeconds: ratio("totalSeconds"), peakRssMB: ratio("peakRssMB") },
      sameResult: hashes.size === 1,
    };
  });
  const report = {
    benchmark: "compare",
    description: `${INSTANCES} instances x ${METRICS.length} metrics, ${DAYS}-day before and ${DAYS}-day after windows at ${STEP} s, the same samples as explicit timestamps and as the compact grid; one single-threaded process per scenario and form; medians of ${rounds} rounds (compactOverExplicit: median of the per-round ratios)`,
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    rounds,
    loadAverage1m: { min: round(Math.min(...loads)), max: round(Math.max(...loads)) },
    summary,
    runs,
  };
  const file = fileURLToPath(new URL("../../../../bench/results/compare.json", import.meta.url));
  mkdirSync(fileURLToPath(new URL("../../../../bench/results/", import.meta.url)), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `compare: ${INSTANCES} instances x ${METRICS.length} metrics x ${DAYS}+${DAYS} days @ ${STEP} s (${(summary[0]!.samples / 1e6).toFixed(1)} M samples), medians of ${rounds} rounds, load ${report.loadAverage1m.min}-${report.loadAverage1m.max}:`,
  );
  for (const s of summary) {
    console.log(
      `  ${s.name}: explicit ${s.explicit.totalSeconds} s (validation ${s.explicit.parseSeconds} s), peak RSS ${s.explicit.peakRssMB} MB; compact ${s.compact.totalSeconds} s (validation ${s.compact.parseSeconds} s), peak RSS ${s.compact.peakRssMB} MB; compact/explicit time ${s.compactOverExplicit.totalSeconds}x, RSS ${s.compactOverExplicit.peakRssMB}x; same result: ${s.sameResult}`,
    );
  }
}
