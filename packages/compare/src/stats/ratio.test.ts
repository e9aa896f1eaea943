import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRng } from "../prng.js";
import { gaussian } from "../simulate.js";
import { blockBootstrapRatio } from "./block-bootstrap-ratio.js";
import { blockDependence } from "./block-dependence.js";
import type { RatioStratum } from "./ratio-cell.js";
import { ratioOfMeansT } from "./ratio-of-means-t.js";
import { robustLag1Autocorrelation } from "./robust-lag1-autocorrelation.js";
import { selectKth } from "./select-kth.js";

const cell = (start: number, x: number[], c?: number[]) => ({
  positions: x.map((_, i) => start + i),
  x,
  ...(c ? { c } : {}),
});

function iidStrata(seed: number, n: number, effect: number): RatioStratum[] {
  const rng = createRng(seed);
  const draw = (scale: number) => Array.from({ length: n }, () => scale * (100 + 10 * gaussian(rng)));
  return [{ before: cell(0, draw(1)), after: cell(10_000, draw(effect)) }];
}

describe("ratioOfMeansT", () => {
  it("gives the ratio of means and a sensible interval", () => {
    const r = ratioOfMeansT(
      [{ before: cell(0, [9, 11, 10, 10]), after: cell(4, [12, 11, 13, 12]) }],
      0.05,
      0,
    );
    expect(Math.exp(r.logRatio)).toBeCloseTo(1.2, 12);
    expect(r.ciLow).toBeLessThan(r.logRatio);
    expect(r.ciHigh).toBeGreaterThan(r.logRatio);
    expect(r.pValue).toBeLessThan(0.05);
  });

  it("matches the delta-method standard error for independent blocks", () => {
    const r = ratioOfMeansT(iidStrata(3, 400, 1), 0.05, 0);
    // Var(log X̄) ≈ CV²/n per window: (0.1² / 400) · 2.
    expect(r.se).toBeCloseTo(Math.sqrt((2 * 0.01) / 400), 3);
    expect(r.df).toBeGreaterThan(700);
  });

  it("widens with autocorrelation", () => {
    const strata = iidStrata(4, 100, 1);
    const iid = ratioOfMeansT(strata, 0.05, 0);
    const ar = ratioOfMeansT(strata, 0.05, 0.5);
    expect(ar.se / iid.se).toBeGreaterThan(1.6);
    expect(ar.df).toBeLessThan(iid.df);
    expect(ar.logRatio).toBe(iid.logRatio);
  });

  it("is the ratio of ratios against a control", () => {
    const r = ratioOfMeansT(
      [
        {
          before: cell(0, [10, 10, 10, 10], [5, 5, 5, 5]),
          after: cell(4, [6, 6, 6, 6], [2.5, 2.5, 2.5, 2.5]),
        },
      ],
      0.05,
      0,
    );
    expect(Math.exp(r.logRatio)).toBeCloseTo(1.2, 12); // (6/2.5)/(10/5)
    expect(r.se).toBe(0);
    expect(r.pValue).toBe(0);
  });

  it("standardises strata with the same weights in both windows", () => {
    // Night blocks at 1, day blocks at 10; the after window has more night blocks but no change.
    const strata: RatioStratum[] = [
      { before: cell(0, [1, 1, 1]), after: cell(100, [1, 1, 1, 1, 1, 1, 1, 1, 1]) },
      { before: cell(10, [10, 10, 10, 10, 10, 10, 10, 10, 10]), after: cell(110, [10, 10, 10]) },
    ];
    const r = ratioOfMeansT(strata, 0.05, 0);
    expect(Math.exp(r.logRatio)).toBeCloseTo(1, 12);
  });

  it("returns NaN with a zero baseline or no usable stratum", () => {
    expect(
      ratioOfMeansT([{ before: cell(0, [0, 0, 0]), after: cell(3, [1, 2, 3]) }], 0.05, 0).logRatio,
    ).toBeNaN();
    expect(ratioOfMeansT([{ before: cell(0, [1]), after: cell(3, [1, 2, 3]) }], 0.05, 0).pValue).toBe(1);
  });
});

describe("blockBootstrapRatio", () => {
  it("agrees with the analytic interval on a large independent sample", () => {
    const strata = iidStrata(5, 500, 1.05);
    const t = ratioOfMeansT(strata, 0.05, 0);
    const b = blockBootstrapRatio(strata, { alpha: 0.05, resamples: 2000, runLength: 1, rng: createRng(1) });
    expect(b.logRatio).toBe(t.logRatio);
    expect(b.se / t.se).toBeGreaterThan(0.9);
    expect(b.se / t.se).toBeLessThan(1.1);
    expect(b.pValue).toBeLessThan(0.01);
  });

  it("is deterministic for a seed and varies with it", () => {
    const strata = iidStrata(6, 60, 1);
    const run = (seed: number) =>
      blockBootstrapRatio(strata, { alpha: 0.05, resamples: 500, runLength: 3, rng: createRng(seed) });
    expect(run(1)).toEqual(run(1));
    expect(run(1).ciLow).not.toBe(run(2).ciLow);
  });

  it("keeps treated and control blocks paired", () => {
    // Common swings cancel in x/c: the interval is a point.
    const common = [1, 3, 2, 5, 4, 2, 6, 1, 3, 2];
    const strata: RatioStratum[] = [
      {
        before: cell(
          0,
          common.map((v) => 2 * v),
          common,
        ),
        after: cell(
          20,
          common.map((v) => 3 * v),
          common,
        ),
      },
    ];
    const r = blockBootstrapRatio(strata, { alpha: 0.05, resamples: 200, runLength: 2, rng: createRng(1) });
    expect(Math.exp(r.ciLow)).toBeCloseTo(1.5, 12);
    expect(Math.exp(r.ciHigh)).toBeCloseTo(1.5, 12);
  });
});

describe("blockDependence", () => {
  it("matches the aggregation formulas", () => {
    const d = blockDependence(0.9, 20);
    expect(d.lag1).toBeCloseTo(0.313, 3);
    expect(d.decay).toBeCloseTo(0.9 ** 20, 12);
    expect(blockDependence(0.5, 1)).toEqual({ lag1: 0.5, decay: 0.5 });
    expect(blockDependence(-0.2, 20)).toEqual({ lag1: 0, decay: 0 });
  });

  it("agrees with the empirical lag-1 correlation of simulated block means", () => {
    const rng = createRng(9);
    const phi = 0.8;
    const m = 8;
    let e = 0;
    const means: number[] = [];
    for (let b = 0; b < 20_000; b++) {
      let s = 0;
      for (let i = 0; i < m; i++) {
        e = phi * e + Math.sqrt(1 - phi * phi) * gaussian(rng);
        s += e;
      }
      means.push(s / m);
    }
    let num = 0;
    let den = 0;
    for (let i = 0; i < means.length; i++) {
      den += means[i]! ** 2;
      if (i > 0) num += means[i]! * means[i - 1]!;
    }
    expect(num / den).toBeCloseTo(blockDependence(phi, m).lag1, 1);
  });
});

describe("robustLag1Autocorrelation", () => {
  it("is not dragged to 0 by isolated outliers", () => {
    const rng = createRng(11);
    const x: number[] = [];
    let e = 0;
    for (let i = 0; i < 5000; i++) {
      e = 0.9 * e + Math.sqrt(1 - 0.81) * gaussian(rng);
      x.push(i % 100 === 0 ? e - 20 : e);
    }
    const robust = robustLag1Autocorrelation(x.slice(0, -1), x.slice(1));
    expect(robust).toBeGreaterThan(0.85);
    expect(robust).toBeLessThan(0.95);
    expect(robustLag1Autocorrelation([1, 2], [2, 3])).toBeNaN();
  });
});

describe("selectKth", () => {
  it("equals the sorted order statistic", () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, min: -1e6, max: 1e6 }), { minLength: 1, maxLength: 3000 }),
        fc.nat(),
        (xs, k) => {
          const kk = k % xs.length;
          const sorted = [...xs].sort((a, b) => a - b);
          expect(selectKth(Float64Array.from(xs), kk)).toBe(sorted[kk]);
        },
      ),
      { numRuns: 200, seed: 2 },
    );
    expect(selectKth(new Float64Array(0), 0)).toBeNaN();
  });
});
