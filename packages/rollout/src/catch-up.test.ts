import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { CATCH_UP_SIGNALS, judgeCatchUp } from "./catch-up.ts";
import { catchUpJudgementSchema } from "./events.ts";
import { judgeBake, judgeMetric } from "./gates.ts";
import type { BakeSeries } from "./observations.ts";
import { type Policy, type PolicyInput, policySchema } from "./policy.ts";

const T = 1_760_000_000;
const STEP = 5;
const LEN = 600;
const windows = {
  before: { start: T - LEN, end: T },
  after: { start: T + 60, end: T + 60 + LEN },
};

/** Deterministic noise in [-1, 1). */
function noise(i: number, salt: number): number {
  const x = Math.sin(i * 12.9898 + salt * 78.233) * 43758.5453;
  return (x - Math.floor(x)) * 2 - 1;
}

/** Per window: lag (s) and apply rate (tx/s) as functions of the seconds since the window's start. */
interface Shape {
  lag: ((s: number) => number | null) | null;
  rate: (s: number) => number;
}
type InstanceShape = { before: Shape; after: Shape };

function seriesOf(shapes: Record<string, InstanceShape>): BakeSeries {
  return {
    wave: 0,
    windows,
    instances: Object.entries(shapes).map(([id, sh], k) => {
      const win = (w: "before" | "after", what: "lag" | "rate") => {
        const { start, end } = windows[w];
        const t: number[] = [];
        const v: (number | null)[] = [];
        const f = sh[w][what];
        if (f === null) return { t, v };
        for (let x = start, i = 0; x < end; x += STEP, i++) {
          t.push(x);
          const y = f(x - start);
          v.push(
            y === null
              ? null
              : what === "rate"
                ? y * (1 + 0.03 * noise(i, k * 7 + (w === "after" ? 3 : 0)))
                : y,
          );
        }
        return { t, v };
      };
      // Bytes per transaction: halved on the canary after the change (the bake's expected metric).
      const bytes = (w: "before" | "after") => {
        const r = win(w, "rate");
        const level = id === "canary" && w === "after" ? 50 : 100;
        return { t: r.t, v: r.t.map((_, i) => level * (1 + 0.02 * noise(i, k * 5 + 1))) };
      };
      return {
        id,
        series: {
          [CATCH_UP_SIGNALS.lag]: { before: win("before", "lag"), after: win("after", "lag") },
          [CATCH_UP_SIGNALS.applyRate]: { before: win("before", "rate"), after: win("after", "rate") },
          write_bytes_per_transaction: { before: bytes("before"), after: bytes("after") },
        },
      };
    }),
  };
}

const policy = (catchUp: PolicyInput["catchUp"] = {}): Policy =>
  policySchema.parse({ blockSeconds: 30, minSamples: 20, minBlocks: 6, warmupSeconds: 0, catchUp });

const keepsUp: Shape = { lag: () => 0, rate: () => 200 };
/** Lags steadily, applying `rate` tx/s (its capacity) while its primary commits 200. */
const lagging = (rate: number): Shape => ({ lag: (s) => 30 + s * (1 - rate / 200), rate: () => rate });

function judge(shapes: Record<string, InstanceShape>, catchUp: PolicyInput["catchUp"] = {}, replicas = true) {
  const out = judgeCatchUp(
    {
      seed: 1,
      treated: ["canary"],
      controls: ["control"],
      replicas,
      policy: policy(catchUp),
      series: seriesOf(shapes),
    },
    judgeMetric,
  );
  for (const j of out) catchUpJudgementSchema.parse(j);
  return out[0]!;
}

describe("judgeCatchUp", () => {
  it.each([
    [
      "the canary lagged in both windows and applies 40% faster: improved; expected passes",
      { canary: { before: lagging(120), after: lagging(168) }, control: { before: keepsUp, after: keepsUp } },
      { role: "expected" as const },
      { outcome: "pass", verdict: "improved" },
    ],
    [
      "the same as informative: reported as improved, never decides",
      { canary: { before: lagging(120), after: lagging(168) }, control: { before: keepsUp, after: keepsUp } },
      {},
      { outcome: "pass", verdict: "improved", role: "informative" },
    ],
    [
      "lagging at the same rate before and after: expected fails (it does not apply faster)",
      { canary: { before: lagging(120), after: lagging(120) }, control: { before: keepsUp, after: keepsUp } },
      { role: "expected" as const },
      { outcome: "fail" },
    ],
    [
      "lagging and applying 30% slower: the guardrail fails",
      { canary: { before: lagging(120), after: lagging(84) }, control: { before: keepsUp, after: keepsUp } },
      { role: "guardrail" as const },
      { outcome: "fail", verdict: "regressed" },
    ],
    [
      "nobody lagged during the bake: not applicable",
      { canary: { before: lagging(120), after: keepsUp }, control: { before: keepsUp, after: keepsUp } },
      { role: "expected" as const },
      { outcome: "not-applicable" },
    ],
    [
      "a lag shorter than minLaggingSeconds: not applicable",
      {
        canary: { before: lagging(120), after: { lag: (s: number) => (s < 40 ? 20 : 0), rate: () => 200 } },
        control: { before: keepsUp, after: keepsUp },
      },
      { role: "expected" as const },
      { outcome: "not-applicable" },
    ],
    [
      "no lag series of the changed replica: no data, never a pass",
      {
        canary: { before: { lag: null, rate: () => 120 }, after: { lag: null, rate: () => 170 } },
        control: { before: keepsUp, after: keepsUp },
      },
      { role: "expected" as const },
      { outcome: "no-data" },
    ],
    [
      "lagging in the bake only (a backlog after the restart): no baseline, inconclusive",
      { canary: { before: keepsUp, after: lagging(150) }, control: { before: keepsUp, after: keepsUp } },
      { role: "expected" as const },
      { outcome: "inconclusive" },
    ],
    [
      "the control lags and the canary no longer does: the canary applies faster where the control lags",
      {
        canary: { before: lagging(120), after: keepsUp },
        control: { before: lagging(120), after: lagging(120) },
      },
      { role: "expected" as const },
      { outcome: "pass", verdict: "improved" },
    ],
  ])("%s", (_name, shapes, catchUp, want) => {
    expect(judge(shapes, catchUp)).toMatchObject(want);
  });

  it("a wave of primaries is not applicable", () => {
    const j = judge({ canary: { before: keepsUp, after: keepsUp } }, { role: "expected" }, false);
    expect(j).toMatchObject({ outcome: "not-applicable" });
    expect(j.message).toMatch(/not a replica/);
  });

  it("judges a catch-up burst on the samples where the replica still lagged", () => {
    // Before: 60 s behind and falling further at 120 tx/s. After: catches up at 300 tx/s in 300 s,
    // then keeps up at 200. A comparison of whole windows sees a trend; only the burst is judged here.
    const burst: Shape = {
      lag: (s) => Math.max(0, 60 - s * 0.2),
      rate: (s) => (s < 300 ? 300 : 200),
    };
    const j = judge(
      { canary: { before: lagging(120), after: burst }, control: { before: keepsUp, after: keepsUp } },
      { role: "expected" },
    );
    expect(j).toMatchObject({ outcome: "pass", verdict: "improved" });
    expect(j.ratio!).toBeGreaterThan(2);
    expect(j.lag[0]!.after.lastSeconds).toBe(0);
    expect(j.lag[0]!.after.applyRateWhileLagging!).toBeGreaterThan(280);
  });

  it("summarises every replica's lag per window", () => {
    const j = judge({
      canary: { before: lagging(120), after: lagging(120) },
      control: { before: keepsUp, after: keepsUp },
    });
    const [canary, control] = j.lag;
    expect(canary).toMatchObject({ instance: "canary", role: "treated" });
    expect(canary!.before.laggingSeconds).toBe(LEN);
    expect(canary!.before.lastSeconds!).toBeGreaterThan(canary!.before.firstSeconds!);
    expect(control).toMatchObject({ instance: "control", role: "control" });
    expect(control!.after).toMatchObject({ laggingSeconds: 0, maxSeconds: 0 });
    expect(control!.after.applyRateWhileLagging!).toBeCloseTo(200, -1);
  });

  it("property: without a lag above the threshold for minLaggingSeconds in the bake, never a pass or a fail", () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 55 }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        fc.double({ min: 50, max: 400, noNaN: true }),
        fc.constantFrom("guardrail", "expected", "informative"),
        (lagged, peak, rate, role) => {
          const j = judge(
            {
              canary: {
                before: lagging(120),
                after: { lag: (s) => (s < lagged ? 60 : peak), rate: () => rate },
              },
              control: { before: keepsUp, after: { lag: () => peak, rate: () => 200 } },
            },
            { role, minLaggingSeconds: 60, lagThresholdSeconds: 5 },
          );
          expect(j.outcome).toBe("not-applicable");
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe("the catch-up judgement in the bake gate", () => {
  const bake = (shapes: Record<string, InstanceShape>, catchUp: PolicyInput["catchUp"]) =>
    judgeBake({
      wave: 0,
      seed: 1,
      treated: ["canary"],
      controls: ["control"],
      metrics: [
        {
          metric: "write_bytes_per_transaction",
          kind: "efficiency",
          role: "expected",
          expect: "decrease",
          margin: 0.05,
          minChange: 0,
        },
      ],
      policy: policy(catchUp),
      series: seriesOf(shapes),
      now: windows.after.end,
    });

  it("expected: a lagging replica that does not apply faster fails the wave", () => {
    const g = bake(
      { canary: { before: lagging(120), after: lagging(120) }, control: { before: keepsUp, after: keepsUp } },
      { role: "expected" },
    );
    expect(g.outcome).toBe("fail");
    expect(g.catchUp![0]!.outcome).toBe("fail");
    expect(g.checks.find((c) => c.id === "catch-up")).toMatchObject({ instance: "canary", outcome: "fail" });
    expect(g.summary).toMatch(/catch-up of canary: fail/);
  });

  it("not applicable decides nothing, and has no check: the other criteria decide", () => {
    const g = bake(
      { canary: { before: keepsUp, after: keepsUp }, control: { before: keepsUp, after: keepsUp } },
      { role: "expected" },
    );
    expect(g.catchUp![0]!.outcome).toBe("not-applicable");
    expect(g.checks.some((c) => c.id === "catch-up")).toBe(false);
    expect(g.outcome).toBe("pass");
  });

  it("informative: reported, never decides", () => {
    const g = bake(
      { canary: { before: lagging(120), after: lagging(84) }, control: { before: keepsUp, after: keepsUp } },
      {},
    );
    expect(g.catchUp![0]).toMatchObject({ role: "informative", verdict: "regressed" });
    expect(g.outcome).toBe("pass");
  });
});
