/**
 * The dry run's time to a verdict: per wave, how long its bake will need to decide the advisor's
 * expected effect, from the noise of the baseline the bake would be judged against (its lag-1
 * autocorrelation and SD, read from the metrics history before now as the reconciler reads it), with
 * `bakeSecondsNeeded` of @untorn/compare (docs/comparison.md, section 8). Pure: the caller fetches
 * the baselines (rollout-runner's `fetchPlanBaselines`).
 */
import { describeRatio } from "@untorn/compare/format";
import { bakeSecondsNeeded, baselineNoiseOf, type TimedValues } from "@untorn/compare/sequential";
import { z } from "zod";
import { defaultMetrics } from "./gates.js";
import type { DryRunRow, Plan } from "./plan.js";
import type { JudgedMetric, Policy } from "./policy.js";

/** The power the estimate asks for: the chance that the bake has decided by then. */
export const ESTIMATE_POWER = 0.9;

/** One wave's baseline of the metric its estimate is for, as the runner fetched it. */
export interface WaveBaseline {
  readonly wave: number;
  readonly metric: string;
  /** Scrape step of the series, seconds. */
  readonly step: number;
  /** The baseline window read, after the cuts (restarts, settings changes, Prometheus' earliest sample). */
  readonly window: { readonly start: number; readonly end: number };
  readonly instances: readonly {
    readonly id: string;
    readonly role: "treated" | "control";
    readonly series: TimedValues;
  }[];
  /** Why the baseline is shorter than asked, in words. */
  readonly notes: readonly string[];
}

export const BAKE_ESTIMATE_OUTCOMES = [
  "decides",
  "not-within-max",
  "baseline-unusable",
  "no-expected-effect",
  "fixed-bake",
] as const;

export const bakeEstimateSchema = z.strictObject({
  wave: z.number().int().min(0),
  metric: z.string().nullable().describe("The judged metric the estimate is for (the expected one)."),
  expectedRatio: z
    .number()
    .nullable()
    .describe(
      "The advisor's expected effect as after/before (0.7 = 30% lower), the cautious end of its range.",
    ),
  outcome: z.enum(BAKE_ESTIMATE_OUTCOMES),
  bakeSeconds: z
    .number()
    .nullable()
    .describe(
      `Bake needed for ${ESTIMATE_POWER * 100}% power (the slowest instance of the wave); null when none.`,
    ),
  powerAtMax: z
    .number()
    .min(0)
    .max(1)
    .nullable()
    .describe("Power at the maximum bake (the slowest instance)."),
  maxBakeSeconds: z.number(),
  baselineSeconds: z.number().nullable().describe("Length of the baseline read, after its cuts."),
  askedBaselineSeconds: z.number(),
  instances: z.array(
    z.strictObject({
      instance: z.string(),
      bakeSeconds: z.number().nullable(),
      powerAtMax: z.number().min(0).max(1).nullable(),
      samples: z.number().int().min(0),
      effective: z.number().nullable(),
      phi: z.number().nullable(),
      sigma: z.number().nullable(),
      controls: z.array(z.string()),
      reason: z.string().nullable(),
    }),
  ),
  message: z.string(),
});
export type BakeEstimate = z.infer<typeof bakeEstimateSchema>;

const minutes = (s: number) => (s < 60 ? `${Math.round(s)} s` : `${Math.round(s / 60)} min`);
const pct = (x: number) => `${Math.round(x * 100)}%`;
const METRIC_WORDS: Record<string, string> = {
  write_bytes_per_transaction: "write bytes per transaction",
  transactions_per_second: "transactions per second",
};

/** The metric a wave's estimate is for and the advisor's expected ratio on it (cautious end). */
function expectation(
  metrics: readonly JudgedMetric[],
  rows: readonly DryRunRow[],
): { metric: JudgedMetric | null; ratio: number | null } {
  const expected = metrics.find((m) => m.role === "expected") ?? null;
  const gains = rows.flatMap((r) => (r.expectedGain ? [r.expectedGain] : []));
  if (expected?.metric === "write_bytes_per_transaction") {
    const lows = gains.flatMap((g) =>
      g.writeBytesPerTxn && g.writeBytesPerTxn.low > 0 ? [g.writeBytesPerTxn.low] : [],
    );
    return { metric: expected, ratio: lows.length ? 1 - Math.min(...lows) : null };
  }
  if (expected) return { metric: expected, ratio: null };
  // No expected metric: the throughput guardrail where the advisor expects a throughput gain.
  const tps = metrics.find((m) => m.metric === "transactions_per_second") ?? null;
  const lows = gains.flatMap((g) => (g.throughput.low > 0 ? [g.throughput.low] : []));
  return lows.length && tps ? { metric: tps, ratio: 1 + Math.min(...lows) } : { metric: null, ratio: null };
}

/** The metric (and expected ratio) whose baseline the runner should fetch for each wave. */
export function estimateTargets(
  plan: Plan,
  policy: Policy,
): {
  wave: number;
  metric: string;
  kind: JudgedMetric["kind"];
  ratio: number;
  instances: string[];
  controls: string[];
}[] {
  if (policy.judgement !== "sequential") return [];
  const metrics = policy.metrics ?? defaultMetrics(plan.change);
  return plan.waves.flatMap((w) => {
    const e = expectation(
      metrics,
      plan.dryRun.filter((r) => w.instances.includes(r.instance)),
    );
    return e.metric && e.ratio !== null
      ? [
          {
            wave: w.index,
            metric: e.metric.metric,
            kind: e.metric.kind,
            ratio: e.ratio,
            instances: [...w.instances],
            controls: [...w.controls],
          },
        ]
      : [];
  });
}

/**
 * The estimate of every wave of `plan` from the baselines fetched for `estimateTargets`. A wave
 * without a baseline, or whose baseline is too short or noisy, gets a plain sentence saying so and
 * what the maximum bake is.
 */
export function estimateBakes(
  plan: Plan,
  policy: Policy,
  baselines: readonly WaveBaseline[],
): BakeEstimate[] {
  const targets = new Map(estimateTargets(plan, policy).map((t) => [t.wave, t]));
  const max = policy.bakeSeconds;
  const schedule = { lookEverySeconds: policy.lookEverySeconds, maxSeconds: max };
  return plan.waves.map((w) => {
    const base = {
      wave: w.index,
      maxBakeSeconds: max,
      askedBaselineSeconds: policy.baselineSeconds,
      instances: [] as BakeEstimate["instances"],
    };
    if (policy.judgement !== "sequential")
      return {
        ...base,
        metric: null,
        expectedRatio: null,
        outcome: "fixed-bake" as const,
        bakeSeconds: max,
        powerAtMax: null,
        baselineSeconds: null,
        message: `Wave ${w.index}: the fixed judgement bakes ${minutes(max)}, then judges.`,
      };
    const t = targets.get(w.index);
    if (!t)
      return {
        ...base,
        metric: null,
        expectedRatio: null,
        outcome: "no-expected-effect" as const,
        bakeSeconds: null,
        powerAtMax: null,
        baselineSeconds: null,
        message: `Wave ${w.index}: the advisor puts no figure on the effect here, so no time to a verdict can be estimated; the bake runs up to its maximum of ${minutes(max)}, judged on its guardrails.`,
      };
    const b = baselines.find((x) => x.wave === w.index && x.metric === t.metric);
    const words = METRIC_WORDS[t.metric] ?? t.metric.replaceAll("_", " ");
    const effect = `the expected ${describeRatio(t.ratio)} ${words}`;
    const baselineSeconds = b ? Math.max(0, b.window.end - b.window.start) : null;
    const controls = (b?.instances ?? [])
      .filter((i) => i.role === "control")
      .map((i) => ({ id: i.id, before: i.series }));
    const instances = t.instances.map((id) => {
      const series = b?.instances.find((i) => i.id === id && i.role === "treated")?.series;
      const noise = series
        ? baselineNoiseOf({ treated: series, controls, step: b!.step })
        : { ok: false as const, reason: "no baseline series in the metrics history", samples: 0 };
      if (!noise.ok)
        return {
          instance: id,
          bakeSeconds: null,
          powerAtMax: null,
          samples: noise.samples,
          effective: null,
          phi: null,
          sigma: null,
          controls: [],
          reason: noise.reason,
        };
      const need = bakeSecondsNeeded({
        sigma: noise.sigma,
        phi: noise.phi,
        baselineSamples: noise.samples,
        step: b!.step,
        effect: t.ratio,
        alpha: policy.alpha,
        schedule,
        power: ESTIMATE_POWER,
      });
      return {
        instance: id,
        bakeSeconds: need.seconds,
        powerAtMax: need.powerAtMax,
        samples: noise.samples,
        effective: noise.effective,
        phi: noise.phi,
        sigma: noise.sigma,
        controls: noise.controls,
        reason: null,
      };
    });
    const est = { ...base, metric: t.metric, expectedRatio: t.ratio, baselineSeconds, instances };
    const cuts = b?.notes.length ? `: ${b.notes.join("; ")}` : "";
    const length =
      baselineSeconds === null
        ? `no baseline (${minutes(policy.baselineSeconds)} asked)`
        : baselineSeconds >= policy.baselineSeconds
          ? `${minutes(baselineSeconds)} of baseline`
          : `${minutes(baselineSeconds)} of baseline (${minutes(policy.baselineSeconds)} asked${cuts})`;
    const unusable = instances.find((i) => i.reason !== null);
    if (unusable)
      return {
        ...est,
        outcome: "baseline-unusable" as const,
        bakeSeconds: null,
        powerAtMax: null,
        message: `Wave ${w.index}: no time to a verdict for ${effect}: ${
          unusable.samples === 0
            ? `the metrics history holds no samples of ${words} for ${unusable.instance} (not collected, or not recorded)`
            : `${unusable.instance} has ${length}, too short or too noisy (${unusable.reason})`
        }. The bake would run up to its maximum of ${minutes(max)} and may end inconclusive${unusable.samples === 0 ? "" : "; wait for more metrics history first"}.`,
      };
    const slowest = instances.reduce((a, i) =>
      (i.bakeSeconds ?? Number.POSITIVE_INFINITY) > (a.bakeSeconds ?? Number.POSITIVE_INFINITY) ? i : a,
    );
    const worstPower = Math.min(...instances.map((i) => i.powerAtMax ?? 0));
    const noiseText = `${slowest.instance}: noise ${((slowest.sigma ?? 0) * 100).toFixed(1)}% at lag-1 autocorrelation ${(slowest.phi ?? 0).toFixed(2)}, ${(slowest.effective ?? 0).toFixed(0)} effective samples in ${length}`;
    if (slowest.bakeSeconds === null)
      return {
        ...est,
        outcome: "not-within-max" as const,
        bakeSeconds: null,
        powerAtMax: worstPower,
        message: `Wave ${w.index}: even the maximum bake of ${minutes(max)} decides ${effect} with only ${pct(worstPower)} power (${noiseText}): the baseline is too noisy for it; expect inconclusive, or raise bakeSeconds.`,
      };
    return {
      ...est,
      outcome: "decides" as const,
      bakeSeconds: slowest.bakeSeconds,
      powerAtMax: worstPower,
      message: `Wave ${w.index}: about ${minutes(slowest.bakeSeconds)} of bake to decide ${effect} with ${pct(ESTIMATE_POWER)} power (${noiseText}); maximum bake ${minutes(max)}.`,
    };
  });
}
