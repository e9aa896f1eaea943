/**
 * The one rule for a rate() window, shared by the fleet's facts and charts, the CLI's compare and the
 * dashboards' resolved `$__rate_interval`:
 *
 *   window = max(2 × step, 4 × scrape interval), at most the span the values cover (when one is given)
 *
 * - 4 scrape intervals: rate() needs two samples in its window, and a window of 4 still has them after a
 *   missed scrape or two (Grafana's `$__rate_interval` has the same floor:
 *   https://grafana.com/blog/2020/09/28/new-in-grafana-7.2-__rate_interval-for-prometheus-rate-queries-that-just-work/).
 * - 2 steps: consecutive points' windows overlap, so no sample between two points is skipped.
 * - At most the span: a per-step rate inside a window does not reach back before the window.
 */
/** Scrape interval assumed where none is given: the example Prometheus config's, and the demo stack's. */
export const SCRAPE_INTERVAL_SECONDS = 15;

export interface RateWindowOptions {
  /** Seconds the values cover (a facts window, a chart range); the window is never longer. */
  readonly spanSeconds?: number;
  readonly scrapeIntervalSeconds?: number;
}

/** The rate() window, in seconds, for values `stepSeconds` apart. */
export function rateWindowSeconds(stepSeconds: number, opts: RateWindowOptions = {}): number {
  if (!(stepSeconds > 0)) throw new RangeError(`step must be longer than 0 s, got ${stepSeconds}`);
  const scrape = opts.scrapeIntervalSeconds ?? SCRAPE_INTERVAL_SECONDS;
  if (!(scrape > 0)) throw new RangeError(`scrape interval must be longer than 0 s, got ${scrape}`);
  const w = Math.max(2 * stepSeconds, 4 * scrape);
  return opts.spanSeconds === undefined ? w : Math.min(opts.spanSeconds, w);
}
