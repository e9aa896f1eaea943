// Prints the A/A false-positive and power figures of compare.calibration.test.ts as JSON, for
// BENCHMARKS.md. Run: npx tsx --conditions=@untorn/source test/calibration-figures.ts
import { compare } from "../src/compare.js";
import type { ComparisonInput } from "../src/input.js";
import { counterAA, didAA, latencyAA, throughputAA } from "./scenarios.js";

const PAIRS = 200;

function tally(make: (seed: number) => ComparisonInput) {
  const counts: Record<string, number> = {};
  for (let seed = 1; seed <= PAIRS; seed++) {
    const v = compare(make(seed)).results.find((r) => r.role === "treated")?.verdict ?? "missing";
    counts[v] = (counts[v] ?? 0) + 1;
  }
  return counts;
}

const out = {
  pairs: PAIRS,
  aa: {
    throughput: tally(throughputAA),
    latency: tally(latencyAA),
    did: tally(didAA),
    counter: tally(counterAA),
  },
  power20: tally((s) => throughputAA(s, 1.2)),
};
console.log(JSON.stringify(out, null, 2));
