import { describe, expect, it } from "vitest";
import { createRng } from "./prng.js";
import { simulateSeries } from "./simulate.js";

describe("simulateSeries", () => {
  const base = { start: 1_767_225_600, seconds: 86_400, step: 15, level: 100 };

  it("keeps the mean level under multiplicative AR(1) noise", () => {
    const s = simulateSeries({ ...base, noise: { sd: 0.2, phi: 0.9 } }, createRng(1));
    const v = s.v as number[];
    expect(v.length).toBe(5760);
    const mean = v.reduce((a, b) => a + b, 0) / v.length;
    expect(mean).toBeGreaterThan(97);
    expect(mean).toBeLessThan(103);
  });

  it("applies effect, daily seasonality, gaps and outliers", () => {
    const s = simulateSeries(
      {
        ...base,
        effect: 2,
        seasonality: { amplitude: 0.5, peakHour: 12 },
        gaps: { count: 1, seconds: 3600 },
        outliers: { rate: 0.01, scale: 10 },
      },
      createRng(2),
    );
    const v = s.v as number[];
    expect(v.length).toBe(5760 - 240);
    const atHour = (h: number) => v[s.t.findIndex((t) => t >= base.start + h * 3600)]!;
    expect(atHour(12)).toBeGreaterThan(atHour(0));
    expect(v.filter((x) => x > 1000).length).toBeGreaterThan(20);
  });

  it("emits a counter that only falls at a reset", () => {
    const reset = base.start + 2667 * 15;
    const s = simulateSeries({ ...base, counter: true, resets: [reset] }, createRng(3));
    const v = s.v as number[];
    const drops = v.flatMap((x, i) => (i > 0 && x < v[i - 1]! ? [s.t[i]] : []));
    expect(drops).toEqual([reset]);
  });

  it("is deterministic for a seed", () => {
    expect(simulateSeries({ ...base, noise: { sd: 0.1, phi: 0.5 } }, createRng(4))).toEqual(
      simulateSeries({ ...base, noise: { sd: 0.1, phi: 0.5 } }, createRng(4)),
    );
  });
});
