// Calibration on simulated series with known truth (AR(1) noise, daily seasonality, stalls, spikes,
// gaps, counter resets). Seeds are fixed, so the rates below are exact and the test is deterministic.
import { describe, expect, it } from "vitest";
import { counterAA, didAA, latencyAA, throughputAA } from "../test/scenarios.js";
import { compare } from "./compare.js";
import type { ComparisonInput } from "./input.js";
import type { Verdict } from "./result.js";

const PAIRS = 200;

function verdicts(make: (seed: number) => ComparisonInput): Verdict[] {
  const out: Verdict[] = [];
  for (let seed = 1; seed <= PAIRS; seed++) {
    const res = compare(make(seed));
    out.push(res.results.find((r) => r.role === "treated")!.verdict ?? "no_data");
  }
  return out;
}

const falsePositives = (v: Verdict[]) => v.filter((x) => x === "improved" || x === "regressed").length;

describe("A/A: no change, so every improved/regressed verdict is a false positive", () => {
  const scenarios = {
    "throughput, 1 h matched hours, block-t": throughputAA,
    "latency with spikes, 1 h, Hodges-Lehmann": latencyAA,
    "difference in differences under a fleet-wide load shift": didAA,
    "counter with gaps and a restart, 6 h": counterAA,
  };
  const rates: Record<string, number> = {};
  it.each(Object.entries(scenarios))("%s", (_, make) => {
    const v = verdicts(make);
    const fp = falsePositives(v);
    rates[_] = fp;
    // alpha = 0.05 per comparison, held by every scenario (the seeds are fixed: no binomial slack needed).
    expect(fp / PAIRS).toBeLessThanOrEqual(0.05);
    // Sanity: the data is not so short that every answer is "no data".
    expect(v.filter((x) => x === "no_data").length).toBe(0);
  });

  it("stays within 5% over all 800 pairs, and is not calibrated by never rejecting", () => {
    const total = Object.values(rates).reduce((a, b) => a + b, 0);
    expect(Object.keys(rates)).toHaveLength(4);
    expect(total / (4 * PAIRS)).toBeLessThanOrEqual(0.05);
    // A 1-hour A/A pair is "inconclusive", not "unchanged": its interval is wider than the ±2% band.
    // What keeps that honest is the other side: intervals that were too wide would never exclude 1,
    // so a calibrated test must reject near its nominal 5%, not at 0%.
    expect(total / (4 * PAIRS)).toBeGreaterThanOrEqual(0.02);
  });
});

describe("power", () => {
  it("detects +20% throughput over 1-hour windows at realistic noise in at least 90% of pairs", () => {
    const v = verdicts((seed) => throughputAA(seed, 1.2));
    expect(v.filter((x) => x === "improved").length / PAIRS).toBeGreaterThanOrEqual(0.9);
    expect(v.filter((x) => x === "regressed").length).toBe(0);
  });
});
