// compare on worker threads against compare on one: the same result bit for bit, the treated samples
// moved rather than copied, the same error. The workers run the built worker (npm run build first).
import { compare } from "@untorn/compare/compare";
import { ComparisonInput, type ComparisonInputJson } from "@untorn/compare/input";
import { createRng } from "@untorn/compare/prng";
import { simulateSeries } from "@untorn/compare/simulate";
import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { compareParallel, defaultThreads, PARALLEL_THRESHOLD_SAMPLES, sampleCount } from "./parallel.js";

const T0 = 1_767_225_600;

function fleet(seed: number, instances: number, controls: number, hours = 3): ComparisonInputJson {
  const rng = createRng(seed);
  const spec = (start: number, level: number) => ({
    start,
    seconds: hours * 3600,
    step: 15,
    level,
    noise: { sd: 0.1, phi: 0.8 },
    gaps: { count: 1, seconds: 300 },
    outliers: { rate: 0.01, scale: 0.5 },
  });
  const metrics = ["tps", "lat", "ins", "upd"] as const;
  return {
    seed,
    metrics: [
      { id: "tps", kind: "throughput" },
      { id: "lat", kind: "latency" },
      { id: "ins", kind: "workload" },
      { id: "upd", kind: "workload", counter: false },
    ],
    instances: Array.from({ length: instances }, (_, i) => ({
      id: `db-${i}`,
      role: i < instances - controls ? ("treated" as const) : ("control" as const),
      series: Object.fromEntries(
        metrics.map((m) => [
          m,
          {
            before: simulateSeries(spec(T0, 100 + i), rng),
            after: simulateSeries(spec(T0 + 86_400, i < instances - controls ? 112 : 100 + i), rng),
          },
        ]),
      ),
    })),
    options: { method: seed % 2 === 0 ? "auto" : "block-bootstrap", bootstrapResamples: 200 },
  };
}

/** The result as text in which every number keeps all its bits (NaN and −0 too). */
const exact = (x: unknown) =>
  JSON.stringify(x, (_, v) => (typeof v === "number" ? `n:${Object.is(v, -0) ? "-0" : v}` : v));

describe("compareParallel", () => {
  it("gives compare's result bit for bit, whatever the fleet, controls and thread count", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 1, max: 1000 }),
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 2, max: 4 }),
        async (seed, n, controls, threads) => {
          const json = fleet(seed, n + controls, controls, 2);
          const one = compare(ComparisonInput.parse(json));
          const many = await compareParallel(ComparisonInput.parse(json), { threads });
          expect(exact(many)).toBe(exact(one));
        },
      ),
      { numRuns: 8 },
    );
  });

  it("moves each treated instance's samples to its worker, and copies the controls'", async () => {
    const input = ComparisonInput.parse(fleet(5, 4, 1));
    const treated = input.instances[0]!.series["tps"]!.before.v;
    const control = input.instances[3]!.series["tps"]!.before.v;
    const length = control.length;
    expect(treated.length).toBeGreaterThan(0);
    await compareParallel(input, { threads: 2 });
    expect(treated.length).toBe(0);
    expect(treated.buffer.byteLength).toBe(0);
    expect(control.length).toBe(length);
  });

  it("throws the error compare throws, from the first instance in input order that throws it", async () => {
    const broken = () => {
      const input = ComparisonInput.parse(fleet(9, 4, 1));
      // Past validation, a window compare cannot read (as a caller skipping the schema could pass).
      for (const i of [1, 2]) (input.instances[i]!.series["lat"] as { before: unknown }).before = null;
      return input;
    };
    let single: Error | undefined;
    try {
      compare(broken());
    } catch (err) {
      single = err as Error;
    }
    expect(single).toBeInstanceOf(TypeError);
    await expect(compareParallel(broken(), { threads: 2 })).rejects.toThrow(single!.message);
    await expect(compareParallel(broken(), { threads: 2 })).rejects.toBeInstanceOf(TypeError);
  });

  it("stays on one thread below the threshold, whatever the load", () => {
    const input = ComparisonInput.parse(fleet(3, 2, 0));
    expect(sampleCount(input)).toBeLessThan(PARALLEL_THRESHOLD_SAMPLES);
    expect(defaultThreads(input)).toBe(1);
    expect(defaultThreads(input, { cores: 2, load: 0 })).toBe(1);
  });

  it("uses the idle cores above the threshold", () => {
    const input = ComparisonInput.parse(fleet(3, 12, 0, 24 * 3));
    expect(sampleCount(input)).toBeGreaterThanOrEqual(PARALLEL_THRESHOLD_SAMPLES);
    expect(defaultThreads(input, { cores: 2, load: 0.2 })).toBe(2);
    expect(defaultThreads(input, { cores: 8, load: 5.2 })).toBe(3);
    expect(defaultThreads(input, { cores: 2, load: 11 })).toBe(1);
  });
});
