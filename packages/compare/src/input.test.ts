import { describe, expect, it } from "vitest";
import { parseComparisonInput } from "./input.js";

const minimal = {
  metrics: [{ id: "tps", kind: "throughput" }],
  instances: [
    {
      id: "db",
      role: "treated",
      series: { tps: { before: { t: [1, 2], v: [1, null] }, after: { t: [3], v: [2] } } },
    },
  ],
};

const messages = (value: unknown) => {
  const r = parseComparisonInput(value);
  return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
};

describe("parseComparisonInput", () => {
  it("fills the defaults", () => {
    const r = parseComparisonInput(minimal);
    expect(r.success).toBe(true);
    if (!r.success) return;
    expect(r.data.seed).toBe(1);
    expect(r.data.options).toMatchObject({
      alpha: 0.05,
      equivalenceMargin: 0.02,
      blockSeconds: "auto",
      warmupSeconds: 600,
      bootstrapResamples: 1000,
      method: "auto",
      seasonality: "match",
    });
  });

  it.each([
    [
      "t and v of different length",
      {
        ...minimal,
        instances: [
          {
            id: "db",
            role: "treated",
            series: { tps: { before: { t: [1, 2], v: [1] }, after: { t: [], v: [] } } },
          },
        ],
      },
      /same length/,
    ],
    [
      "a series for an undeclared metric",
      {
        ...minimal,
        instances: [{ id: "db", role: "treated", series: { qps: minimal.instances[0]!.series.tps } }],
      },
      /undeclared metric qps/,
    ],
    [
      "duplicate metric ids",
      { ...minimal, metrics: [minimal.metrics[0], minimal.metrics[0]] },
      /duplicate metric id/,
    ],
    [
      "duplicate instance ids",
      { ...minimal, instances: [minimal.instances[0], minimal.instances[0]] },
      /duplicate instance id/,
    ],
    [
      "no treated instance",
      { ...minimal, instances: [{ ...minimal.instances[0], role: "control" }] },
      /role treated/,
    ],
    [
      "a neutral throughput",
      { ...minimal, metrics: [{ id: "tps", kind: "throughput", direction: "neutral" }] },
      /only workload/,
    ],
    [
      "a directed workload",
      { ...minimal, metrics: [{ id: "tps", kind: "workload", direction: "higher_is_better" }] },
      /workload metrics are neutral/,
    ],
    ["an unknown option (typo)", { ...minimal, options: { warmupSecond: 60 } }, /options/],
    [
      "NaN smuggled in as a number",
      {
        ...minimal,
        instances: [
          {
            id: "db",
            role: "treated",
            series: { tps: { before: { t: [1], v: [Number.NaN] }, after: { t: [2], v: [1] } } },
          },
        ],
      },
      /v/,
    ],
    [
      "an empty window range",
      { ...minimal, windows: { before: { start: 5, end: 5 }, after: { start: 6, end: 7 } } },
      /end must be after start/,
    ],
  ])("rejects %s", (_, value, pattern) => {
    const m = messages(value);
    expect(m.length).toBeGreaterThan(0);
    expect(m.join("\n")).toMatch(pattern);
  });
});
