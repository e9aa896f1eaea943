import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { hodgesLehmann } from "./hodges-lehmann.js";
import { kthStratifiedDifference } from "./kth-stratified-difference.js";

const sorted = (xs: number[]) => Float64Array.from(xs).sort();

describe("kthStratifiedDifference", () => {
  it("matches the examples", () => {
    expect(kthStratifiedDifference([{ after: [3, 5], before: [1, 2] }], 1)).toBe(1);
    expect(kthStratifiedDifference([{ after: [3, 5], before: [1, 2] }], 4)).toBe(4);
    expect(kthStratifiedDifference([{ after: [3, 5], before: [1, 2] }], 5)).toBeNaN();
    expect(kthStratifiedDifference([{ after: [], before: [1, 2] }], 1)).toBeNaN();
  });

  it("equals brute force on random stratified samples, ties included", () => {
    const sample = fc.array(fc.integer({ min: -50, max: 50 }), { minLength: 1, maxLength: 40 });
    fc.assert(
      fc.property(
        fc.array(fc.tuple(sample, sample), { minLength: 1, maxLength: 3 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        (strata, q) => {
          const pairs = strata.map(([a, b]) => ({ after: sorted(a), before: sorted(b) }));
          const all = strata.flatMap(([a, b]) => a.flatMap((x) => b.map((y) => x - y))).sort((x, y) => x - y);
          const k = 1 + Math.floor(q * (all.length - 1));
          expect(kthStratifiedDifference(pairs, k)).toBe(all[k - 1]);
        },
      ),
      { numRuns: 300, seed: 1 },
    );
  });

  it("is exact on large continuous samples", () => {
    const a = sorted(Array.from({ length: 900 }, (_, i) => Math.sin(i) * 10 + i / 100));
    const b = sorted(Array.from({ length: 700 }, (_, i) => Math.cos(i * 1.3) * 10));
    const all: number[] = [];
    for (const x of a) for (const y of b) all.push(x - y);
    all.sort((x, y) => x - y);
    for (const k of [1, 17, 315_000, all.length]) {
      expect(kthStratifiedDifference([{ after: a, before: b }], k)).toBe(all[k - 1]);
    }
  });
});

describe("hodgesLehmann", () => {
  it("estimates the shift, rejects a clear one and keeps the CI around it", () => {
    const r = hodgesLehmann([{ after: [11, 12, 13, 14, 15], before: [1, 2, 3, 4, 5] }], 0.05);
    expect(r.shift).toBe(10);
    expect(r.u).toBe(25);
    expect(r.pValue).toBeLessThan(0.05);
    expect(r.ciLow).toBeLessThanOrEqual(10);
    expect(r.ciHigh).toBeGreaterThanOrEqual(10);
  });

  it("agrees with scipy.stats.mannwhitneyu(method='asymptotic', use_continuity=True)", () => {
    const x = [1.83, 0.5, 1.62, 2.48, 1.68, 1.88, 1.55, 3.06, 1.3];
    const y = [0.878, 0.647, 0.598, 2.05, 1.06, 1.29, 1.06, 3.14, 1.29];
    const r = hodgesLehmann([{ after: x, before: y }], 0.05);
    expect(r.u).toBe(58); // W statistic
    expect(r.pValue).toBeCloseTo(0.13291945818531892, 12);
    expect(r.shift).toBeCloseTo(0.56, 12); // numpy.median of all pairwise differences
  });

  it("widens with autocorrelation design effects", () => {
    const after = Array.from({ length: 30 }, (_, i) => 1 + Math.sin(i));
    const before = Array.from({ length: 30 }, (_, i) => 0.6 + Math.cos(i));
    const iid = hodgesLehmann([{ after, before }], 0.05);
    const corr = hodgesLehmann([{ after, before, designEffectAfter: 3, designEffectBefore: 3 }], 0.05);
    expect(corr.pValue).toBeGreaterThan(iid.pValue);
    expect(corr.ciHigh - corr.ciLow).toBeGreaterThan(iid.ciHigh - iid.ciLow);
    expect(corr.shift).toBe(iid.shift);
  });

  it("handles degenerate input", () => {
    expect(hodgesLehmann([], 0.05).pValue).toBe(1);
    expect(hodgesLehmann([{ after: [2, 2], before: [2, 2, 2] }], 0.05)).toMatchObject({
      shift: 0,
      ciLow: 0,
      ciHigh: 0,
      pValue: 1,
    });
    const tiny = hodgesLehmann([{ after: [2], before: [1] }], 0.05);
    expect(tiny.shift).toBe(1);
    expect(tiny.ciLow).toBe(-Infinity);
  });
});
