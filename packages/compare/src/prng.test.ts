import { describe, expect, it } from "vitest";
import { deriveSeed } from "./derive-seed.js";
import { createRng } from "./prng.js";

describe("createRng", () => {
  it("is deterministic for a seed and differs between seeds", () => {
    const a = createRng(7);
    const b = createRng(7);
    const c = createRng(8);
    const xs = Array.from({ length: 5 }, () => a.next());
    expect(Array.from({ length: 5 }, () => b.next())).toEqual(xs);
    expect(Array.from({ length: 5 }, () => c.next())).not.toEqual(xs);
  });

  it("gives uniform draws in [0, 1)", () => {
    const rng = createRng(123);
    const n = 100_000;
    const bins = new Array<number>(10).fill(0);
    let sum = 0;
    for (let i = 0; i < n; i++) {
      const u = rng.next();
      expect(u >= 0 && u < 1).toBe(true);
      sum += u;
      bins[Math.floor(u * 10)]! += 1;
    }
    expect(sum / n).toBeCloseTo(0.5, 2);
    // Chi-square with 9 df: 99.9th percentile is 27.9.
    const chi = bins.reduce((acc, b) => acc + (b - n / 10) ** 2 / (n / 10), 0);
    expect(chi).toBeLessThan(27.9);
  });

  it("handles seed 0 and negative or fractional seeds", () => {
    const zero = createRng(0);
    const draws = new Set(Array.from({ length: 100 }, () => zero.next()));
    expect(draws.size).toBe(100);
    expect(createRng(0.9).next()).toBe(createRng(0).next());
    const u = createRng(-1).next();
    expect(u >= 0 && u < 1).toBe(true);
  });
});

describe("deriveSeed", () => {
  it("depends on the seed, on every label and on label boundaries", () => {
    const base = deriveSeed(1, "db-1", "tps");
    expect(deriveSeed(1, "db-1", "tps")).toBe(base);
    expect(deriveSeed(2, "db-1", "tps")).not.toBe(base);
    expect(deriveSeed(1, "db-2", "tps")).not.toBe(base);
    expect(deriveSeed(1, "ab", "c")).not.toBe(deriveSeed(1, "a", "bc"));
    expect(Number.isInteger(base) && base >= 0 && base < 2 ** 32).toBe(true);
  });
});
