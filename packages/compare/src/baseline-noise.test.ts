import { describe, expect, it } from "vitest";
import { compare } from "./compare.js";
import { ComparisonInput } from "./input.js";
import { createRng } from "./prng.js";
import { sharedFactor, simulateSeries } from "./simulate.js";

const changeAt = 1_800_000_000;

/**
 * A canary and its control at 15 s, each with its own AR(1) noise on the log scale (lag-1 0.9 at the
 * scrape step) under a shared fleet factor: `before` seconds before the change, `after` after it, the
 * canary's level ×`effect` at the change. Plain compare: no options.sequential.
 */
function input(o: {
  effect: number;
  before: number;
  after: number;
  seed: number;
  sd?: number;
  control?: boolean;
}) {
  const rng = createRng(o.seed);
  const n = (o.before + o.after) / 15;
  const shared = sharedFactor(n, 0.05, 0.95, rng);
  const spec = {
    start: changeAt - o.before,
    seconds: n * 15,
    step: 15,
    level: 140,
    noise: { sd: o.sd ?? 0.07, phi: 0.9 },
    shared,
  };
  const split = (w: { t: number[]; v: (number | null)[] }, scale: number) => ({
    before: { t: w.t.filter((t) => t < changeAt), v: w.v.filter((_, i) => w.t[i]! < changeAt) },
    after: {
      t: w.t.filter((t) => t >= changeAt),
      v: w.v.filter((_, i) => w.t[i]! >= changeAt).map((v) => (v as number) * scale),
    },
  });
  const x = simulateSeries(spec, rng);
  const c = simulateSeries(spec, rng);
  return ComparisonInput.parse({
    seed: o.seed,
    metrics: [{ id: "bytes_per_trx", kind: "efficiency" }],
    instances: [
      { id: "canary", role: "treated", series: { bytes_per_trx: split(x, o.effect) } },
      ...(o.control === false
        ? []
        : [{ id: "control", role: "control" as const, series: { bytes_per_trx: split(c, 1) } }]),
    ],
  });
}

const row = (r: ReturnType<typeof compare>) => r.results.find((x) => x.instance === "canary")!;
const decided = (r: ReturnType<typeof compare>) => {
  const x = row(r);
  return x.ciLow !== null && x.ciHigh !== null && (x.ciLow > 1 || x.ciHigh < 1);
};

describe("plain compare of a short window beside a long one: counts derived from the autocorrelation", () => {
  it("decides a clear 5-minute case (140 → 80 after an hour) and keeps the control", () => {
    const r = compare(input({ effect: 80 / 140, before: 3600, after: 300, seed: 1 }));
    const x = row(r);
    expect(x.method).toBe("baseline-noise");
    expect(x.verdict).toBe("improved");
    expect(x.design).toBe("difference-in-differences");
    expect(x.controls).toEqual(["control"]);
    expect(x.flags.map((f) => f.code)).not.toContain("control_missing");
    expect(x.flags.find((f) => f.code === "baseline_noise")?.message).toMatch(
      /^60 before \/ 5 after usable 60 s blocks; at least 6 needed in each for a block test: judged against the before window's own noise instead: 240 samples there \([\d.]+ effective at lag-1 autocorrelation 0\.\d\d\), 20 in the after window/,
    );
    expect(x.ratio!).toBeGreaterThan(0.45);
    expect(x.ratio!).toBeLessThan(0.7);
    expect(r.overall.verdict).toBe("improved");
    expect(JSON.stringify(r)).not.toMatch(/e\+\d|NaN|Infinity/);
  });

  it("decides the clear case in at least 90% of 40 seeds, at 4% and at 10% noise", () => {
    for (const sd of [0.04, 0.1]) {
      let n = 0;
      for (let seed = 100; seed < 140; seed++)
        if (row(compare(input({ effect: 0.55, before: 3600, after: 300, seed, sd }))).verdict === "improved")
          n++;
      expect(n / 40).toBeGreaterThanOrEqual(0.9);
    }
  }, 120_000);

  it("holds the A/A false positives: at most 8% of 300 seeds decided (alpha 5%, two binomial SEs 2.5 points)", () => {
    let wrong = 0;
    for (let seed = 1000; seed < 1300; seed++)
      if (decided(compare(input({ effect: 1, before: 3600, after: 300, seed, sd: 0.07 })))) wrong++;
    expect(wrong / 300).toBeLessThanOrEqual(0.08);
  }, 120_000);

  it("a window too short on both sides is still refused, with the reason", () => {
    const x = row(compare(input({ effect: 0.55, before: 300, after: 300, seed: 3 })));
    expect(x.verdict).toBe("inconclusive");
    expect(x.method).toBe("none");
    expect(x.flags.find((f) => f.code === "too_little_data")?.message).toMatch(/needed in each$/);
  });

  it("a long after window beside a short before window: the after window's noise, the effect the same way round", () => {
    const x = row(compare(input({ effect: 0.55, before: 300, after: 3600, seed: 4, control: false })));
    expect(x.method).toBe("baseline-noise");
    expect(x.design).toBe("before-after");
    expect(x.ratio!).toBeLessThan(0.75);
    expect(x.flags.find((f) => f.code === "baseline_noise")?.message).toMatch(
      /judged against the after window's own noise/,
    );
  });
});
