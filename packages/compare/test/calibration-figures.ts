// Prints the A/A false-positive and power figures of compare.calibration.test.ts as JSON, for
// BENCHMARKS.md. Run: npx tsx --conditions=@untorn/source test/calibration-figures.ts
import { compare } from "../src/compare.js";
import type { ComparisonInput } from "../src/input.js";
import { createRng } from "../src/prng.js";
import { at, buildInput, fleetLoad, HOUR } from "./scenarios.js";

const PAIRS = 200;

const throughputAA = (seed: number, effect = 1) =>
  buildInput(
    seed,
    [{ id: "tps", kind: "throughput" }],
    [
      {
        id: "db",
        role: "treated",
        series: { tps: { before: at(0, 10, HOUR), after: { ...at(1, 10, HOUR), effect } } },
      },
    ],
  );
const latencyAA = (seed: number) => {
  const spiky = (day: number) => ({ ...at(day, 10, HOUR, 0.004), outliers: { rate: 0.01, scale: 5 } });
  return buildInput(
    seed,
    [{ id: "commit_latency", kind: "latency" }],
    [{ id: "db", role: "treated", series: { commit_latency: { before: spiky(0), after: spiky(1) } } }],
  );
};
const didAA = (seed: number) => {
  const rng = createRng(10_000 + seed);
  const shift = 0.6 + 0.8 * rng.next();
  const before = fleetLoad(HOUR, 15, rng);
  const after = fleetLoad(HOUR, 15, rng, shift);
  const w = (hour: number, shared: Float64Array) => ({ ...at(0, hour, HOUR), shared });
  return buildInput(
    seed,
    [{ id: "tps", kind: "throughput" }],
    [
      { id: "canary", role: "treated", series: { tps: { before: w(9, before), after: w(14, after) } } },
      { id: "sibling", role: "control", series: { tps: { before: w(9, before), after: w(14, after) } } },
    ],
  );
};
const counterAA = (seed: number) => {
  const rng = createRng(20_000 + seed);
  const after = at(1, 6, 6 * HOUR, 40);
  const restart = after.start + Math.floor(rng.next() * 5 * HOUR);
  const common = { counter: true, gaps: { count: 2, seconds: 600 } };
  return buildInput(
    seed,
    [{ id: "write_ops", kind: "efficiency", counter: true }],
    [
      {
        id: "db",
        role: "treated",
        series: {
          write_ops: {
            before: { ...at(0, 6, 6 * HOUR, 40), ...common },
            after: { ...after, ...common, resets: [restart] },
          },
        },
      },
    ],
  );
};

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
