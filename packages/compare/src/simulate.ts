import type { ExplicitWindow } from "./input.js";
import type { Rng } from "./prng.js";

export interface SimulationSpec {
  /** First sample time, Unix seconds. */
  readonly start: number;
  /** Window length in seconds. */
  readonly seconds: number;
  /** Scrape interval in seconds (15 s is the usual Prometheus setting). */
  readonly step: number;
  /** Mean level (a rate or gauge) without seasonality and effect. */
  readonly level: number;
  /** Multiplicative AR(1) noise: marginal log-scale SD and lag-1 coefficient at the scrape step. */
  readonly noise?: { readonly sd: number; readonly phi: number };
  /** Daily sinusoid: relative amplitude and the UTC hour of the peak. */
  readonly seasonality?: { readonly amplitude: number; readonly peakHour: number };
  /** Multiplicative effect (1.2 = +20%). */
  readonly effect?: number;
  /** Shared factor per sample (same length as the sample grid), e.g. fleet-wide load. */
  readonly shared?: ArrayLike<number>;
  /** Share of samples multiplied by `scale` (spikes > 1, stalls < 1). */
  readonly outliers?: { readonly rate: number; readonly scale: number };
  /** Gaps: number of gaps and their length in seconds, placed at random. */
  readonly gaps?: { readonly count: number; readonly seconds: number };
  /** Emit a cumulative counter (starting at `counterStart`) instead of the rate. */
  readonly counter?: boolean;
  readonly counterStart?: number;
  /** Times at which the counter restarts from 0 (counter only). */
  readonly resets?: readonly number[];
}

/**
 * Synthetic metric series with known properties, for tests, calibration and benchmarks: level ×
 * effect × daily seasonality × shared factor × exp(AR(1) noise − σ²/2) (mean-preserving lognormal),
 * then outliers, gaps, and optionally integration into a counter with resets. All randomness comes
 * from `rng`.
 */
export function simulateSeries(spec: SimulationSpec, rng: Rng): ExplicitWindow {
  const n = Math.floor(spec.seconds / spec.step);
  const sd = spec.noise?.sd ?? 0;
  const phi = spec.noise?.phi ?? 0;
  const innovation = sd * Math.sqrt(1 - phi * phi);
  let e = sd * gaussian(rng);
  const missing = new Uint8Array(n);
  for (let g = 0; g < (spec.gaps?.count ?? 0); g++) {
    const len = Math.ceil((spec.gaps?.seconds ?? 0) / spec.step);
    const at = Math.floor(rng.next() * Math.max(n - len, 1));
    missing.fill(1, at, Math.min(at + len, n));
  }
  const t: number[] = [];
  const v: number[] = [];
  let counter = spec.counterStart ?? 1e6;
  const resets = [...(spec.resets ?? [])].sort((a, b) => a - b);
  let nextReset = 0;
  for (let i = 0; i < n; i++) {
    const time = spec.start + i * spec.step;
    if (i > 0) e = phi * e + innovation * gaussian(rng);
    let value = spec.level * (spec.effect ?? 1) * Math.exp(e - (sd * sd) / 2);
    if (spec.seasonality) {
      const hour = (((time % 86_400) + 86_400) % 86_400) / 3600;
      value *=
        1 + spec.seasonality.amplitude * Math.cos((2 * Math.PI * (hour - spec.seasonality.peakHour)) / 24);
    }
    if (spec.shared) value *= spec.shared[i] ?? 1;
    if (spec.outliers && rng.next() < spec.outliers.rate) value *= spec.outliers.scale;
    if (spec.counter) {
      counter += value * spec.step;
      while (nextReset < resets.length && resets[nextReset]! <= time) {
        counter = value * spec.step * rng.next();
        nextReset++;
      }
    }
    if (missing[i]) continue;
    t.push(time);
    v.push(spec.counter ? Math.round(counter) : value);
  }
  return { t, v };
}

/** Standard normal draw (Box–Muller). */
export function gaussian(rng: Rng): number {
  let u = rng.next();
  while (u === 0) u = rng.next();
  return Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rng.next());
}

/** A shared multiplicative AR(1) factor (exp of a mean-zero AR(1), mean 1) for `n` samples. */
export function sharedFactor(n: number, sd: number, phi: number, rng: Rng): Float64Array {
  const out = new Float64Array(n);
  let e = sd * gaussian(rng);
  const innovation = sd * Math.sqrt(1 - phi * phi);
  for (let i = 0; i < n; i++) {
    if (i > 0) e = phi * e + innovation * gaussian(rng);
    out[i] = Math.exp(e - (sd * sd) / 2);
  }
  return out;
}
