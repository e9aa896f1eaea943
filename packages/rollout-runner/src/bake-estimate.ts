/**
 * The dry run's time to a verdict, fetched: per wave, the baseline of the metric the advisor expects
 * to move, read as the reconciler would read it at a bake starting now (baselineSeconds of history at
 * the scrape step, cut after restarts and settings changes, capped at Prometheus' earliest sample),
 * then `estimateBakes` of @untorn/rollout. A Prometheus (or replay) that cannot answer leaves the
 * estimate saying there is no baseline, with a warning; the plan itself never fails on it.
 */
import type { PromQueryApi } from "@untorn/fleet/api";
import {
  type BakeEstimate,
  estimateBakes,
  estimateTargets,
  type WaveBaseline,
} from "@untorn/rollout/bake-estimate";
import type { Plan } from "@untorn/rollout/plan";
import type { Policy } from "@untorn/rollout/policy";
import { fetchBake } from "./observe.js";

export interface PlanBaselineOptions {
  /** The plan's time, Unix seconds: the baseline ends here. */
  readonly now: number;
  /** rate() window of the series; default the sequential bake's (`BakeFetchOptions.window`). */
  readonly rateWindow?: string;
  /** Step of the series in seconds; default as the reconciler's sequential bake (at least 15 s). */
  readonly bakeStepSeconds?: number;
}

/** The baselines `estimateTargets` asks for, one range read per signal and wave. */
export async function fetchPlanBaselines(
  api: PromQueryApi,
  plan: Plan,
  policy: Policy,
  opts: PlanBaselineOptions,
): Promise<{ baselines: WaveBaseline[]; queries: number; warnings: string[] }> {
  const count = { n: 0 };
  const warnings: string[] = [];
  const before = { start: opts.now - policy.baselineSeconds, end: opts.now };
  const step = opts.bakeStepSeconds ?? Math.max(15, Math.ceil(policy.baselineSeconds / 11_000));
  const baselines = await Promise.all(
    estimateTargets(plan, policy).map(async (t): Promise<WaveBaseline | null> => {
      try {
        const s = await fetchBake(
          api,
          {
            wave: t.wave,
            instances: [
              ...t.instances.map((id) => ({ id, role: "treated" as const })),
              ...t.controls.map((id) => ({ id, role: "control" as const })),
            ],
            metrics: [{ metric: t.metric, kind: t.kind }],
            windows: { before, after: { start: opts.now, end: opts.now } },
            restarts: [],
            blockSeconds: policy.blockSeconds,
            sequential: {
              lookEverySeconds: policy.lookEverySeconds,
              maxSeconds: policy.bakeSeconds,
              warmupSeconds: policy.warmupSeconds,
            },
            signals: [],
          },
          { ...(opts.rateWindow ? { window: opts.rateWindow } : {}), stepSeconds: step },
          count,
          warnings,
        );
        const instances = s.instances.map((i) => {
          const b = i.series[t.metric]?.before;
          // fetchBake returns explicit {t, v} windows.
          const w = b && "t" in b ? b : { t: [] as number[], v: [] as (number | null)[] };
          const keep = w.t.flatMap((_ts: number, k: number) =>
            w.v[k] !== null && w.v[k] !== undefined ? [k] : [],
          );
          return {
            id: i.id,
            role: t.controls.includes(i.id) ? ("control" as const) : ("treated" as const),
            series: { t: keep.map((k) => w.t[k]!), v: keep.map((k) => w.v[k] as number) },
          };
        });
        return {
          wave: t.wave,
          metric: t.metric,
          step,
          window: s.windows.before,
          instances,
          notes: s.notes ?? [],
        };
      } catch (e) {
        warnings.push(
          `wave ${t.wave}: the baseline for the time-to-verdict estimate could not be read: ${(e as Error).message}`,
        );
        return null;
      }
    }),
  );
  return {
    baselines: baselines.filter((b): b is WaveBaseline => b !== null),
    queries: count.n,
    warnings: [...new Set(warnings)],
  };
}

/** `estimateBakes` over the baselines read from `api` at `opts.now`. */
export async function planBakeEstimates(
  api: PromQueryApi,
  plan: Plan,
  policy: Policy,
  opts: PlanBaselineOptions,
): Promise<{ estimates: BakeEstimate[]; warnings: string[] }> {
  const r = await fetchPlanBaselines(api, plan, policy, opts);
  return { estimates: estimateBakes(plan, policy, r.baselines), warnings: r.warnings };
}
