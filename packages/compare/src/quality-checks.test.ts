import { describe, expect, it } from "vitest";
import { createRng } from "./prng.js";
import { qualityChecks } from "./quality-checks.js";
import { gaussian } from "./simulate.js";
import type { RatioStratum } from "./stats/ratio-cell.js";

const rng = createRng(3);
const noisy = (n: number, sd: number, level = 100) =>
  Array.from({ length: n }, () => level * Math.exp(sd * gaussian(rng)));
const cell = (start: number, x: number[], c?: number[]) => ({
  positions: x.map((_, i) => start + i),
  x,
  ...(c ? { c } : {}),
});
const codes = (strata: RatioStratum[], rho = 0) => qualityChecks(strata, rho, 0.02, 300).map((f) => f.code);

describe("qualityChecks", () => {
  it("is quiet on well-behaved data", () => {
    expect(codes([{ before: cell(0, noisy(60, 0.05)), after: cell(100, noisy(60, 0.05)) }])).toEqual([]);
  });

  it("reports far-out blocks without removing them", () => {
    const after = noisy(60, 0.05);
    after[10] = 5; // a stalled block
    expect(codes([{ before: cell(0, noisy(60, 0.05)), after: cell(100, after) }])).toContain("outliers");
  });

  it("reports a rise in block-to-block variability that a shift test would miss", () => {
    expect(codes([{ before: cell(0, noisy(80, 0.03)), after: cell(100, noisy(80, 0.15)) }])).toContain(
      "dispersion_increased",
    );
    expect(codes([{ before: cell(0, noisy(80, 0.15)), after: cell(100, noisy(80, 0.03)) }])).toContain(
      "dispersion_decreased",
    );
  });

  it("warns when treated and control drift apart before the change", () => {
    const c = noisy(48, 0.01);
    const drifting = c.map((v, i) => v * (1 + 0.004 * i));
    const parallel = c.map((v) => v * 1.5);
    const strata = (x: number[]): RatioStratum[] => [
      { before: cell(0, x, c), after: cell(100, noisy(48, 0.01), noisy(48, 0.01)) },
    ];
    expect(codes(strata(drifting))).toContain("control_divergence");
    expect(codes(strata(parallel))).not.toContain("control_divergence");
  });

  it("notes strong autocorrelation", () => {
    expect(codes([{ before: cell(0, noisy(30, 0.05)), after: cell(100, noisy(30, 0.05)) }], 0.93)).toContain(
      "high_autocorrelation",
    );
  });
});
