/**
 * Replication catch-up, judged on its own: does a changed replica apply faster while it lags?
 *
 * A replica that lags applies as fast as it can, so its commit rate while lagging is its apply
 * capacity; one that keeps up applies at its primary's rate, whatever its capacity. Comparing whole
 * windows mixes the two (and a catch-up burst followed by a steady part is a trend inside the window,
 * which compare rightly leaves unbounded). So the judgement keeps only the samples where the changed
 * replica or its control lagged by more than `lagThresholdSeconds`, and compares the changed
 * replica's apply rate over those samples with the control's at the same moments, after vs before
 * the change (difference in differences through @untorn/compare). Where neither lagged long enough
 * during the bake it is "not-applicable": shown, never a pass and never a fail.
 *
 * The apply rate is the catalog's `transactions_per_second` (Com_commit + Com_rollback), which on a
 * replica counts what its applier commits (docs/rollout.md, "Judging a replica"); the lag is
 * `replication_lag_seconds` (Seconds_Behind_Source / Seconds_Behind_Master).
 */

import { compare } from "@untorn/compare/compare";
import { formatChange, formatInterval } from "@untorn/compare/format";
import {
  ComparisonInput,
  type SeriesPair,
  sampleTime,
  toValueWindow,
  type Window,
} from "@untorn/compare/input";
import type { MetricSummary } from "@untorn/compare/result";
import type { CatchUpJudgement, GateOutcome, LagSummary } from "./events.js";
import type { BakeSeries } from "./observations.js";
import type { JudgedMetric, Policy } from "./policy.js";

/** Catalog signal ids (packages/catalog/src/signals.ts) the catch-up judgement reads per instance. */
export const CATCH_UP_SIGNALS = {
  lag: "replication_lag_seconds",
  applyRate: "transactions_per_second",
} as const;

/** The derived metric compare judges: the apply rate over the samples where a replica lagged. */
export const CATCH_UP_METRIC = "apply_rate_while_lagging";

export interface CatchUpInput {
  readonly seed: number;
  readonly treated: readonly string[];
  readonly controls: readonly string[];
  /** Whether the wave's changed instances are replicas (a wave of primaries has nothing to catch up). */
  readonly replicas: boolean;
  readonly policy: Policy;
  readonly series: BakeSeries;
}

interface Samples {
  readonly t: number[];
  readonly v: (number | null)[];
}

function samplesOf(window: Window | undefined): Samples {
  if (!window) return { t: [], v: [] };
  const w = toValueWindow(window);
  const t: number[] = [];
  for (let i = 0; i < w.v.length; i++) t.push(sampleTime(w, i));
  return { t, v: [...w.v] };
}

/** Median spacing of a window's samples (its step); 0 for fewer than two. */
function stepOf(t: readonly number[]): number {
  if (t.length < 2) return 0;
  const d = t
    .slice(1)
    .map((x, i) => x - t[i]!)
    .filter((x) => x > 0)
    .sort((a, b) => a - b);
  return d.length === 0 ? 0 : d[Math.floor(d.length / 2)]!;
}

const mean = (xs: readonly number[]) => (xs.length === 0 ? null : xs.reduce((a, b) => a + b, 0) / xs.length);

/** Over the compare kind's direction: the apply rate is a throughput, higher is better. */
export function catchUpMetric(policy: Policy): JudgedMetric {
  return {
    metric: CATCH_UP_METRIC,
    kind: "throughput",
    role: policy.catchUp.role,
    margin: policy.catchUp.margin,
    expect: "increase",
    minChange: policy.catchUp.minChange,
  };
}

type Which = "before" | "after";

type Judge = (
  m: JudgedMetric,
  s: MetricSummary | undefined,
) => {
  outcome: GateOutcome;
  criterion: string;
  ratio: number | null;
  ciLow: number | null;
  ciHigh: number | null;
  verdict: string;
};

/** The lag and apply-rate series of the input, by instance and window, and what is read from them. */
function seriesReader(input: CatchUpInput) {
  const thr = input.policy.catchUp.lagThresholdSeconds;
  const byId = new Map(input.series.instances.map((i) => [i.id, i]));
  const pair = (id: string, signal: string): SeriesPair | undefined => byId.get(id)?.series[signal];
  const lagOf = (id: string, w: Which) => samplesOf(pair(id, CATCH_UP_SIGNALS.lag)?.[w]);
  const rateOf = (id: string, w: Which) => samplesOf(pair(id, CATCH_UP_SIGNALS.applyRate)?.[w]);
  /** Sample times where this instance's lag is above the threshold. */
  const laggingTimes = (id: string, w: Which): number[] => {
    const s = lagOf(id, w);
    return s.t.filter((_, i) => (s.v[i] ?? Number.NEGATIVE_INFINITY) > thr);
  };
  const summary = (id: string, w: Which, mask: ReadonlySet<number>): LagSummary => {
    const s = lagOf(id, w);
    const readings = s.v.map((v, i) => [s.t[i]!, v] as const).filter((x) => x[1] !== null) as [
      number,
      number,
    ][];
    const r = rateOf(id, w);
    const rates = r.t.flatMap((t, i) => (mask.has(t) && r.v[i] !== null ? [r.v[i]!] : []));
    return {
      samples: readings.length,
      laggingSeconds: laggingTimes(id, w).length * stepOf(s.t),
      maxSeconds: readings.length ? Math.max(...readings.map((x) => x[1])) : null,
      firstSeconds: readings[0]?.[1] ?? null,
      lastSeconds: readings.at(-1)?.[1] ?? null,
      applyRateWhileLagging: mean(rates),
    };
  };
  /** The apply rate at the masked (lagging) times only. */
  const masked = (id: string, w: Which, mask: ReadonlySet<number>) => {
    const r = rateOf(id, w);
    const keep = r.t.map((t, i) => mask.has(t) && r.v[i] !== null);
    return { t: r.t.filter((_, i) => keep[i]), v: r.v.filter((_, i) => keep[i]) };
  };
  return { byId, laggingTimes, summary, masked, restarts: (id: string) => byId.get(id)?.restarts ?? [] };
}

type Reader = ReturnType<typeof seriesReader>;
type Masks = Record<Which, ReadonlySet<number>>;

/** compare's input for the apply rate while lagging: the treated replica against its controls. */
function applyRateComparison(
  input: CatchUpInput,
  read: Reader,
  id: string,
  controls: string[],
  masks: Masks,
) {
  const { policy } = input;
  return ComparisonInput.safeParse({
    seed: input.seed,
    windows: input.series.windows,
    metrics: [{ id: CATCH_UP_METRIC, kind: "throughput", unit: "transactions/s" }],
    instances: [id, ...controls].map((x) => ({
      id: x,
      role: x === id ? "treated" : "control",
      series: {
        [CATCH_UP_METRIC]: {
          before: read.masked(x, "before", masks.before),
          after: read.masked(x, "after", masks.after),
        },
      },
      ...(read.restarts(x).length ? { restarts: read.restarts(x) } : {}),
    })),
    options: {
      alpha: policy.alpha,
      minSamples: policy.minSamples,
      minBlocks: policy.minBlocks,
      blockSeconds: policy.blockSeconds,
      warmupSeconds: policy.warmupSeconds,
    },
  });
}

function criterionOf(metric: JudgedMetric, cfg: Policy["catchUp"]): string {
  if (metric.role === "informative") return "informative only";
  return metric.role === "guardrail"
    ? `apply rate while lagging not lower by more than ${Math.round(cfg.margin * 1000) / 10}%`
    : `apply rate while lagging higher by at least ${Math.round(cfg.minChange * 1000) / 10}% (significant)`;
}

/** The judgement of one changed replica of the wave. */
function judgeReplica(input: CatchUpInput, read: Reader, id: string, judge: Judge): CatchUpJudgement {
  const cfg = input.policy.catchUp;
  const thr = cfg.lagThresholdSeconds;
  const metric = catchUpMetric(input.policy);
  const controls = input.controls.filter((c) => read.byId.has(c));
  const mask = (w: Which) => new Set([id, ...controls].flatMap((x) => read.laggingTimes(x, w)));
  const masks: Masks = { before: mask("before"), after: mask("after") };
  const lag = [
    ...[id].map((x) => ({ instance: x, role: "treated" as const })),
    ...controls.map((x) => ({ instance: x, role: "control" as const })),
  ].map((x) => ({
    ...x,
    before: read.summary(x.instance, "before", masks.before),
    after: read.summary(x.instance, "after", masks.after),
  }));
  const base = {
    instance: id,
    role: metric.role,
    thresholdSeconds: thr,
    ratio: null,
    ciLow: null,
    ciHigh: null,
    verdict: "not_applicable",
    lag,
  };
  const criterion = criterionOf(metric, cfg);
  const na = (message: string): CatchUpJudgement => ({
    ...base,
    outcome: "not-applicable",
    criterion: "applies only where the replica or its control lagged during the bake",
    message,
  });
  const noData = (message: string): CatchUpJudgement => ({
    ...base,
    verdict: "no_data",
    outcome: "no-data",
    criterion,
    message,
  });
  if (!input.replicas) return na(`${id} is not a replica: there is no replication to catch up.`);
  const treatedLag = lag[0]!;
  if (treatedLag.after.samples === 0)
    return noData(
      `No replication lag of ${id} during the bake: whether it lagged is unknown (never a pass).`,
    );
  const laggedLongest = Math.max(...lag.map((x) => x.after.laggingSeconds));
  if (laggedLongest < Math.max(cfg.minLaggingSeconds, 1e-9))
    return na(
      `Neither ${[id, ...controls].join(" nor ")} lagged more than ${thr} s for ${cfg.minLaggingSeconds} s during the bake (longest ${laggedLongest} s): nothing to catch up.`,
    );
  if (masks.before.size === 0)
    return {
      ...base,
      verdict: "inconclusive",
      outcome: "inconclusive",
      criterion,
      message: `${id} or its control lagged during the bake but neither did before the change: no apply rate while lagging to compare with (a restart leaves a backlog too).`,
    };
  const parsed = applyRateComparison(input, read, id, controls, masks);
  if (!parsed.success)
    return noData(
      `No comparison of the apply rate: ${parsed.error.issues.map((i) => i.message).join("; ")}.`,
    );
  const result = compare(parsed.data);
  const j = judge(
    metric,
    result.metrics.find((s) => s.metric === CATCH_UP_METRIC),
  );
  const rates = (w: Which) =>
    `${treatedLag[w].applyRateWhileLagging?.toFixed(0) ?? "–"} vs ${lag
      .slice(1)
      .map((c) => c[w].applyRateWhileLagging?.toFixed(0) ?? "–")
      .join(", ")} tx/s`;
  const change =
    j.ratio === null ? "no estimate" : `${formatChange(j.ratio)} ${formatInterval(j.ciLow, j.ciHigh)}`;
  return {
    ...base,
    outcome: j.outcome,
    criterion: j.criterion,
    ratio: j.ratio,
    ciLow: j.ciLow,
    ciHigh: j.ciHigh,
    verdict: j.verdict,
    message: `Apply rate while lagging (> ${thr} s), ${id} vs control: before ${rates("before")}, during the bake ${rates("after")}; change ${change} (${j.verdict}).`,
  };
}

/**
 * One judgement per changed replica of the wave. `judge` maps compare's summary to an outcome by role
 * (the bake gate's judgeMetric), passed in so this module does not import the gates.
 */
export function judgeCatchUp(input: CatchUpInput, judge: Judge): CatchUpJudgement[] {
  const read = seriesReader(input);
  return input.treated.map((id) => judgeReplica(input, read, id, judge));
}
