import { describe, expect, it } from "vitest";
import { ratioOfTotals } from "./ratio-of-totals.js";

const blockMeans = (r: { t: number[]; v: (number | null)[] }, blockSeconds: number) => {
  const by = new Map<number, number[]>();
  r.t.forEach((t, i) => {
    if (r.v[i] === null) return;
    const j = Math.floor(t / blockSeconds);
    by.set(j, [...(by.get(j) ?? []), r.v[i]!]);
  });
  return [...by.values()].map((v) => v.reduce((a, b) => a + b, 0) / v.length);
};

describe("ratioOfTotals", () => {
  it("makes each block mean the ratio of the block's totals (the doc example)", () => {
    const r = ratioOfTotals([0, 30, 60], [4, 6, 9], [0, 30, 60], [1, 4, 3], 60);
    expect(r.t).toEqual([0, 30, 60]);
    expect(r.v[0]).toBeCloseTo(1.6, 12);
    expect(r.v[1]).toBeCloseTo(2.4, 12);
    expect(r.v[2]).toBeCloseTo(3, 12);
    expect(blockMeans(r, 60)).toEqual([2, 3]);
  });

  it("is not fooled by a bursty denominator where the mean of per-sample ratios is", () => {
    // Constant cost of 100 bytes per transaction, transactions arriving in bursts.
    const t = [0, 10, 20, 30, 40, 50];
    const d = [10, 190, 10, 190, 10, 190];
    const n = d.map((x) => 100 * x);
    expect(blockMeans(ratioOfTotals(t, n, t, d, 60), 60)[0]).toBeCloseTo(100, 9);
    // What the naive series would average to: far above the true cost.
    const naive = n.map((x, i) => x / d[i]!).reduce((a, b) => a + b, 0) / n.length;
    expect(naive).toBeCloseTo(100, 9);
    const noisy = [100 * 10 + 500, 100 * 190, 100 * 10 + 500, 100 * 190, 100 * 10 + 500, 100 * 190];
    const naiveNoisy = noisy.map((x, i) => x / d[i]!).reduce((a, b) => a + b, 0) / 6;
    const totals = noisy.reduce((a, b) => a + b, 0) / d.reduce((a, b) => a + b, 0);
    expect(naiveNoisy).toBeGreaterThan(totals * 1.2);
    expect(blockMeans(ratioOfTotals(t, noisy, t, d, 60), 60)[0]).toBeCloseTo(totals, 9);
  });

  it("gives null where a side is missing, and for a block without transactions", () => {
    const r = ratioOfTotals([0, 10, 20, 60, 70], [5, null, 5, 5, 5], [0, 20, 60, 70], [1, 1, 0, 0], 60);
    // t=10: numerator null; no denominator at t=10 either. Block 1 (60, 70): denominator total 0.
    expect(r.v).toEqual([5, null, 5, null, null]);
  });

  it("refuses a block length that is not a positive number", () => {
    for (const b of [0, -60, Number.NaN])
      expect(() => ratioOfTotals([], [], [], [], b)).toThrow(/blockSeconds/);
  });
});
