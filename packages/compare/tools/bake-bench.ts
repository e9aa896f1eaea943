// Benchmark: time to a verdict of the sequential bake judgement (src/sequential.ts) on simulated
// canary/control pairs at 15 s (src/bake-simulation.ts): per-instance AR(1) log-scale noise at 4% and
// 10% (lag-1 0.9 at the scrape step, a correlation time of about 2.5 minutes) under a shared fleet
// factor (5%, lag-1 0.95) that the control removes; effects −20% and −45% bytes per transaction and
// +20% throughput, and A/A; a look every minute up to a 30-minute maximum bake; a baseline from history
// of 1 hour (and 15 minutes for comparison). Every replicate is seeded, so the figures are exact for
// the replicate count. Writes bench/results/compare-bake-sequential.json and prints a Markdown table.
// Run after a build: npm run bench:bake -w @untorn/compare [-- <replicates, default 400>]
// Environment: UNTORN_BAKE_BENCH_OUT (output file).
import { writeFileSync } from "node:fs";
import { loadavg } from "node:os";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { bakeScenarios, runBakeScenario } from "@untorn/compare/bake-simulation";

const replicates = Number(process.argv[2] ?? 400);
if (!Number.isInteger(replicates) || replicates < 10) {
  console.error(`replicates must be an integer ≥ 10, not ${process.argv[2]}`);
  process.exit(2);
}
const schedule = { lookEverySeconds: 60, maxSeconds: 1800 };
const started = Date.now();
const cpu0 = process.cpuUsage();
const rows = [];
for (const baselineSeconds of [3600, 900]) {
  for (const scenario of bakeScenarios({ baselineSeconds, schedule })) {
    const n = baselineSeconds === 3600 ? replicates : Math.max(10, Math.round(replicates / 2));
    rows.push({ baselineSeconds, ...runBakeScenario(scenario, n, 1) });
    console.error(`${scenario.name}, baseline ${baselineSeconds / 60} min: done`);
  }
}
const cpu = process.cpuUsage(cpu0);
const report = {
  benchmark: "compare-bake-sequential",
  method:
    "sequentialLook at every look (1 min) of a 30-min maximum bake; decided = the sequential interval excludes no change; power = decided the effect's way; A/A false positives = decided at all",
  schedule,
  step: 15,
  noise: { phi: 0.9, shared: { sd: 0.05, phi: 0.95 } },
  alpha: 0.05,
  node: process.version,
  loadAverage1m: Math.round(loadavg()[0]! * 10) / 10,
  cpuSeconds: Math.round((cpu.user + cpu.system) / 1e4) / 100,
  wallSeconds: Math.round((Date.now() - started) / 100) / 10,
  rows,
};
const out =
  process.env["UNTORN_BAKE_BENCH_OUT"] ??
  join(dirname(fileURLToPath(import.meta.url)), "../../../../bench/results/compare-bake-sequential.json");
writeFileSync(out, `${JSON.stringify(report, null, 2)}\n`);
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
console.log(
  "| baseline | scenario | replicates | median bake to a verdict | power at 5 min | power at 30 min | decided wrongly |",
);
console.log("|---|---|---|---|---|---|---|");
for (const r of rows)
  console.log(
    `| ${r.baselineSeconds / 60} min | ${r.scenario} | ${r.replicates} | ${r.medianDecidedSeconds === null ? "undecided" : `${r.medianDecidedSeconds / 60} min`} | ${r.scenario.startsWith("A/A") ? "–" : pct(r.powerAt5Min)} | ${r.scenario.startsWith("A/A") ? "–" : pct(r.powerAtMax)} | ${pct(r.wrongShare)} |`,
  );
console.error(`wrote ${out}`);
