/**
 * Window averages of rates for a server that started inside the window, read the same on Prometheus and
 * VictoriaMetrics: the rate over the time the server was observed (docs/scaling.md §2).
 *
 * For a series younger than the window, MetricsQL's rate() divides the increase by the time its samples
 * cover. Prometheus' rate() divides the increase, extrapolated by at most half a sample interval before the
 * first sample (or to where the counter would be 0, whichever is nearer), by the whole window
 * (`extrapolatedRate`, promql/functions.go). So on Prometheus:
 * - raw path, `rate(x[window])`: reads about observed ÷ window of the rate;
 * - recorded path, `avg_over_time` of a recorded `rate(x[rule window])`: each recorded rate younger than
 *   the rule window reads about its age ÷ rule window, so the average is low by about half a rule window's
 *   worth of the observed time.
 * Both are scaled back here from facts the profile already has (no query changes: a recorded replay
 * holds the queries' texts). VictoriaMetrics' readings are left as they are.
 */

export type RateSemantics = "prometheus" | "victoriametrics";

export interface CoverageInput {
  readonly windowSeconds: number;
  readonly stepSeconds: number;
  /** End of the window, Unix seconds. */
  readonly at: number;
  /** Subquery steps in the window (the quality query's `steps`). */
  readonly steps: number | undefined;
  /** Steps with an uptime sample (the quality query's `sampledSteps`). */
  readonly sampledSteps: number | undefined;
  /** The server's uptime at the end of the window (its newest sample). */
  readonly uptimeSeconds: number | undefined;
  /** Restarts seen in the window (uptime went down). */
  readonly restarts: number | undefined;
}

/**
 * Seconds at the end of the window in which a server that started inside it was observed; null when
 * the series are not known to be younger than the window.
 *
 * Young means: steps without samples, the uptime shorter than the window, and no restart (a restarted
 * server's series existed before; its uptime falls inside the window, its samples do not). A server older
 * than the window whose steps are missing is left alone: a gap in the middle of its window and series that
 * only start inside it (an exporter added later) give the same counts, and only the latter reads
 * differently on the two backends.
 *
 * The observed time is the uptime, unless the sampled steps say the samples started later than the server
 * (an exporter started after it): then it is the time from the first sampled step to the end, to within
 * half a step.
 */
export function observedSeconds(x: CoverageInput): number | null {
  const { steps, sampledSteps: sampled, uptimeSeconds: uptime } = x;
  if (steps === undefined || sampled === undefined || uptime === undefined) return null;
  if (!(steps > 0) || !(sampled > 0) || sampled >= steps) return null;
  if ((x.restarts ?? 0) > 0) return null;
  if (!(uptime > 0) || uptime >= x.windowSeconds) return null;
  const sinceLastStep = x.at - Math.floor(x.at / x.stepSeconds) * x.stepSeconds;
  const fromSteps = sinceLastStep + (sampled - 0.5) * x.stepSeconds;
  const observed = uptime <= fromSteps + x.stepSeconds ? uptime : fromSteps;
  return Math.min(observed, x.windowSeconds);
}

/**
 * Factor that turns the window average of a rate read on `semantics` into the rate over the observed
 * time. `path` "raw" is `rate(x[window])`; "recorded" is `avg_over_time` over `avgRangeSeconds` of a rate
 * recorded at `ruleWindowSeconds`. 1 on VictoriaMetrics, and wherever nothing is known.
 */
export function youngRateFactor(
  semantics: RateSemantics,
  path: "raw" | "recorded",
  observed: number | null,
  o: { readonly windowSeconds: number; readonly ruleWindowSeconds: number; readonly avgRangeSeconds: number },
): number {
  if (semantics !== "prometheus" || observed === null || !(observed > 0)) return 1;
  if (path === "raw") return Math.max(1, o.windowSeconds / observed);
  // A recorded rate of age τ (since the first sample) reads min(1, τ / R) of the rate; the average is over
  // the recorded samples of the last avgRange seconds.
  const R = o.ruleWindowSeconds;
  if (!(R > 0)) return 1;
  const F = (t: number) => (t <= R ? (t * t) / (2 * R) : t - R / 2);
  const from = Math.max(0, observed - o.avgRangeSeconds);
  const mean = (F(observed) - F(from)) / (observed - from);
  return mean > 0 ? 1 / mean : 1;
}
