import { createRng } from "@untorn/compare/prng";
import { sharedFactor, simulateSeries } from "@untorn/compare/simulate";
import { describe, expect, it } from "vitest";
import { estimateBakes, estimateTargets, type WaveBaseline } from "./bake-estimate.ts";
import { type Plan, planInputSchema, planRollout } from "./plan.ts";
import { type Policy, policySchema } from "./policy.ts";
import { cluster } from "./testing.ts";

const now = 1_800_000_000;

/** The plan of doublewrite OFF on cluster c1, with the advisor expecting `bytesLow`…50% fewer bytes per transaction. */
function planWith(bytesLow: number | null): Plan {
  const p = planRollout(planInputSchema.parse({ change: { kind: "doublewrite-off" }, instances: cluster() }));
  return {
    ...p,
    dryRun: p.dryRun.map((r) => ({
      ...r,
      expectedGain:
        bytesLow === null
          ? null
          : {
              ruleId: "doublewrite-share-high",
              title: "Doublewrite doubles the data bytes",
              kind: "efficiency" as const,
              throughput: { low: 0, high: 0 },
              writeBytesPerTxn: { low: bytesLow, high: 0.5 },
              writeOpsPerTxn: null,
              fsyncsPerTxn: null,
              basis: "test",
              confidence: 0.8,
            },
    })),
  };
}

/** Baselines of every wave's instances and controls: `seconds` of 15 s samples at `sd` AR(1) noise. */
function baselines(plan: Plan, policy: Policy, seconds: number, sd: number, seed: number): WaveBaseline[] {
  const rng = createRng(seed);
  const n = seconds / 15;
  const shared = sharedFactor(n, 0.05, 0.95, rng);
  const spec = { start: now - seconds, seconds, step: 15, level: 1e5, noise: { sd, phi: 0.9 }, shared };
  const series = () => {
    const w = simulateSeries(spec, rng);
    return { t: w.t, v: w.v.map((v) => v ?? 0) };
  };
  return estimateTargets(plan, policy).map((t) => ({
    wave: t.wave,
    metric: t.metric,
    step: 15,
    window: { start: now - seconds, end: now },
    instances: [
      ...t.instances.map((id) => ({ id, role: "treated" as const, series: series() })),
      ...t.controls.map((id) => ({ id, role: "control" as const, series: series() })),
    ],
    notes:
      seconds < policy.baselineSeconds ? ["baseline capped at the earliest sample Prometheus holds"] : [],
  }));
}

const policy = policySchema.parse({});

describe("estimateBakes (the dry run's time to a verdict)", () => {
  it("a −45% effect over an hour of baseline at 10% noise: decided within 5 minutes of bake, said in bounded words", () => {
    const plan = planWith(0.45);
    const est = estimateBakes(plan, policy, baselines(plan, policy, 3600, 0.1, 1));
    const canary = est.find((e) => e.wave === 0)!;
    expect(canary.metric).toBe("write_bytes_per_transaction");
    expect(canary.expectedRatio).toBeCloseTo(0.55);
    expect(canary.outcome).toBe("decides");
    expect(canary.bakeSeconds!).toBeLessThanOrEqual(300);
    expect(canary.instances[0]!.controls).toEqual(plan.waves[0]!.controls);
    expect(canary.message).toMatch(
      /^Wave 0: about \d+ (s|min) of bake to decide the expected 45\.0% lower write bytes per transaction with 90% power/,
    );
    expect(canary.message).toMatch(/maximum bake 30 min/);
    for (const e of est) expect(e.message).not.toMatch(/NaN|Infinity|e\+|e-\d/);
  });

  it("a small effect the maximum bake cannot decide says so and gives the power at the maximum", () => {
    const plan = planWith(0.03);
    const est = estimateBakes(plan, policy, baselines(plan, policy, 3600, 0.1, 2));
    const e = est[0]!;
    expect(e.outcome).toBe("not-within-max");
    expect(e.bakeSeconds).toBeNull();
    expect(e.powerAtMax!).toBeLessThan(0.9);
    expect(e.message).toMatch(
      /even the maximum bake of 30 min decides the expected 3\.0% lower .* with only \d+% power/,
    );
  });

  it("a baseline too short to read its noise: said plainly, with the maximum bake", () => {
    const plan = planWith(0.45);
    const est = estimateBakes(plan, policy, baselines(plan, policy, 90, 0.1, 3));
    const e = est[0]!;
    expect(e.outcome).toBe("baseline-unusable");
    expect(e.baselineSeconds).toBe(90);
    expect(e.message).toMatch(/too short or too noisy \(6 usable baseline samples; at least 8 needed/);
    expect(e.message).toMatch(/up to its maximum of 30 min/);
    expect(e.message).toMatch(/baseline capped at the earliest sample/);
  });

  it("no baseline at all, no expected effect, a fixed judgement: each in its own sentence", () => {
    const plan = planWith(0.45);
    const missing = estimateBakes(plan, policy, [])[0]!;
    expect(missing).toMatchObject({ outcome: "baseline-unusable", baselineSeconds: null });
    expect(missing.message).toMatch(
      /the metrics history holds no samples of write bytes per transaction for r1 .*up to its maximum of 30 min/,
    );
    const none = estimateBakes(planWith(null), policy, []);
    expect(none[0]).toMatchObject({ outcome: "no-expected-effect", bakeSeconds: null });
    expect(none[0]!.message).toMatch(/no figure on the effect .* maximum of 30 min/);
    const fixed = policySchema.parse({ judgement: "fixed", bakeSeconds: 900 });
    expect(estimateTargets(plan, fixed)).toEqual([]);
    expect(estimateBakes(plan, fixed, [])[0]).toMatchObject({ outcome: "fixed-bake", bakeSeconds: 900 });
  });
});
