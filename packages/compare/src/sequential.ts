/**
 * Sequential bake judgement: one treated series (and its controls) against a baseline read from the
 * history before the change, judged at every look the reconciler takes and decided as soon as the
 * interval allows, with the false-positive rate held over all the looks up to the maximum bake.
 *
 * Model. On the log scale, dₜ = log xₜ − mean over the controls of (log cₜ − their baseline mean of
 * log c) (without controls dₜ = log xₜ): whatever moves treated and controls alike cancels, and a
 * multiplicative effect is a shift of the level of d. d is taken as a level plus AR(1) noise at the
 * scrape step, with the same lag-1 coefficient φ and marginal SD σ before and after the change (a
 * multiplicative change moves the level, not the relative noise; a dispersion change is flagged).
 * φ and σ come from the baseline, which is long (an hour or more), so the after window needs no
 * blocks and no minimum count of its own: its mean is compared with the baseline's with
 * Var = σ²·(κₐ/nₐ + κ_b/n_b), κ the AR(1) design effect of each window's sample times
 * (Box and Jenkins 1976). The number of effective samples n/κ is what the checks ask for, derived
 * from φ; the degrees of freedom of σ̂ are the baseline's effective samples minus one.
 *
 * Looks. The reconciler judges every `lookEverySeconds` up to `maxSeconds` of bake. The critical
 * value c is the Pocock-type constant for those looks (Pocock 1977): P(max over looks |Zₖ| > c) = α
 * under no change, with Zₖ studentized by the same σ̂. The looks are strongly correlated (each after
 * window contains the previous one and all share the baseline), so c is well below the Bonferroni
 * z(1 − α/2K); it is computed by simulating the AR(1) looks with a fixed seed (deterministic for the
 * same baseline, cached), with σ̂'s uncertainty drawn as χ²/df (Wilson–Hilferty). At look k the
 * interval is d̄ₐ − d̄_b ± c·SE; it holds its level at every look, so stopping at the first decided
 * look keeps the false-positive rate at α.
 *
 * References: S. J. Pocock, "Group sequential methods in the design and analysis of clinical trials",
 * Biometrika 64 (1977); K. K. G. Lan, D. L. DeMets, "Discrete sequential boundaries for clinical
 * trials", Biometrika 70 (1983); E. B. Wilson, M. M. Hilferty, "The distribution of chi-square",
 * PNAS 17 (1931).
 */
import { createRng } from "./prng.js";
import { gaussian } from "./simulate.js";
import { ar1WeightedVariance } from "./stats/ar1-weighted-variance.js";
import { median } from "./stats/median.js";
import { normalCdf } from "./stats/normal-cdf.js";
import { normalQuantile } from "./stats/normal-quantile.js";

/** The reconciler's looks at a bake: one every `lookEverySeconds` of bake, the last at `maxSeconds`. */
export interface LookSchedule {
  readonly lookEverySeconds: number;
  readonly maxSeconds: number;
}

/** A window's usable samples (times in Unix seconds, values > 0 for the log scale). */
export interface TimedValues {
  readonly t: ArrayLike<number>;
  readonly v: ArrayLike<number>;
}

export interface SequentialInput {
  readonly treated: { readonly before: TimedValues; readonly after: TimedValues };
  readonly controls: readonly {
    readonly id: string;
    readonly before: TimedValues;
    readonly after: TimedValues;
  }[];
  /** Scrape step in seconds. */
  readonly step: number;
  readonly alpha: number;
  readonly schedule: LookSchedule;
}

/** Fewest effective samples in the baseline: below it σ̂ has fewer than 2 df and φ̂ is a guess. */
export const MIN_BASELINE_EFFECTIVE = 3;
/** Fewest after samples for a look (one minute at 15 s). */
export const MIN_AFTER_SAMPLES = 4;
/** Largest lag-1 coefficient used: beyond it the baseline holds too few independent pieces to know. */
export const MAX_PHI = 0.995;

export interface SequentialEstimate {
  /** log of the effect (after/before, ratio of geometric means; with controls the ratio of ratios). */
  readonly logRatio: number;
  readonly ciLow: number;
  readonly ciHigh: number;
  readonly logSe: number;
  /** Nominal two-sided p-value of this look (the decision uses the sequential critical value). */
  readonly pValue: number;
  readonly critical: number;
  readonly phi: number;
  readonly sigma: number;
  readonly effectiveBefore: number;
  readonly effectiveAfter: number;
  readonly nBefore: number;
  readonly nAfter: number;
  /** Controls kept (they share enough effective samples with the treated series). */
  readonly controls: string[];
  /** Whether this look is the last one (the after window reached the maximum bake). */
  readonly finalLook: boolean;
  readonly notes: string[];
}

export type SequentialOutcome =
  | { readonly ok: true; readonly estimate: SequentialEstimate; readonly controlsDropped?: string }
  | { readonly ok: false; readonly reason: string; readonly controlsDropped?: string };

/**
 * The log contrast d at the treated series' sample times (see the module comment); samples ≤ 0 are
 * dropped (no logarithm), and with controls only the times some control shares are kept.
 */
export function logContrast(
  x: TimedValues,
  controls: readonly { readonly level: number; readonly w: TimedValues }[],
): { t: Float64Array; d: Float64Array; dropped: number } {
  const maps = controls.map((c) => {
    const m = new Map<number, number>();
    for (let i = 0; i < c.w.t.length; i++) if (c.w.v[i]! > 0) m.set(c.w.t[i]!, Math.log(c.w.v[i]!) - c.level);
    return m;
  });
  const t: number[] = [];
  const d: number[] = [];
  let dropped = 0;
  for (let i = 0; i < x.t.length; i++) {
    const v = x.v[i]!;
    if (!(v > 0) || !Number.isFinite(v)) {
      dropped++;
      continue;
    }
    let sum = 0;
    let n = 0;
    for (const m of maps) {
      const c = m.get(x.t[i]!);
      if (c !== undefined) {
        sum += c;
        n++;
      }
    }
    if (maps.length > 0 && n === 0) continue;
    t.push(x.t[i]!);
    d.push(Math.log(v) - (n > 0 ? sum / n : 0));
  }
  return { t: Float64Array.from(t), d: Float64Array.from(d), dropped };
}

function meanLog(w: TimedValues): number {
  let s = 0;
  let n = 0;
  for (let i = 0; i < w.v.length; i++) {
    const v = w.v[i]!;
    if (v > 0 && Number.isFinite(v)) {
      s += Math.log(v);
      n++;
    }
  }
  return n > 0 ? s / n : Number.NaN;
}

function mean(a: Float64Array): number {
  let s = 0;
  for (let i = 0; i < a.length; i++) s += a[i]!;
  return s / a.length;
}

/** AR(1) design effect n·Var(mean)/σ² of samples at these times (gaps shorten the correlation). */
export function designEffectAt(t: ArrayLike<number>, step: number, phi: number): number {
  const n = t.length;
  if (n === 0) return 1;
  const positions = new Float64Array(n);
  for (let i = 0; i < n; i++) positions[i] = Math.round((t[i]! - t[0]!) / step);
  // ar1WeightedVariance clamps at 0.99; above that the exact closed form for a gapless run is used.
  if (phi > 0.99) return contiguousDesignEffect(n, phi);
  return n * ar1WeightedVariance(positions, new Float64Array(n).fill(1 / n), phi);
}

/** κ of the mean of n consecutive AR(1) samples: 1 + 2Σₖ(1 − k/n)φᵏ in closed form. */
export function contiguousDesignEffect(n: number, phi: number): number {
  if (n <= 1 || !(phi > 0)) return 1;
  const p = Math.min(phi, MAX_PHI);
  const pn = p ** n;
  return (1 + p) / (1 - p) - (2 * p * (1 - pn)) / (n * (1 - p) ** 2);
}

/**
 * φ and σ of the baseline residuals. φ: the lag-1 autocorrelation over pairs one step apart of the
 * residuals clipped at ±4 robust SDs (1.4826·MAD), so a stalled scrape neither passes for
 * independence nor costs the estimator the efficiency of the product moment (the MAD-based
 * Gnanadesikan–Kettenring estimator's standard error is about 1.7 times larger at one hour of 15 s
 * samples, which showed as too many baselines judged to hold under 5 effective samples).
 * Bias-corrected for centring by (1 + 3φ)/n (Marriott and Pope 1954).
 */
function baselineNoise(t: Float64Array, d: Float64Array, step: number) {
  const m = mean(d);
  const r = d.map((x) => x - m);
  const mad = 1.4826 * median(Float64Array.from(r, Math.abs));
  const clip = mad > 0 ? 4 * mad : Number.POSITIVE_INFINITY;
  const c = r.map((x) => Math.min(Math.max(x, -clip), clip));
  let num = 0;
  let pairs = 0;
  for (let i = 1; i < c.length; i++) {
    if (Math.abs(t[i]! - t[i - 1]! - step) <= step * 0.25) {
      num += c[i - 1]! * c[i]!;
      pairs++;
    }
  }
  let den = 0;
  for (let i = 0; i < c.length; i++) den += c[i]! * c[i]!;
  const raw = den > 0 && pairs > 0 ? num / pairs / (den / c.length) : 0;
  const phi = Math.min(Math.max(raw + (1 + 3 * Math.max(raw, 0)) / Math.max(pairs, 1), 0), MAX_PHI);
  const kappa = designEffectAt(t, step, phi);
  let ss = 0;
  for (let i = 0; i < r.length; i++) ss += r[i]! ** 2;
  // Under autocorrelation E[Σ(d − d̄)²] = σ²(n − κ).
  const sigma = Math.sqrt(ss / Math.max(d.length - kappa, 1));
  return { mean: m, phi, sigma, kappa, effective: d.length / kappa };
}

/** The baseline's noise as the sequential judgement reads it, or why it cannot be read. */
export type BaselineNoise =
  | {
      readonly ok: true;
      /** Lag-1 autocorrelation and marginal SD of the log contrast at the scrape step. */
      readonly phi: number;
      readonly sigma: number;
      readonly samples: number;
      readonly effective: number;
      /** Controls the contrast was formed with ([] = the treated series alone). */
      readonly controls: string[];
    }
  | { readonly ok: false; readonly reason: string; readonly samples: number };

/**
 * The noise of a baseline before any bake: what `sequentialLook` would read from it (the log contrast
 * against the controls when they share enough effective samples, else the treated series alone), for
 * a power calculation (`bakeSecondsNeeded`). Refuses, with the reason in words, where the baseline is
 * too short or shows no noise, as the judgement itself would.
 */
export function baselineNoiseOf(input: {
  readonly treated: TimedValues;
  readonly controls: readonly { readonly id: string; readonly before: TimedValues }[];
  readonly step: number;
}): BaselineNoise {
  const { step } = input;
  if (!(step > 0)) return { ok: false, reason: "no valid scrape step", samples: 0 };
  const kept = input.controls.filter((c) => Number.isFinite(meanLog(c.before)));
  const read = (controls: typeof kept) => {
    const d = logContrast(
      input.treated,
      controls.map((c) => ({ level: meanLog(c.before), w: c.before })),
    );
    return { d, noise: d.d.length >= 8 ? baselineNoise(d.t, d.d, step) : null };
  };
  let used = kept;
  let r = read(kept);
  if (kept.length > 0 && !(r.noise && r.noise.effective >= MIN_BASELINE_EFFECTIVE)) {
    used = [];
    r = read([]);
  }
  const n = r.d.d.length;
  if (!r.noise)
    return {
      ok: false,
      reason: `${n} usable baseline samples; at least 8 needed to read its noise`,
      samples: n,
    };
  if (r.noise.effective < MIN_BASELINE_EFFECTIVE)
    return {
      ok: false,
      reason: `the baseline holds ${r.noise.effective.toFixed(1)} effective samples (${n} samples at lag-1 autocorrelation ${r.noise.phi.toFixed(2)}); at least ${MIN_BASELINE_EFFECTIVE} needed`,
      samples: n,
    };
  if (!(r.noise.sigma > 0) || !Number.isFinite(r.noise.sigma))
    return { ok: false, reason: "the baseline shows no noise at all (a constant series)", samples: n };
  return {
    ok: true,
    phi: r.noise.phi,
    sigma: r.noise.sigma,
    samples: n,
    effective: r.noise.effective,
    controls: used.map((c) => c.id),
  };
}

/**
 * One look of the sequential bake judgement. Refuses (ok: false, with the reason in words) when the
 * baseline holds too few effective samples or the after window too few samples; controls that share
 * too few effective baseline samples with the treated series are dropped and the reason says so.
 */
export function sequentialLook(input: SequentialInput): SequentialOutcome {
  const { step, schedule } = input;
  if (!(step > 0) || !(schedule.lookEverySeconds > 0) || !(schedule.maxSeconds >= schedule.lookEverySeconds))
    return { ok: false, reason: "no valid scrape step or look schedule" };
  const alone = logContrast(input.treated.before, []);
  const aloneNoise = alone.d.length >= 8 ? baselineNoise(alone.t, alone.d, step) : null;
  let controlsDropped: string | undefined;
  let kept = input.controls.filter((c) => Number.isFinite(meanLog(c.before)));
  let before = alone;
  let after = logContrast(input.treated.after, []);
  if (kept.length > 0) {
    const levels = kept.map((c) => ({ level: meanLog(c.before) }));
    const b = logContrast(
      input.treated.before,
      kept.map((c, i) => ({ level: levels[i]!.level, w: c.before })),
    );
    const a = logContrast(
      input.treated.after,
      kept.map((c, i) => ({ level: levels[i]!.level, w: c.after })),
    );
    const noise = b.d.length >= 8 ? baselineNoise(b.t, b.d, step) : null;
    if (noise && noise.effective >= MIN_BASELINE_EFFECTIVE && a.d.length >= MIN_AFTER_SAMPLES) {
      before = b;
      after = a;
    } else {
      controlsDropped = `the controls share ${noise ? noise.effective.toFixed(1) : "under 8 samples, i.e. too few"} effective baseline samples and ${a.d.length} after samples with this instance (at least ${MIN_BASELINE_EFFECTIVE} and ${MIN_AFTER_SAMPLES} needed); judged before/after without them`;
      kept = [];
    }
  }
  const noise = kept.length > 0 ? baselineNoise(before.t, before.d, step) : aloneNoise;
  const refuse = (reason: string): SequentialOutcome => ({
    ok: false,
    reason,
    ...(controlsDropped ? { controlsDropped } : {}),
  });
  if (!noise || before.d.length < 8)
    return refuse(
      `${before.d.length} usable baseline samples${alone.dropped > 0 ? ` (${alone.dropped} at 0 or below left out: no logarithm)` : ""}; at least 8 needed to read its noise`,
    );
  if (noise.effective < MIN_BASELINE_EFFECTIVE)
    return refuse(
      `the baseline holds ${noise.effective.toFixed(1)} effective samples (${before.d.length} samples at lag-1 autocorrelation ${noise.phi.toFixed(2)}); at least ${MIN_BASELINE_EFFECTIVE} needed: a longer baseline from history decides`,
    );
  if (after.d.length < MIN_AFTER_SAMPLES)
    return refuse(
      `${after.d.length} usable samples in the bake so far; at least ${MIN_AFTER_SAMPLES} needed`,
    );
  if (!(noise.sigma > 0) || !Number.isFinite(noise.sigma))
    return refuse("the baseline shows no noise at all (a constant series): no interval can be formed");

  const kappaA = designEffectAt(after.t, step, noise.phi);
  const nB = before.d.length;
  const nA = after.d.length;
  const se = noise.sigma * Math.sqrt(kappaA / nA + noise.kappa / nB);
  const df = Math.max(noise.effective - 1, 1);
  const critical = pocockCritical({
    alpha: input.alpha,
    phi: noise.phi,
    baselineKappaOverN: noise.kappa / nB,
    samplesPerLook: schedule.lookEverySeconds / step,
    looks: Math.max(1, Math.round(schedule.maxSeconds / schedule.lookEverySeconds)),
    df,
  });
  const logRatio = mean(after.d) - noise.mean;
  const afterSeconds = nA > 0 ? after.t[nA - 1]! - after.t[0]! + step : 0;
  const notes: string[] = [];
  const dropped = alone.dropped + after.dropped;
  if (dropped > 0) notes.push(`${dropped} samples ≤ 0 left out (no logarithm)`);
  return {
    ok: true,
    ...(controlsDropped ? { controlsDropped } : {}),
    estimate: {
      logRatio,
      ciLow: logRatio - critical * se,
      ciHigh: logRatio + critical * se,
      logSe: se,
      pValue: 2 * (1 - normalCdf(Math.abs(logRatio) / se)),
      critical,
      phi: noise.phi,
      sigma: noise.sigma,
      effectiveBefore: noise.effective,
      effectiveAfter: nA / kappaA,
      nBefore: nB,
      nAfter: nA,
      controls: kept.map((c) => c.id),
      finalLook: afterSeconds >= schedule.maxSeconds - step / 2,
      notes,
    },
  };
}

interface CriticalInput {
  readonly alpha: number;
  readonly phi: number;
  /** κ_b/n_b of the baseline (its mean's variance in units of σ²). */
  readonly baselineKappaOverN: number;
  readonly samplesPerLook: number;
  readonly looks: number;
  readonly df: number;
}

/** Simulated paths behind each critical value: its Monte Carlo error in α is about ±0.003. */
export const CRITICAL_PATHS = 4000;
const criticalCache = new Map<string, number>();

/**
 * The Pocock-type constant c with P(maxₖ |Zₖ| > c) = α over the looks (module comment), by
 * simulation with a fixed seed. Never below the one-look t quantile's normal counterpart z(1 − α/2).
 */
export function pocockCritical(input: CriticalInput): number {
  const looks = Math.min(Math.max(1, Math.floor(input.looks)), 480);
  const m = Math.max(1, Math.round(input.samplesPerLook));
  const key = `${input.alpha}|${input.phi}|${input.baselineKappaOverN}|${m}|${looks}|${input.df}`;
  const hit = criticalCache.get(key);
  if (hit !== undefined) return hit;
  const rng = createRng(0x5eed + looks * 7919 + m);
  const phi = Math.min(Math.max(input.phi, 0), MAX_PHI);
  const innovation = Math.sqrt(1 - phi * phi);
  const seB = Math.sqrt(input.baselineKappaOverN);
  const ses = new Float64Array(looks);
  for (let k = 0; k < looks; k++) {
    const n = (k + 1) * m;
    ses[k] = Math.sqrt(contiguousDesignEffect(n, phi) / n + input.baselineKappaOverN);
  }
  const maxima = new Float64Array(CRITICAL_PATHS);
  const wh = 2 / (9 * input.df);
  for (let p = 0; p < CRITICAL_PATHS; p++) {
    const eb = seB * gaussian(rng);
    // σ̂²/σ² ~ χ²_df/df, Wilson–Hilferty.
    const chi = Math.max(1 - wh + gaussian(rng) * Math.sqrt(wh), 0.05) ** 3;
    const scale = 1 / Math.sqrt(chi);
    let e = gaussian(rng);
    let sum = 0;
    let max = 0;
    for (let k = 0, i = 0; k < looks; k++) {
      for (const end = (k + 1) * m; i < end; i++) {
        if (i > 0) e = phi * e + innovation * gaussian(rng);
        sum += e;
      }
      const z = Math.abs(sum / ((k + 1) * m) - eb) / ses[k]!;
      if (z > max) max = z;
    }
    maxima[p] = max * scale;
  }
  maxima.sort();
  const c = Math.max(
    maxima[Math.min(CRITICAL_PATHS - 1, Math.ceil((1 - input.alpha) * CRITICAL_PATHS))]!,
    normalQuantile(1 - input.alpha / 2),
  );
  if (criticalCache.size > 256) criticalCache.clear();
  criticalCache.set(key, c);
  return c;
}

export interface PowerInput {
  /** Marginal SD of the log contrast at the scrape step, and its lag-1 autocorrelation. */
  readonly sigma: number;
  readonly phi: number;
  readonly baselineSamples: number;
  readonly step: number;
  /** The expected effect as a ratio (0.55 = −45%). */
  readonly effect: number;
  readonly alpha: number;
  readonly schedule: LookSchedule;
  /** Wanted probability of a decided verdict; default 0.9. */
  readonly power?: number;
}

/**
 * How long a bake needs to decide an expected effect: the first look at which the power of that
 * look alone reaches `power` (the chance of having decided by then is at least that), from the
 * baseline's own noise. null when even the maximum bake falls short; `powerAtMax` says how far.
 */
export function bakeSecondsNeeded(input: PowerInput): { seconds: number | null; powerAtMax: number } {
  const want = input.power ?? 0.9;
  const phi = Math.min(Math.max(input.phi, 0), MAX_PHI);
  const nB = Math.max(1, Math.floor(input.baselineSamples));
  const kB = contiguousDesignEffect(nB, phi);
  const looks = Math.max(1, Math.round(input.schedule.maxSeconds / input.schedule.lookEverySeconds));
  const m = input.schedule.lookEverySeconds / input.step;
  const c = pocockCritical({
    alpha: input.alpha,
    phi,
    baselineKappaOverN: kB / nB,
    samplesPerLook: m,
    looks,
    df: Math.max(nB / kB - 1, 1),
  });
  const delta = Math.abs(Math.log(input.effect));
  let power = 0;
  for (let k = 1; k <= looks; k++) {
    const n = Math.round(k * m);
    const se = input.sigma * Math.sqrt(contiguousDesignEffect(n, phi) / n + kB / nB);
    power = normalCdf(delta / se - c);
    if (power >= want) return { seconds: k * input.schedule.lookEverySeconds, powerAtMax: power };
  }
  return { seconds: null, powerAtMax: power };
}
