// What compare says and how it says it: the interval a verdict rests on, dependence at few blocks,
// equivalence of throughput, capacity-bound claims, control rows, and input rejected at the boundary.
import { describe, expect, it } from "vitest";
import { at, buildInput, DAY, fleetLoad, HOUR, T0 } from "../test/scenarios.js";
import { compare } from "./compare.js";
import { parseComparisonInput } from "./input.js";
import { createRng } from "./prng.js";
import type { ComparisonResult } from "./result.js";

const errors = (value: unknown) => {
  const r = parseComparisonInput(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

const grid = (start: number, n: number, step = 15) => Array.from({ length: n }, (_, i) => start + i * step);

describe("boundary: timestamps and declared windows", () => {
  const series = (before: number[], after: number[]) => ({
    metrics: [{ id: "tps", kind: "throughput" }],
    instances: [
      {
        id: "db",
        role: "treated",
        series: {
          tps: {
            before: { t: before, v: before.map(() => 100) },
            after: { t: after, v: after.map(() => 100) },
          },
        },
      },
    ],
  });

  it("rejects millisecond timestamps, naming the series and the value", () => {
    const ms = series(grid(T0 * 1000, 40, 15_000), grid((T0 + DAY) * 1000, 40, 15_000));
    const e = errors(ms);
    expect(e.some((m) => /instances\.0\.series\.tps\.before\.t.*milliseconds/.test(m))).toBe(true);
    expect(e.join("\n")).toContain(String(T0 * 1000));
  });

  it("rejects millisecond restarts and window bounds too", () => {
    const input = {
      ...series(grid(T0, 40), grid(T0 + DAY, 40)),
      windows: {
        before: { start: T0 * 1000, end: (T0 + 600) * 1000 },
        after: { start: (T0 + DAY) * 1000, end: (T0 + DAY + 600) * 1000 },
      },
    };
    expect(errors(input).some((m) => /^windows\.before\.start: .*milliseconds/.test(m))).toBe(true);
  });

  it("rejects samples outside the declared window", () => {
    const input = {
      ...series(grid(T0, 40), grid(T0 + DAY, 40)),
      windows: {
        before: { start: T0, end: T0 + 300 },
        after: { start: T0 + DAY, end: T0 + DAY + 600 },
      },
    };
    const e = errors(input);
    expect(e).toEqual([
      expect.stringMatching(/^instances\.0\.series\.tps\.before\.t: 19 samples lie outside/),
    ]);
  });

  it("rejects an after window that starts before the before window", () => {
    const input = {
      ...series(grid(T0, 40), grid(T0 + DAY, 40)),
      windows: {
        before: { start: T0 + DAY, end: T0 + DAY + 600 },
        after: { start: T0, end: T0 + 600 },
      },
    };
    expect(
      errors(input).some((m) => /^windows: the after window starts before the before window/.test(m)),
    ).toBe(true);
  });

  it("still accepts consistent declared windows", () => {
    const input = {
      ...series(grid(T0, 40), grid(T0 + DAY, 40)),
      windows: { before: { start: T0, end: T0 + 600 }, after: { start: T0 + DAY, end: T0 + DAY + 600 } },
    };
    expect(errors(input)).toEqual([]);
  });
});

describe("the interval a verdict rests on", () => {
  // Two metrics carry the verdict, so each is judged on a simultaneous (Bonferroni) interval.
  const twoMetrics = (seed: number) =>
    buildInput(
      seed,
      [
        { id: "bytes", kind: "efficiency" },
        { id: "fsyncs", kind: "efficiency" },
      ],
      [
        {
          id: "db",
          role: "treated",
          series: {
            bytes: { before: at(0, 10, HOUR), after: { ...at(1, 10, HOUR), effect: 0.93 } },
            fsyncs: { before: at(0, 10, HOUR), after: { ...at(1, 10, HOUR), effect: 0.93 } },
          },
        },
      ],
    );

  it("prints an interval that agrees with the verdict on every seed", () => {
    for (let seed = 1; seed <= 40; seed++) {
      const res = compare(twoMetrics(seed));
      for (const m of res.metrics) {
        expect(m.ciAdjustment).toBe("bonferroni");
        expect(m.ciLevel).toBeCloseTo(0.975, 10);
        const excludesOne = m.ciLow! > 1 || (m.ciHigh !== null && m.ciHigh < 1);
        if (m.verdict === "improved" || m.verdict === "regressed") expect(excludesOne).toBe(true);
        if (m.verdict === "inconclusive")
          expect(excludesOne && Math.abs(Math.log(m.ratio!)) >= Math.log1p(0.02)).toBe(false);
        // The unadjusted interval is kept beside it, and is never wider.
        expect(m.ciLowUnadjusted!).toBeGreaterThanOrEqual(m.ciLow!);
        expect(m.ciHighUnadjusted!).toBeLessThanOrEqual(m.ciHigh!);
        expect(m.pValueAdjusted).toBe(Math.min(1, 2 * m.pValue!));
      }
    }
  });

  it("uses the plain interval when one metric carries the verdict", () => {
    const res = compare(
      buildInput(
        3,
        [{ id: "tps", kind: "throughput" }],
        [{ id: "db", role: "treated", series: { tps: { before: at(0, 10, HOUR), after: at(1, 10, HOUR) } } }],
      ),
    );
    const m = res.metrics[0]!;
    expect(m.ciAdjustment).toBe("none");
    expect(m.ciLow).toBe(m.ciLowUnadjusted);
    expect(m.ciLevel).toBeCloseTo(0.95, 10);
  });
});

describe("dependence at few blocks", () => {
  // A slow ramp under loud, short-lived 15 s noise, 1-hour windows (12 blocks of 5 min): the blocks are
  // far more correlated than the scrape-level noise implies, and 22 block pairs cannot say how much.
  const ramp = (n: number, from: number, to: number) =>
    Float64Array.from({ length: n }, (_, i) => from + ((to - from) * i) / (n - 1));
  const input = (seed: number) =>
    buildInput(
      seed,
      [{ id: "tps", kind: "throughput" }],
      [
        {
          id: "db",
          role: "treated",
          series: {
            tps: {
              before: { ...at(0, 10, HOUR), noise: { sd: 0.3, phi: 0.3 }, shared: ramp(240, 0.7, 1.3) },
              after: { ...at(1, 10, HOUR), noise: { sd: 0.3, phi: 0.3 }, shared: ramp(240, 0.7, 1.3) },
            },
          },
        },
      ],
    );

  it("keeps the interval bounded and says it was widened, and why", () => {
    for (const seed of [1, 2, 3, 4, 5]) {
      const r = compare(input(seed)).results[0]!;
      expect(r.blocksBefore).toBe(12);
      expect(r.ciHigh).not.toBeNull();
      expect(r.ciLow!).toBeGreaterThan(0.5);
      expect(r.ciHigh!).toBeLessThan(2);
      const widened = r.flags.find((f) => f.code === "interval_widened");
      expect(widened?.severity).toBe("warning");
      expect(widened?.message).toMatch(/block pairs/);
      expect(widened?.message).toMatch(/capped/);
    }
  });

  it("rarely flags ordinary noise (only when the blocks really were more correlated)", () => {
    let flagged = 0;
    for (let seed = 1; seed <= 40; seed++) {
      const r = compare(
        buildInput(
          seed,
          [{ id: "tps", kind: "throughput" }],
          [
            {
              id: "db",
              role: "treated",
              series: { tps: { before: at(0, 10, HOUR), after: at(1, 10, HOUR) } },
            },
          ],
        ),
      ).results[0]!;
      if (r.flags.some((f) => f.code === "interval_widened")) flagged++;
    }
    expect(flagged).toBeLessThanOrEqual(4);
  });
});

describe("throughput held: an equivalence test with a stated margin", () => {
  const oneHour = (seed: number, options = {}) =>
    buildInput(
      seed,
      [
        { id: "tps", kind: "throughput" },
        { id: "bytes_per_trx", kind: "efficiency" },
      ],
      [
        {
          id: "db",
          role: "treated",
          series: {
            tps: { before: at(0, 10, HOUR, 800), after: at(1, 10, HOUR, 800) },
            bytes_per_trx: {
              before: at(0, 10, HOUR, 120_000),
              after: { ...at(1, 10, HOUR, 120_000), effect: 0.55 },
            },
          },
        },
      ],
      options,
    );

  it("concludes demand-driven at 1-hour windows in most pairs and states the margin", () => {
    let held = 0;
    for (let seed = 1; seed <= 20; seed++) {
      const res = compare(oneHour(seed));
      expect(res.overall.throughput.margin).toBe(0.15);
      if (res.overall.throughput.demandDriven === true) {
        held++;
        expect(res.overall.throughput.message).toMatch(/throughput held within ±15%/);
        expect(res.overall.throughput.message).toMatch(/demand-driven: efficiency improved, throughput held/);
        expect(res.overall.verdict).toBe("improved");
      }
    }
    expect(held).toBeGreaterThanOrEqual(15);
  });

  it("follows the margin the user sets", () => {
    const res = compare(oneHour(1, { throughputMargin: 0.005 }));
    expect(res.overall.throughput.margin).toBe(0.005);
    expect(res.overall.throughput.demandDriven).toBeNull();
    expect(res.overall.throughput.message).toMatch(/±0\.5%/);
  });

  it("rejects a margin outside (0, 1)", () => {
    expect(errors({ ...oneHourJson(), options: { throughputMargin: 1.5 } })[0]).toMatch(
      /^options\.throughputMargin/,
    );
  });
});

function oneHourJson() {
  return {
    metrics: [{ id: "tps", kind: "throughput" }],
    instances: [
      {
        id: "db",
        role: "treated",
        series: { tps: { before: { t: [1], v: [1] }, after: { t: [2], v: [1] } } },
      },
    ],
  };
}

describe("capacity-bound only with corroboration", () => {
  const tpsOnly = (effect: number, extra: boolean) =>
    buildInput(
      4,
      [{ id: "tps", kind: "throughput" }, ...(extra ? [{ id: "dblwr_wait", kind: "wait" as const }] : [])],
      [
        {
          id: "db",
          role: "treated",
          series: {
            tps: { before: at(0, 10, 6 * HOUR), after: { ...at(1, 10, 6 * HOUR), effect } },
            ...(extra
              ? {
                  dblwr_wait: {
                    before: at(0, 10, 6 * HOUR, 0.02),
                    after: { ...at(1, 10, 6 * HOUR, 0.02), effect: 0.3 },
                  },
                }
              : {}),
          },
        },
      ],
    );

  it("does not call the instance capacity-bound from throughput alone", () => {
    const res = compare(tpsOnly(1.25, false));
    expect(res.metrics[0]!.verdict).toBe("improved");
    expect(res.overall.throughput.demandDriven).toBeNull();
    expect(res.overall.throughput.message).not.toMatch(/the instance was capacity-bound/);
    expect(res.overall.throughput.message).toMatch(/no corroborating/);
  });

  it("says capacity-bound when waits fell as throughput rose", () => {
    const res = compare(tpsOnly(1.25, true));
    expect(res.overall.throughput.demandDriven).toBe(false);
    expect(res.overall.throughput.message).toMatch(/capacity-bound/);
    expect(res.overall.throughput.message).toMatch(/dblwr_wait/);
  });
});

describe("with a control", () => {
  // Before 10:00-11:00, after 15:00-16:00 the same day, fleet load down 30%: the control's own
  // windows cover different hours, which is exactly what the control is there to absorb.
  const withControl = (seed: number, effect: number) => {
    const rng = createRng(1000 + seed);
    const before = fleetLoad(HOUR, 15, rng);
    const after = fleetLoad(HOUR, 15, rng, 0.7);
    const w = (hour: number, shared: Float64Array, e = 1) => ({ ...at(0, hour, HOUR), shared, effect: e });
    return buildInput(
      seed,
      [{ id: "tps", kind: "throughput" }],
      [
        {
          id: "canary",
          role: "treated",
          series: { tps: { before: w(10, before), after: w(15, after, effect) } },
        },
        { id: "sibling", role: "control", series: { tps: { before: w(10, before), after: w(15, after) } } },
      ],
    );
  };
  const sibling = (res: ComparisonResult) => res.results.find((r) => r.role === "control")!;

  it("gives control rows no verdict and no seasonality warnings", () => {
    const res = compare(withControl(1, 1));
    const s = sibling(res);
    expect(s.verdict).toBeNull();
    expect(s.carriesVerdict).toBe(false);
    expect(s.flags.map((f) => f.code)).not.toContain("seasonality_unmatched");
  });

  it("labels the change vs control and never advises a control", () => {
    for (let seed = 1; seed <= 10; seed++) {
      const res = compare(withControl(seed, 1));
      expect(res.metrics[0]!.vsControl).toBe(true);
      expect(res.overall.reasons.join("\n")).not.toMatch(/control instance would help|use .*a control/);
      for (const r of res.results)
        for (const f of r.flags) expect(f.message).not.toMatch(/or a control instance/);
    }
  });

  it("keeps vsControl false without one", () => {
    const res = compare(
      buildInput(
        1,
        [{ id: "tps", kind: "throughput" }],
        [{ id: "db", role: "treated", series: { tps: { before: at(0, 10, HOUR), after: at(1, 10, HOUR) } } }],
      ),
    );
    expect(res.metrics[0]!.vsControl).toBe(false);
  });
});
