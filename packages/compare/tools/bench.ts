// Benchmark: compare of 20 instances × 8 metrics, 7-day before and 7-day after windows at 15 s, with
// the same samples in three input forms (explicit timestamps { t, v }, the compact grid
// { start, step, v } and the grid with base64 float64 samples { start, step, f64 }) read by both
// readers side by side: JSON.parse of the whole file then zod (the previous path), and the fast reader
// (read-input.ts: 1 MiB chunks, sample arrays straight into Float64Arrays) then zod. Paths ending in
// -threads then run compare on a pool of worker threads (the CLI's compareParallel, one worker per
// core: build @untorn/cli first), the others on the main thread. Each (scenario, path) runs in its own
// child process (V8 --single-threaded: no V8 helper threads, so the -threads paths' parallelism is
// their workers only) so time and peak memory are its own; rounds rotate the order of the paths and
// the report keeps every run and their medians. Writes bench/results/compare.json and prints a summary.
// Run after a build: npm run bench -w @untorn/compare [-- <rounds, default 5> [<scenarios, comma-separated>]]
// Environment: UNTORN_COMPARE_BENCH_PATHS (comma-separated subset of the paths, all by default),
// UNTORN_COMPARE_BENCH_DAYS (days per window, 7 by default: fewer for a quick profile),
// UNTORN_COMPARE_BENCH_PREVIOUS (dist/tools/bench.js of a previous build of this package: every path
// then also runs on that code, side by side in each round, as "<path>@previous"),
// UNTORN_COMPARE_BENCH_DIR (keep the input files there).
import { execFileSync } from "node:child_process";
import { createHash } from "node:crypto";
import {
  closeSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  openSync,
  readFileSync,
  readSync,
  rmSync,
  statSync,
  writeFileSync,
  writeSync,
} from "node:fs";
import { availableParallelism, cpus, loadavg, tmpdir } from "node:os";
import { dirname, join } from "node:path";
import { PerformanceObserver, performance } from "node:perf_hooks";
import { fileURLToPath } from "node:url";
import { compare } from "@untorn/compare/compare";
import { decodeF64, encodeF64 } from "@untorn/compare/f64-samples";
import { ComparisonInput, type ComparisonInputJson } from "@untorn/compare/input";
import { createRng } from "@untorn/compare/prng";
import { readComparisonInput } from "@untorn/compare/read-input";
import type { ComparisonResult, Flag } from "@untorn/compare/result";
import { sharedFactor, simulateSeries } from "@untorn/compare/simulate";

const DAY = 86_400;
const STEP = 15;
const DAYS = Math.max(1, Number(process.env["UNTORN_COMPARE_BENCH_DAYS"] ?? 7) || 7);
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

const FORMS = ["explicit", "compact", "f64"] as const;
type Form = (typeof FORMS)[number];
/**
 * Form and reader: JSON.parse + zod (the previous path), or the fast reader + zod; -threads: compare
 * on worker threads.
 */
const PATHS = [
  "explicit",
  "compact",
  "f64",
  "explicit-fast",
  "compact-fast",
  "f64-fast",
  "compact-fast-threads",
  "f64-fast-threads",
] as const;
type Path = (typeof PATHS)[number];
/** A path run on this code, or on the previous build's (UNTORN_COMPARE_BENCH_PREVIOUS). */
type Variant = Path | `${Path}@previous`;
const formOf = (path: Variant): Form =>
  path.startsWith("explicit") ? "explicit" : path.startsWith("f64") ? "f64" : "compact";

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
  return form === "f64" ? { start, step: STEP, f64: encodeF64(v) } : { start, step: STEP, v };
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

/**
 * Writes the input as a JSON file, window by window (the explicit form of this fleet is about 370 MB
 * of JSON, close to V8's longest string). Returns the sample count (non-null values) and the slots.
 */
function writeInput(scenario: Scenario, form: Form, file: string): { samples: number; slots: number } {
  const json = buildInput(scenario, form);
  let samples = 0;
  let slots = 0;
  const fd = openSync(file, "w");
  const { instances, ...head } = json;
  writeSync(fd, `${JSON.stringify(head).slice(0, -1)},"instances":[`);
  instances.forEach((inst, i) => {
    const { series, ...rest } = inst;
    writeSync(fd, `${i > 0 ? "," : ""}${JSON.stringify(rest).slice(0, -1)},"series":{`);
    Object.entries(series).forEach(([id, pair], k) => {
      for (const w of [pair.before, pair.after]) {
        const v = "f64" in w ? decodeF64(w.f64) : w.v;
        if (typeof v === "string") throw new Error(v);
        slots += v.length;
        for (const x of v) if (x !== null && !Number.isNaN(x)) samples++;
      }
      writeSync(fd, `${k > 0 ? "," : ""}${JSON.stringify(id)}:${JSON.stringify(pair)}`);
    });
    writeSync(fd, "}}");
  });
  writeSync(fd, "]}");
  closeSync(fd);
  return { samples, slots };
}

/**
 * What `untorn compare --input <file>` did before the fast reader (read and JSON.parse the file,
 * validate, drop the parsed JSON: compare reads the validated Float64Array copies) or does now (the
 * fast reader over 1 MiB chunks, as the CLI's readComparisonFile), then compare.
 */
/** What the bench uses of the CLI's apps/cli/src/compare/parallel.ts. */
interface Parallel {
  compareParallel(input: ComparisonInput, options: { threads: number }): Promise<ComparisonResult>;
}

async function runScenario(name: string, form: Path, file: string): Promise<void> {
  const scenario = SCENARIOS.find((s) => s.name === name)!;
  const threads = form.endsWith("-threads");
  // The CLI's pool (apps/cli/src/compare/parallel.ts), loaded before the clock starts.
  const parallel: Parallel | undefined = threads
    ? await import(new URL("../../../../apps/cli/dist/compare/parallel.js", import.meta.url).href)
    : undefined;
  const baselineRss = process.memoryUsage().rss;
  let g0 = Number.POSITIVE_INFINITY;
  let t2a = Number.POSITIVE_INFINITY;
  // Garbage collection inside the timed part (read, validation, compare), from V8's own gc entries.
  let gcMs = 0;
  const gc = new PerformanceObserver((list) => {
    for (const e of list.getEntries())
      if (e.startTime >= t0 && (e.startTime < g0 || e.startTime >= t2a)) gcMs += e.duration;
  });
  gc.observe({ entryTypes: ["gc"] });
  // CPU seconds beside wall seconds: on a shared machine the wall clock mostly measures the others.
  const cpu = () => {
    const u = process.cpuUsage();
    return (u.user + u.system) / 1e6;
  };
  const c0 = cpu();
  const t0 = performance.now();
  let parsed: ComparisonInput;
  let tRead: number;
  let cRead: number;
  if (form.includes("-fast")) {
    // Reading and validating are one call: the zod part over the small structure is counted in "read".
    const fd = openSync(file, "r");
    const buf = Buffer.allocUnsafe(1 << 20);
    const r = readComparisonInput(() => {
      const n = readSync(fd, buf, 0, buf.length, null);
      return n === 0 ? null : buf.subarray(0, n);
    });
    closeSync(fd);
    if (!r.success) throw new Error(r.error.message);
    parsed = r.data;
    tRead = performance.now();
    cRead = cpu();
  } else {
    let json: unknown = JSON.parse(readFileSync(file, "utf8"));
    tRead = performance.now();
    cRead = cpu();
    parsed = ComparisonInput.parse(json);
    json = undefined;
  }
  const t1 = performance.now();
  const c1 = cpu();
  // What compare holds once the JSON is gone (--expose-gc; outside the timed phases).
  g0 = performance.now();
  (globalThis as { gc?: () => void }).gc?.();

  const rssValidated = process.memoryUsage().rss;
  const c2a = cpu();
  t2a = performance.now();
  const result = parallel
    ? await parallel.compareParallel(parsed, { threads: availableParallelism() })
    : compare(parsed);
  const t2 = performance.now();
  const c2 = cpu();
  const rssCompared = process.memoryUsage().rss;
  // gc entries arrive asynchronously: report once they are in.
  setTimeout(() => {
    gc.disconnect();
    const out = {
      name,
      form,
      threads: threads ? availableParallelism() : 1,
      instances: INSTANCES,
      inputMB: Math.round(statSync(file).size / 2 ** 20),
      controls: scenario.controls,
      metrics: METRICS.length,
      daysPerWindow: DAYS,
      stepSeconds: STEP,
      readSeconds: round((tRead - t0) / 1000),
      parseSeconds: round((t1 - tRead) / 1000),
      compareSeconds: round((t2 - t2a) / 1000),
      totalSeconds: round((t2 - t2a + t1 - t0) / 1000),
      readCpuSeconds: round(cRead - c0),
      parseCpuSeconds: round(c1 - cRead),
      compareCpuSeconds: round(c2 - c2a),
      totalCpuSeconds: round(c2 - c2a + c1 - c0),
      gcSeconds: round(gcMs / 1000),
      rssAfterValidationMB: Math.round(rssValidated / 2 ** 20),
      rssAfterCompareMB: Math.round(rssCompared / 2 ** 20),
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
  }, 100);
}

function median(xs: readonly number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

const KEYS = [
  "totalSeconds",
  "readSeconds",
  "parseSeconds",
  "compareSeconds",
  "totalCpuSeconds",
  "readCpuSeconds",
  "parseCpuSeconds",
  "compareCpuSeconds",
  "gcSeconds",
  "rssAfterValidationMB",
  "rssAfterCompareMB",
  "peakRssMB",
] as const;
type Key = (typeof KEYS)[number];
type Run = Record<string, unknown> &
  Record<Key, number> & { name: string; form: Path; code: "now" | "previous"; resultHash: string };

const [arg, formArg, fileArg] = process.argv.slice(2);
if (arg && formArg && fileArg) {
  await runScenario(arg, formArg as Path, fileArg);
} else {
  const rounds = Math.max(1, Number(arg ?? 5) || 5);
  // A comma-separated subset of the scenarios (all by default).
  const chosen = formArg ? SCENARIOS.filter((s) => formArg.split(",").includes(s.name)) : SCENARIOS;
  const pathsArg = process.env["UNTORN_COMPARE_BENCH_PATHS"];
  const paths: Path[] = pathsArg ? PATHS.filter((p) => pathsArg.split(",").includes(p)) : [...PATHS];
  if (paths.length === 0) throw new Error(`UNTORN_COMPARE_BENCH_PATHS: none of ${PATHS.join(", ")}`);
  const self = fileURLToPath(import.meta.url);
  // The previous build's bench (its runScenario, its reader and compare) for side-by-side ratios.
  const previous = process.env["UNTORN_COMPARE_BENCH_PREVIOUS"];
  if (previous && !existsSync(previous))
    throw new Error(`UNTORN_COMPARE_BENCH_PREVIOUS: no file ${previous}`);
  const variants: Variant[] = previous ? paths.flatMap((p) => [p, `${p}@previous` as const]) : paths;
  // UNTORN_COMPARE_BENCH_DIR keeps the input files there (to profile one path by hand:
  // node --cpu-prof dist/tools/bench.js <scenario> <path> <file>).
  const keep = process.env["UNTORN_COMPARE_BENCH_DIR"];
  if (keep) mkdirSync(keep, { recursive: true });
  const dir = keep ? keep : mkdtempSync(join(tmpdir(), "untorn-compare-bench-"));
  const files = new Map<string, { file: string; samples: number; slots: number }>();
  for (const s of chosen) {
    for (const form of FORMS) {
      if (!paths.some((p) => formOf(p) === form)) continue;
      const file = join(dir, `${s.name}.${form}.json`);
      files.set(`${s.name}/${form}`, { file, ...writeInput(s, form, file) });
    }
  }
  // Shared CI and dev machines: record the load so a slow run can be told from a slow change.
  const loads: number[] = [loadavg()[0]!];
  const runs: Run[] = [];
  try {
    for (let r = 0; r < rounds; r++) {
      for (const s of chosen) {
        // Rotated every other round and reversed in the rounds between, so that each variant takes every
        // place in the order in turn (rotating and reversing in the same round kept the first one first
        // with two variants).
        const k = Math.floor(r / 2) % variants.length;
        const rotated = [...variants.slice(k), ...variants.slice(0, k)];
        const order = r % 2 === 0 ? rotated : rotated.reverse();
        for (const variant of order) {
          const { file, samples, slots } = files.get(`${s.name}/${formOf(variant)}`)!;
          const [form, code] = variant.split("@") as [Path, "previous" | undefined];
          const script = code === "previous" ? previous! : self;
          runs.push({
            ...JSON.parse(
              execFileSync(
                process.execPath,
                ["--single-threaded", "--expose-gc", script, s.name, form, file],
                {
                  encoding: "utf8",
                  maxBuffer: 1 << 20,
                },
              ),
            ),
            code: code ?? "now",
            samples,
            inputSlots: slots,
            round: r + 1,
            loadAverage1m: round(loadavg()[0]!),
          });
        }
      }
      loads.push(loadavg()[0]!);
    }
  } finally {
    if (!keep) rmSync(dir, { recursive: true, force: true });
  }
  const summary = chosen.map((s) => {
    const of = (v: Variant) => {
      const [form, code = "now"] = v.split("@");
      return runs.filter((x) => x.name === s.name && x.form === form && x.code === code);
    };
    const medians = (v: Variant) =>
      Object.fromEntries(KEYS.map((k) => [k, round(median(of(v).map((x) => x[k])))])) as Record<Key, number>;
    /** Per round: num ÷ den of the same round (same load), then the median. */
    const perRound = (num: Variant, den: Variant, f: (x: Run) => number) =>
      round(
        median(
          of(num).map((c) => {
            const e = of(den).find((x) => x["round"] === c["round"])!;
            return f(c) / f(e);
          }),
        ),
      );
    const ratios = (num: Variant, den: Variant) => ({
      totalSeconds: perRound(num, den, (x) => x.totalSeconds),
      totalCpuSeconds: perRound(num, den, (x) => x.totalCpuSeconds),
      readAndValidateCpuSeconds: perRound(num, den, (x) => x.readCpuSeconds + x.parseCpuSeconds),
      compareCpuSeconds: perRound(num, den, (x) => x.compareCpuSeconds),
      peakRssMB: perRound(num, den, (x) => x.peakRssMB),
    });
    const has = (v: Variant) => variants.includes(v);
    const pairs: [string, Variant, Variant][] = [
      ["compactOverExplicit", "compact", "explicit"],
      ["fastOverJsonParse.explicit", "explicit-fast", "explicit"],
      ["fastOverJsonParse.compact", "compact-fast", "compact"],
      ["compactFastOverExplicit", "compact-fast", "explicit"],
      ["f64FastOverCompactFast", "f64-fast", "compact-fast"],
      ["compactFastThreadsOverCompactFast", "compact-fast-threads", "compact-fast"],
      ["f64FastThreadsOverF64Fast", "f64-fast-threads", "f64-fast"],
      ["f64FastThreadsOverCompactFast", "f64-fast-threads", "compact-fast"],
      ...paths.map((p): [string, Variant, Variant] => [`nowOverPrevious.${p}`, p, `${p}@previous`]),
    ];
    const hashes = new Set(runs.filter((x) => x.name === s.name).map((x) => x.resultHash));
    const inputMB = Object.fromEntries(
      FORMS.flatMap((f) => {
        const run = runs.find((x) => x.name === s.name && formOf(x.form) === f);
        return run ? [[f, run["inputMB"]]] : [];
      }),
    );
    return {
      name: s.name,
      samples: [...files.entries()].find(([k]) => k.startsWith(`${s.name}/`))![1].samples,
      inputMB,
      medians: Object.fromEntries(variants.map((v) => [v, medians(v)])),
      ratios: Object.fromEntries(
        pairs.filter(([, n, d]) => has(n) && has(d)).map(([label, n, d]) => [label, ratios(n, d)]),
      ),
      sameResult: hashes.size === 1,
    };
  });
  const report = {
    benchmark: "compare",
    description: `${INSTANCES} instances x ${METRICS.length} metrics, ${DAYS}-day before and ${DAYS}-day after windows at ${STEP} s, the same samples as explicit timestamps, as the compact grid and as the grid with base64 float64 samples (f64), each read from a JSON file by JSON.parse of the whole file then zod (explicit, compact, f64) and by the fast reader then zod (-fast); then compare on the main thread, or on ${availableParallelism()} worker threads (-threads); one process per scenario and path, V8 --single-threaded${previous ? ", each path also on the previous build of the package (<path>@previous)" : ""}; medians of ${rounds} rounds (the ratios: median of the per-round ratios; for the -fast paths read covers reading and validation)`,
    date: new Date().toISOString(),
    node: process.version,
    cpu: cpus()[0]?.model ?? "unknown",
    cores: cpus().length,
    rounds,
    daysPerWindow: DAYS,
    variants,
    loadAverage1m: { min: round(Math.min(...loads)), max: round(Math.max(...loads)) },
    summary,
    runs,
  };
  const out = process.env["UNTORN_COMPARE_BENCH_OUT"] ?? "../../../../bench/results/compare.json";
  const file = fileURLToPath(new URL(out, import.meta.url));
  mkdirSync(dirname(file), { recursive: true });
  writeFileSync(file, `${JSON.stringify(report, null, 2)}\n`);
  console.log(
    `compare: ${INSTANCES} instances x ${METRICS.length} metrics x ${DAYS}+${DAYS} days @ ${STEP} s, medians of ${rounds} rounds, load ${report.loadAverage1m.min}-${report.loadAverage1m.max} (${file}):`,
  );
  for (const s of summary) {
    console.log(`  ${s.name} (${(s.samples / 1e6).toFixed(1)} M samples), same result: ${s.sameResult}`);
    for (const [v, f] of Object.entries(s.medians))
      console.log(
        `    ${v}: ${f.totalSeconds} s wall, ${f.totalCpuSeconds} s CPU (read ${f.readCpuSeconds}, validate ${f.parseCpuSeconds}, compare ${f.compareCpuSeconds}), RSS after validation ${f.rssAfterValidationMB} MB, peak ${f.peakRssMB} MB`,
      );
    for (const [label, r] of Object.entries(s.ratios))
      console.log(
        `    ${label}: total CPU ${r.totalCpuSeconds}x, read+validate CPU ${r.readAndValidateCpuSeconds}x, compare CPU ${r.compareCpuSeconds}x, peak RSS ${r.peakRssMB}x`,
      );
  }
}
