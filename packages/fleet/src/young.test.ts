import { describe, expect, it } from "vitest";
import { type CoverageInput, observedSeconds, youngRateFactor } from "./young.js";

// A 1 h window ending on a step boundary, 2 min steps: 30 steps.
const AT = 1_700_000_400;
const young: CoverageInput = {
  windowSeconds: 3600,
  stepSeconds: 120,
  at: AT,
  steps: 30,
  sampledSteps: 20,
  uptimeSeconds: 2400,
  restarts: 0,
};
const SPAN = { windowSeconds: 3600, ruleWindowSeconds: 300, avgRangeSeconds: 3300 };

describe("observedSeconds", () => {
  it("is the uptime of a server started inside the window", () => {
    expect(observedSeconds(young)).toBe(2400);
  });

  it("is the sampled steps' span when the samples start well after the server (an exporter started later)", () => {
    // 10 sampled steps: the samples start 19-20 min before the end, the server 40 min before.
    expect(observedSeconds({ ...young, sampledSteps: 10 })).toBe(9.5 * 120);
    // ...and the span since the last step when the end is not on a step boundary.
    expect(observedSeconds({ ...young, sampledSteps: 10, at: AT + 50 })).toBe(50 + 9.5 * 120);
  });

  it("is unknown, and nothing is scaled, for a series as old as the window", () => {
    expect(observedSeconds({ ...young, sampledSteps: 30 })).toBeNull();
    expect(observedSeconds({ ...young, sampledSteps: 31 })).toBeNull();
    // Steps missing but the server is older than the window: a gap, or an exporter added later; not told apart.
    expect(observedSeconds({ ...young, uptimeSeconds: 3600 })).toBeNull();
    expect(observedSeconds({ ...young, uptimeSeconds: 86_400 })).toBeNull();
  });

  it("is unknown for a restarted server: its series existed before", () => {
    expect(observedSeconds({ ...young, restarts: 1 })).toBeNull();
  });

  it("is unknown without samples, steps or uptime", () => {
    expect(observedSeconds({ ...young, sampledSteps: 0 })).toBeNull();
    expect(observedSeconds({ ...young, sampledSteps: undefined })).toBeNull();
    expect(observedSeconds({ ...young, steps: 0 })).toBeNull();
    expect(observedSeconds({ ...young, steps: undefined })).toBeNull();
    expect(observedSeconds({ ...young, uptimeSeconds: undefined })).toBeNull();
    expect(observedSeconds({ ...young, uptimeSeconds: 0 })).toBeNull();
    expect(observedSeconds({ ...young, uptimeSeconds: Number.NaN })).toBeNull();
  });
});

describe("youngRateFactor", () => {
  it("scales Prometheus' raw window rate by window ÷ observed time", () => {
    expect(youngRateFactor("prometheus", "raw", 2400, SPAN)).toBeCloseTo(1.5, 12);
    expect(youngRateFactor("prometheus", "raw", 600, SPAN)).toBeCloseTo(6, 12);
  });

  it("scales Prometheus' recorded average by the ramp of its first rule window", () => {
    // Observed 40 min: the first 5 min of recorded rates read age ÷ 5 min, on average 1/2: 1 - 150/2400.
    expect(youngRateFactor("prometheus", "recorded", 2400, SPAN)).toBeCloseTo(1 / (1 - 150 / 2400), 12);
    // Observed 2 min, inside the rule window: the recorded rates read on average 1/2 × 2/5.
    expect(youngRateFactor("prometheus", "recorded", 120, SPAN)).toBeCloseTo(5, 12);
    // Observed longer than the averaged range plus a rule window: every averaged rate is whole.
    expect(youngRateFactor("prometheus", "recorded", 3600, SPAN)).toBe(1);
  });

  it("leaves VictoriaMetrics, unknown and zero observed times alone", () => {
    expect(youngRateFactor("victoriametrics", "raw", 2400, SPAN)).toBe(1);
    expect(youngRateFactor("victoriametrics", "recorded", 2400, SPAN)).toBe(1);
    expect(youngRateFactor("prometheus", "raw", null, SPAN)).toBe(1);
    expect(youngRateFactor("prometheus", "raw", 0, SPAN)).toBe(1);
    expect(youngRateFactor("prometheus", "recorded", 0, SPAN)).toBe(1);
    expect(youngRateFactor("prometheus", "recorded", 120, { ...SPAN, ruleWindowSeconds: 0 })).toBe(1);
  });

  it("never lowers a reading", () => {
    expect(youngRateFactor("prometheus", "raw", 7200, SPAN)).toBe(1);
  });
});
