import type { MetricSummary } from "@untorn/compare/result";
import { describe, expect, it } from "vitest";
import { type Change, changeSchema } from "./change.ts";
import { combineOutcomes, defaultMetrics, describeFinding, judgeMetric, readBackChecks } from "./gates.ts";
import type { JudgedMetric } from "./policy.ts";
import { createRollout, gateReplicas } from "./state.ts";
import { create, mysql, readBack, T0 } from "./testing.ts";

const summary = (verdict: MetricSummary["verdict"], ratio: number | null): MetricSummary => ({
  metric: "m",
  kind: "efficiency",
  direction: "lower_is_better",
  instances: 1,
  vsControl: true,
  ratio,
  ciLow: ratio === null ? null : ratio * 0.95,
  ciHigh: ratio === null ? null : ratio * 1.05,
  ciLevel: 0.95,
  ciAdjustment: "none",
  ciLowUnadjusted: ratio === null ? null : ratio * 0.95,
  ciHighUnadjusted: ratio === null ? null : ratio * 1.05,
  pValue: 0.01,
  pValueAdjusted: 0.01,
  heterogeneity: null,
  verdict,
  carriesVerdict: true,
});
const m = (
  role: JudgedMetric["role"],
  kind: JudgedMetric["kind"],
  extra: Partial<JudgedMetric> = {},
): JudgedMetric => ({
  metric: "m",
  kind,
  role,
  margin: 0.05,
  minChange: 0,
  ...(role === "expected" ? { expect: "decrease" as const } : {}),
  ...extra,
});

describe("judgeMetric", () => {
  it.each([
    [
      "throughput guardrail: regression beyond the margin fails",
      m("guardrail", "throughput"),
      summary("regressed", 0.9),
      "fail",
    ],
    [
      "throughput guardrail: a significant regression within the margin whose interval stays within passes",
      m("guardrail", "throughput"),
      { ...summary("regressed", 0.98), ciLow: 0.96, ciHigh: 0.99 },
      "pass",
    ],
    [
      "throughput guardrail: a regression within the margin whose interval reaches beyond holds",
      m("guardrail", "throughput"),
      summary("regressed", 0.97),
      "inconclusive",
    ],
    [
      "throughput guardrail: compare's inconclusive with the whole interval within the margin passes",
      m("guardrail", "throughput", { margin: 0.1 }),
      { ...summary("inconclusive", 1.0), ciLow: 0.93, ciHigh: 1.07 },
      "pass",
    ],
    [
      "throughput guardrail: an unbounded interval holds",
      m("guardrail", "throughput", { margin: 0.1 }),
      { ...summary("inconclusive", 1.0), ciLow: 0, ciHigh: null },
      "inconclusive",
    ],
    [
      "latency guardrail: an interval above the margin holds",
      m("guardrail", "latency", { margin: 0.1 }),
      { ...summary("inconclusive", 1.02), ciLow: 0.9, ciHigh: 1.15 },
      "inconclusive",
    ],
    [
      "throughput guardrail: unchanged passes",
      m("guardrail", "throughput"),
      summary("unchanged", 1.0),
      "pass",
    ],
    ["latency guardrail: +20% fails", m("guardrail", "latency"), summary("regressed", 1.2), "fail"],
    [
      "guardrail: inconclusive holds",
      m("guardrail", "latency"),
      summary("inconclusive", 1.2),
      "inconclusive",
    ],
    ["expected decrease: improved passes", m("expected", "efficiency"), summary("improved", 0.6), "pass"],
    [
      "expected decrease: improved but below minChange holds",
      m("expected", "efficiency", { minChange: 0.3 }),
      summary("improved", 0.8),
      "inconclusive",
    ],
    [
      "expected decrease: unchanged fails (the hypothesis did not hold)",
      m("expected", "efficiency"),
      summary("unchanged", 1.0),
      "fail",
    ],
    ["expected decrease: regressed fails", m("expected", "efficiency"), summary("regressed", 1.3), "fail"],
    ["a missing metric is no-data, never a pass", m("guardrail", "throughput"), undefined, "no-data"],
    ["no_data verdict is no-data", m("expected", "efficiency"), summary("no_data", null), "no-data"],
    ["informative never fails", m("informative", "efficiency"), summary("regressed", 2), "pass"],
  ] as const)("%s", (_n, metric, s, outcome) => {
    expect(judgeMetric(metric, s).outcome).toBe(outcome);
  });

  it("the criterion says what is required, the finding what was found: neither borrows the other's words", () => {
    const any = judgeMetric(m("expected", "efficiency"), summary("inconclusive", 0.97));
    expect(any.criterion).toBe("significantly lower (by any amount)");
    expect(
      judgeMetric(m("expected", "efficiency", { minChange: 0.1 }), summary("improved", 0.8)).criterion,
    ).toBe("significantly lower, by at least 10%");
    expect(judgeMetric(m("guardrail", "throughput"), summary("unchanged", 1)).criterion).toBe(
      "no drop beyond 5% (ruled out by the interval)",
    );
    // 0.97 with the fixture's ±5% interval: 7.9% lower to 1.8% higher, which is not significant.
    expect(describeFinding(any)).toBe(
      "3% lower (interval 7.9% lower to 1.8% higher), not significant (inconclusive)",
    );
    expect(describeFinding(summary("improved", 0.6))).toBe(
      "40% lower (interval 43% lower to 37% lower), significant",
    );
    expect(describeFinding(summary("unchanged", 1))).toBe(
      "no change (interval 5% lower to 5% higher), no significant change",
    );
    expect(describeFinding(summary("no_data", null))).toBe("no data");
    // Samples there were (33 at a mean of 0, say), but no ratio: that is not "no data".
    expect(describeFinding(summary("inconclusive", null))).toBe(
      "no estimate, not significant (inconclusive)",
    );
  });

  it("combineOutcomes: the worst wins, nothing is no-data", () => {
    expect(combineOutcomes(["pass", "pass"])).toBe("pass");
    expect(combineOutcomes(["pass", "inconclusive", "no-data"])).toBe("no-data");
    expect(combineOutcomes(["no-data", "fail"])).toBe("fail");
    expect(combineOutcomes([])).toBe("no-data");
  });
});

describe("defaultMetrics", () => {
  it.each([
    // Write ops stay informative: a doublewrite batch is one or two requests, so they barely move.
    [{ kind: "doublewrite-off" }, ["write_bytes_per_transaction"]],
    [{ kind: "doublewrite-detect-only" }, ["write_bytes_per_transaction"]],
    [{ kind: "doublewrite-pages", pages: 128 }, []],
    [{ kind: "atomic-storage", platform: "rds-blue-green" }, ["write_bytes_per_transaction"]],
  ])("%j expects %j to drop; throughput and latency are guardrails", (change, expected) => {
    const ms = defaultMetrics(changeSchema.parse(change) as Change);
    expect(ms.filter((x) => x.role === "expected").map((x) => x.metric)).toEqual(expected);
    expect(ms.filter((x) => x.role === "guardrail").map((x) => x.kind)).toEqual(["throughput", "latency"]);
  });
});

describe("readBackChecks", () => {
  const expectOff = { restart: true, doublewriteMode: "off" as const, doublewriteFlat: true };
  it("passes when mode and counters match", () => {
    expect(readBackChecks("r1", expectOff, readBack("r1", 1, "off", 0)).map((c) => c.outcome)).toEqual([
      "pass",
      "pass",
    ]);
  });
  it("fails saying what it saw", () => {
    const c = readBackChecks("r1", expectOff, readBack("r1", 1, "on", 12.5));
    expect(c.map((x) => [x.id, x.outcome, x.observed])).toEqual([
      ["doublewrite_mode", "fail", "on"],
      ["doublewrite_flat", "fail", "12.5 pages/s"],
    ]);
  });
  it("no read-back is no-data; a server down is waiting", () => {
    expect(readBackChecks("r1", expectOff, null).every((c) => c.outcome === "no-data")).toBe(true);
    const down = { ...readBack("r1", 1, "off"), up: false };
    expect(readBackChecks("r1", expectOff, down)[0]!.outcome).toBe("waiting");
  });
  it("config info labels compare case-insensitively", () => {
    const c = readBackChecks(
      "r1",
      { restart: true, configInfo: { flush_method: "O_DIRECT" } },
      readBack("r1", 1, "on"),
    );
    expect(c[0]!.outcome).toBe("pass");
  });
});

describe("gateReplicas", () => {
  it("a wave of primaries checks every replica of their cluster (the switchover targets)", () => {
    const s = createRollout(
      create([
        mysql("p1", "primary"),
        mysql("r1", "replica"),
        mysql("r2", "replica"),
        mysql("q1", "replica", { cluster: "c2" }),
      ]),
      T0,
    );
    const primaries = s.waves.find((w) => w.kind === "primaries")!;
    expect(gateReplicas(s, primaries)).toEqual(["r1", "r2"]);
    expect(gateReplicas(s, s.waves[0]!)).toEqual(["r1", "r2"]);
  });
});
