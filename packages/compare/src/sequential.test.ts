import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bakeScenarios, runBakeScenario } from "./bake-simulation.js";
import { createRng } from "./prng.js";
import {
  bakeSecondsNeeded,
  baselineNoiseOf,
  contiguousDesignEffect,
  pocockCritical,
  sequentialLook,
} from "./sequential.js";
import { simulateSeries } from "./simulate.js";
import { normalQuantile } from "./stats/normal-quantile.js";

const schedule = { lookEverySeconds: 60, maxSeconds: 1800 };

describe("sequential bake judgement", () => {
  it("holds the A/A false positives and decides −45% within 5 minutes on seeded bakes (1 h baseline)", () => {
    const scenarios = bakeScenarios({ baselineSeconds: 3600, schedule });
    const pick = (name: string) => scenarios.find((s) => s.name === name)!;
    const aa = runBakeScenario(pick("A/A, noise 10%"), 80, 7);
    const big = runBakeScenario(pick("bytes/trx −45%, noise 10%"), 60, 7);
    // Exact for these seeds; the bench runs 400 replicates (BENCHMARKS.md).
    expect(aa.decidedShare).toBeLessThanOrEqual(0.05);
    expect(big.powerAt5Min).toBeGreaterThanOrEqual(0.9);
    expect(big.wrongShare).toBe(0);
  }, 120_000);

  it("keeps the control when it shares the samples, drops it with the reason when not", () => {
    const t = Array.from({ length: 240 }, (_, i) => 1_800_000_000 + i * 15);
    const ta = Array.from({ length: 20 }, (_, i) => 1_800_003_600 + i * 15);
    const rng = createRng(3);
    const noisy = (n: number) =>
      simulateSeries({ start: 0, seconds: n * 15, step: 15, level: 100, noise: { sd: 0.05, phi: 0.5 } }, rng)
        .v as number[];
    const series = { x: noisy(240), xa: noisy(20), c: noisy(240), ca: noisy(20) };
    const wave = (n: number, k: number) =>
      (k === 3 ? (n === 240 ? series.x : series.xa) : n === 240 ? series.c : series.ca).slice(0, n);
    const look = (controlTimes: number[]) =>
      sequentialLook({
        treated: { before: { t, v: wave(240, 3) }, after: { t: ta, v: wave(20, 3).map((v) => v * 0.6) } },
        controls: [
          {
            id: "c",
            before: { t: controlTimes, v: wave(controlTimes.length, 5) },
            after: { t: ta, v: wave(20, 5) },
          },
        ],
        step: 15,
        alpha: 0.05,
        schedule,
      });
    const kept = look(t);
    expect(kept.ok && kept.estimate.controls).toEqual(["c"]);
    // Scraped 7 s apart: no shared timestamps, so no paired baseline.
    const dropped = look(t.map((x) => x + 7));
    expect(dropped.ok).toBe(true);
    if (!dropped.ok) return;
    expect(dropped.estimate.controls).toEqual([]);
    expect(dropped.controlsDropped).toMatch(/judged before\/after without them/);
    expect(dropped.estimate.logRatio).toBeLessThan(Math.log(0.7));
  });

  it("refuses a baseline too short for its own autocorrelation, saying how many effective samples it has", () => {
    const t = Array.from({ length: 40 }, (_, i) => i * 15);
    // A slow ramp: lag-1 near 1, so 40 samples are about one effective sample.
    const v = t.map((_, i) => 100 + i);
    const r = sequentialLook({
      treated: { before: { t, v }, after: { t: [600, 615, 630, 645], v: [50, 50, 50, 50] } },
      controls: [],
      step: 15,
      alpha: 0.05,
      schedule,
    });
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.reason).toMatch(/effective samples/);
  });

  it("never returns a non-finite estimate or interval (fast-check)", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 1e-300, max: 1e300, noNaN: true }), { minLength: 8, maxLength: 80 }),
        fc.array(fc.double({ min: 1e-300, max: 1e300, noNaN: true }), { minLength: 0, maxLength: 30 }),
        (before, after) => {
          const r = sequentialLook({
            treated: {
              before: { t: before.map((_, i) => i * 15), v: before },
              after: { t: after.map((_, i) => 100_000 + i * 15), v: after },
            },
            controls: [],
            step: 15,
            alpha: 0.05,
            schedule,
          });
          if (!r.ok) return r.reason.length > 0;
          const e = r.estimate;
          return [e.logRatio, e.ciLow, e.ciHigh, e.logSe, e.critical, e.pValue].every(Number.isFinite);
        },
      ),
      { numRuns: 100 },
    );
  });

  it("the critical value lies between one look's z and Bonferroni over the looks", () => {
    const base = { alpha: 0.05, phi: 0.9, baselineKappaOverN: 18 / 240, samplesPerLook: 4, df: 12 };
    const one = pocockCritical({ ...base, looks: 1 });
    const many = pocockCritical({ ...base, looks: 30 });
    expect(one).toBeGreaterThanOrEqual(normalQuantile(0.975));
    expect(many).toBeGreaterThan(one);
    expect(many).toBeLessThan(normalQuantile(1 - 0.025 / 30) * 1.3);
  });

  it("says how long a bake needs, shorter for a larger effect, null past the maximum", () => {
    const base = { sigma: 0.14, phi: 0.9, baselineSamples: 240, step: 15, alpha: 0.05, schedule };
    const big = bakeSecondsNeeded({ ...base, effect: 0.55 });
    const small = bakeSecondsNeeded({ ...base, effect: 0.8 });
    const tiny = bakeSecondsNeeded({ ...base, effect: 0.99 });
    expect(big.seconds).not.toBeNull();
    expect(small.seconds === null || small.seconds > big.seconds!).toBe(true);
    expect(tiny.seconds).toBeNull();
    expect(tiny.powerAtMax).toBeLessThan(0.9);
  });

  it("design effect of consecutive AR(1) samples: 1 when independent, (1+φ)/(1−φ) in the limit", () => {
    expect(contiguousDesignEffect(100, 0)).toBe(1);
    expect(contiguousDesignEffect(1e6, 0.9)).toBeCloseTo(19, 3);
  });
});

describe("baselineNoiseOf (the noise a power calculation reads)", () => {
  const rng = createRng(21);
  const t = Array.from({ length: 240 }, (_, i) => 1_800_000_000 + i * 15);
  const series = (sd: number, phi: number) =>
    simulateSeries({ start: 1_800_000_000, seconds: 3600, step: 15, level: 100, noise: { sd, phi } }, rng)
      .v as number[];

  it("reads φ and σ close to the simulated ones, with the control kept, and feeds bakeSecondsNeeded", () => {
    const n = baselineNoiseOf({
      treated: { t, v: series(0.1, 0.9) },
      controls: [{ id: "c", before: { t, v: series(0.1, 0.9) } }],
      step: 15,
    });
    expect(n.ok).toBe(true);
    if (!n.ok) return;
    expect(n.controls).toEqual(["c"]);
    expect(n.phi).toBeGreaterThan(0.75);
    expect(n.phi).toBeLessThan(0.99);
    // The contrast of two independent 10% series: about 14%.
    expect(n.sigma).toBeGreaterThan(0.08);
    expect(n.sigma).toBeLessThan(0.25);
    const need = bakeSecondsNeeded({
      sigma: n.sigma,
      phi: n.phi,
      baselineSamples: n.samples,
      step: 15,
      effect: 0.55,
      alpha: 0.05,
      schedule,
    });
    expect(need.seconds).not.toBeNull();
  });

  it("refuses a baseline too short or constant, with the reason in words", () => {
    const short = baselineNoiseOf({
      treated: { t: t.slice(0, 6), v: series(0.1, 0.9).slice(0, 6) },
      controls: [],
      step: 15,
    });
    expect(short).toEqual({
      ok: false,
      reason: "6 usable baseline samples; at least 8 needed to read its noise",
      samples: 6,
    });
    const flat = baselineNoiseOf({ treated: { t, v: t.map(() => 5) }, controls: [], step: 15 });
    expect(flat.ok).toBe(false);
    if (!flat.ok) expect(flat.reason).toMatch(/no noise|effective samples/);
  });
});
