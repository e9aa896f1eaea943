import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { ar1WeightedVariance } from "./ar1-weighted-variance.js";
import { holmAdjust } from "./holm-adjust.js";
import { lag1Autocorrelation } from "./lag1-autocorrelation.js";
import { linearTrend } from "./linear-trend.js";
import { median, medianInPlace } from "./median.js";
import { madByBuckets, medianByBuckets } from "./median-by-buckets.js";
import { randomEffectsPool } from "./random-effects-pool.js";
import { stratumWeights } from "./stratum-weights.js";
import { totalVariationDistance } from "./total-variation-distance.js";
import { welchTTest } from "./welch-t-test.js";

describe("ar1WeightedVariance", () => {
  it("matches the closed forms", () => {
    expect(ar1WeightedVariance([0, 1, 2], [1 / 3, 1 / 3, 1 / 3], 0)).toBeCloseTo(1 / 3, 15);
    expect(ar1WeightedVariance([0, 1], [0.5, 0.5], 0.5)).toBeCloseTo(0.75, 15);
    // Mean of n contiguous AR(1) values: (1/n)[1 + 2 Σₖ (1 − k/n) ρᵏ].
    const n = 50;
    const rho = 0.6;
    let expected = 1;
    for (let k = 1; k < n; k++) expected += 2 * (1 - k / n) * rho ** k;
    const pos = Array.from({ length: n }, (_, i) => i);
    expect(ar1WeightedVariance(pos, new Array(n).fill(1 / n), rho)).toBeCloseTo(expected / n, 10);
  });
  it("lets gaps weaken the correlation and clamps rho", () => {
    const contiguous = ar1WeightedVariance([0, 1], [1, 1], 0.8);
    const gapped = ar1WeightedVariance([0, 10], [1, 1], 0.8);
    expect(gapped).toBeLessThan(contiguous);
    expect(ar1WeightedVariance([0, 1], [1, 1], -0.5)).toBe(2);
    expect(ar1WeightedVariance([], [], 0.5)).toBe(0);
  });
  it("gives bit for bit the pairwise sum with corr(d) worked out per pair (its table of corr(d))", () => {
    // The definition, term by term, as the function computed it before it tabulated corr(d).
    const direct = (positions: number[], weights: number[], rho: number, decay: number) => {
      const clamp = (x: number) => Math.min(Math.max(Number.isFinite(x) ? x : 0, 0), 0.99);
      const r = clamp(rho);
      const lambda = clamp(decay);
      let total = 0;
      for (const w of weights) total += w * w;
      if (r === 0) return total;
      const maxLag = lambda > 0 ? 1 + Math.ceil(Math.log(1e-9 / r) / Math.log(lambda)) : 1;
      const logL = lambda > 0 ? Math.log(lambda) : Number.NEGATIVE_INFINITY;
      let cross = 0;
      for (let i = 0; i < positions.length; i++)
        for (let k = i + 1; k < positions.length; k++) {
          const d = positions[k]! - positions[i]!;
          if (d > maxLag) break;
          cross += weights[i]! * weights[k]! * (d === 1 ? r : r * Math.exp((d - 1) * logL));
        }
      return total + 2 * cross;
    };
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 1, max: 40 }), { minLength: 1, maxLength: 300 }),
        fc.double({ min: -0.2, max: 1, noNaN: true }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (steps, rho, decay) => {
          const positions = steps.map(
            (
              (p) => (s: number) =>
                (p += s)
            )(-1),
          );
          const weights = positions.map((_, i) => 1 / (i + 2));
          expect(ar1WeightedVariance(positions, weights, rho, decay)).toBe(
            direct(positions, weights, rho, decay),
          );
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe("lag1Autocorrelation", () => {
  it("recovers the coefficient of a long AR(1) run", () => {
    let x = 0;
    let seed = 12345;
    const uniform = () => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return (seed + 0.5) / 2 ** 32;
    };
    const residuals: number[] = [];
    for (let i = 0; i < 20_000; i++) {
      const g = Math.sqrt(-2 * Math.log(uniform())) * Math.cos(2 * Math.PI * uniform());
      x = 0.5 * x + g;
      residuals.push(x);
    }
    const m = residuals.reduce((a, b) => a + b, 0) / residuals.length;
    const run = { positions: residuals.map((_, i) => i), residuals: residuals.map((r) => r - m) };
    expect(lag1Autocorrelation([run], 1)).toBeCloseTo(0.5, 1);
  });
  it("corrects the small-sample bias upwards, ignores gaps and floors at 0", () => {
    const runs = [{ positions: [0, 1, 2, 3, 4, 5], residuals: [-2, -1, 0, 0, 1, 2] }];
    expect(lag1Autocorrelation(runs, 0)).toBeCloseTo(4 / 10, 12);
    expect(lag1Autocorrelation(runs, 1)).toBe(0.95);
    expect(lag1Autocorrelation([{ positions: [0, 1, 2, 3], residuals: [1, -1, 1, -1] }], 1)).toBe(0);
    expect(lag1Autocorrelation([{ positions: [0, 2, 4, 6], residuals: [1, 1, -1, -1] }], 1)).toBe(0);
    expect(lag1Autocorrelation([], 0)).toBe(0);
  });
});

describe("holmAdjust", () => {
  it("matches the example and keeps monotonicity", () => {
    const adj = holmAdjust([0.01, 0.04, 0.03]);
    expect(adj[0]).toBeCloseTo(0.03, 15);
    expect(adj[1]).toBeCloseTo(0.06, 15);
    expect(adj[2]).toBeCloseTo(0.06, 15);
    expect(holmAdjust([0.5, Number.NaN])).toEqual([1, 1]);
    expect(holmAdjust([])).toEqual([]);
  });
});

describe("randomEffectsPool", () => {
  it("is the inverse-variance mean for homogeneous estimates", () => {
    const r = randomEffectsPool(
      [
        { estimate: 0.1, se: 0.05 },
        { estimate: 0.1, se: 0.05 },
      ],
      0.05,
    );
    expect(r.estimate).toBeCloseTo(0.1, 15);
    expect(r.se).toBeCloseTo(0.05 / Math.SQRT2, 15);
    expect(r.tau2).toBe(0);
  });
  it("widens with heterogeneity and skips unusable entries", () => {
    const r = randomEffectsPool(
      [
        { estimate: 0.3, se: 0.02 },
        { estimate: -0.1, se: 0.02 },
        { estimate: 0.1, se: 0.02 },
        { estimate: Number.NaN, se: 0.1 },
        { estimate: 0.2, se: 0 },
      ],
      0.05,
    );
    expect(r.k).toBe(3);
    expect(r.tau2).toBeGreaterThan(0.03);
    expect(r.i2).toBeGreaterThan(0.9);
    expect(r.se).toBeGreaterThan(0.1);
    expect(r.pValue).toBeGreaterThan(0.05);
    expect(randomEffectsPool([], 0.05).pValue).toBe(1);
  });
});

describe("small helpers", () => {
  it("totalVariationDistance", () => {
    expect(totalVariationDistance([50, 50], [60, 40])).toBeCloseTo(0.1, 15);
    expect(totalVariationDistance([1, 0], [0, 1])).toBe(1);
    expect(totalVariationDistance([1, 2], [2, 4])).toBe(0);
    expect(totalVariationDistance([0, 0], [1, 1])).toBeNaN();
    expect(totalVariationDistance([-1, 2], [1, 1])).toBeNaN();
  });
  it("linearTrend matches scipy.stats.linregress", () => {
    const r = linearTrend([0, 1, 2, 3, 4, 5], [1.1, 2.9, 5.2, 6.8, 9.1, 11.0]);
    expect(r.slope).toBeCloseTo(1.9914285714285715, 12);
    expect(r.se).toBeCloseTo(0.03910564793837364, 12);
    expect(linearTrend([1, 1], [2, 3]).slope).toBeNaN();
  });
  it("median", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
    expect(median([])).toBeNaN();
    // In place: the same value as median() of a copy, whatever order it leaves.
    fc.assert(
      fc.property(
        fc.array(fc.double({ noNaN: true, noDefaultInfinity: true }), { maxLength: 2000 }),
        (xs) => {
          const a = Float64Array.from(xs);
          expect(Object.is(medianInPlace(a), median(xs))).toBe(true);
          // Reordered only: the same numbers (−0 before 0, so the sort is total).
          const order = (x: number, y: number) =>
            x - y || (Object.is(x, -0) ? -1 : 0) - (Object.is(y, -0) ? -1 : 0);
          expect([...a].sort(order)).toEqual([...xs].sort(order));
        },
      ),
    );
  });
  it("medianByBuckets and madByBuckets give the values of selection in place", () => {
    expect(medianByBuckets(Float64Array.from([3, -1, 2]))).toBe(2);
    expect(medianByBuckets(Float64Array.from([4, 1, 3, 2]))).toBe(2.5);
    expect(medianByBuckets(new Float64Array(0))).toBeNaN();
    expect(madByBuckets(Float64Array.from([1, 2, 3, 4, 100]))).toBe(1);
    expect(madByBuckets(new Float64Array(0))).toBeNaN();
    const madInPlace = (a: Float64Array) => {
      const m = medianInPlace(a);
      for (let i = 0; i < a.length; i++) a[i] = Math.abs(a[i]! - m);
      return medianInPlace(a);
    };
    // Any doubles, and few distinct values (ties, both middles in different buckets, ±0).
    const lists = fc.oneof(
      fc.array(fc.double(), { maxLength: 3000 }),
      fc.array(fc.constantFrom(-0, 0, 1, -1, 1.0625, 1e-300, -2.5, Number.POSITIVE_INFINITY), {
        maxLength: 500,
      }),
      fc.array(fc.double({ min: -1, max: 1, noNaN: true }), { minLength: 1000, maxLength: 5000 }),
    );
    fc.assert(
      fc.property(lists, (xs) => {
        const mad = madByBuckets(Float64Array.from(xs));
        expect(Object.is(mad, madInPlace(Float64Array.from(xs)))).toBe(true);
        if (xs.some(Number.isNaN)) return;
        const m = medianByBuckets(Float64Array.from(xs));
        const reference = median(xs);
        // Equal, but a zero may differ in sign (which zero a selection returns depends on its order).
        expect(m === reference || (Number.isNaN(m) && Number.isNaN(reference))).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
  it("welchTTest matches scipy.stats.ttest_ind(equal_var=False)", () => {
    const r = welchTTest([1.2, 3.4, 2.2, 5.1, 4.4], [2.1, 0.3, 1.1, 0.9]);
    expect(r.pValue).toBeCloseTo(0.036397631881692864, 10);
    expect(r.df).toBeCloseTo(5.922808914668014, 10);
    expect(welchTTest([1], [1, 2]).pValue).toBe(1);
    expect(welchTTest([2, 2], [2, 2]).pValue).toBe(1);
  });
  it("stratumWeights", () => {
    const w = stratumWeights([
      { before: { positions: [0, 1], x: [1, 1] }, after: { positions: [5, 6], x: [1, 1] } },
      { before: { positions: [2], x: [1] }, after: { positions: [7, 8], x: [1, 1] } },
      {
        before: { positions: [3, 4, 9, 10], x: [1, 1, 1, 1] },
        after: { positions: [11, 12, 13, 14], x: [1, 1, 1, 1] },
      },
    ]);
    expect(w[0]).toBeCloseTo(1 / 3, 15);
    expect(w[1]).toBe(0);
    expect(w[2]).toBeCloseTo(2 / 3, 15);
  });
});
