/**
 * Reconciling against a recording (`untorn record`'s replay file) instead of a live Prometheus. A replay
 * answers only the query texts it recorded (and, for a subset of instances, the fleet-wide ones: see
 * @untorn/fleet/replay), so the reconciler asks the way the recording did: the facts with the
 * recording's window, step, statistics and source, the read-backs and bake series with its charts'
 * rate window and step. What a recording did not capture (the lab's replication threads, say) reads as
 * no data, never as healthy or as a pass, the same as a series nothing reports: the pre-wave gate then
 * says "No replication data", a bake "no data" for that metric.
 */
import type { MatrixSeries, PromQueryApi, QueryAnswer, VectorSample } from "@untorn/fleet/api";
import { type ReplayMeta, ReplayMissError, replayFactsOptions } from "@untorn/fleet/replay";
import type { ObserveOptions } from "./observe.js";

/** Said once per pass when a gate asked for something the recording does not hold. */
export const NOT_RECORDED_WARNING =
  "the recording does not hold every series a gate reads: those read as no data (never as a pass)";

/**
 * The replay as the reconciler reads it: a query the recording cannot answer (not even from its
 * fleet-wide answers) reads as no series, with NOT_RECORDED_WARNING, so a gate decides "no data" for it
 * instead of the whole pass failing on one series the lab did not record (e.g. the replication threads).
 */
export function recordedOrEmpty(api: PromQueryApi): PromQueryApi {
  const empty = <T>(err: unknown): QueryAnswer<T[]> => {
    if (!(err instanceof ReplayMissError)) throw err;
    return { data: [], warnings: [NOT_RECORDED_WARNING] };
  };
  return {
    queryVector: (expr, opts): Promise<QueryAnswer<VectorSample[]>> =>
      api.queryVector(expr, opts).catch((e: unknown) => empty<VectorSample>(e)),
    queryRange: (expr, opts): Promise<QueryAnswer<MatrixSeries[]>> =>
      api.queryRange(expr, opts).catch((e: unknown) => empty<MatrixSeries>(e)),
    ...(api.defaultTime ? { defaultTime: () => api.defaultTime!() } : {}),
  };
}

export interface ReplayReconcileOptions {
  readonly api: PromQueryApi;
  readonly factsOptions: NonNullable<ObserveOptions["factsOptions"]>;
  readonly rateWindow: string;
  readonly bakeStepSeconds?: number;
}

/** The reconcile options that read the recording `replay` (described by `meta`) with the query texts it holds. */
export function replayReconcileOptions(replay: PromQueryApi, meta: ReplayMeta): ReplayReconcileOptions {
  const { at: _at, selector: _selector, ...facts } = replayFactsOptions(meta);
  return {
    api: recordedOrEmpty(replay),
    factsOptions: facts,
    rateWindow: meta.plan.rateWindow,
    ...(meta.charts ? { bakeStepSeconds: meta.charts.step } : {}),
  };
}
