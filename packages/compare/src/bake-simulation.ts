/**
 * Simulated canary/control bakes for the time-to-a-verdict figures (tools/bake-bench.ts,
 * BENCHMARKS.md) and their unit test: a treated instance and its control at 15 s, each with its own
 * AR(1) noise on the log scale, both under a shared fleet-load factor, a baseline from history before
 * the change, then a bake judged by sequentialLook at every look of the schedule.
 */
import { createRng } from "./prng.js";
import { type LookSchedule, sequentialLook } from "./sequential.js";
import { sharedFactor, simulateSeries } from "./simulate.js";

export interface BakeScenario {
  readonly name: string;
  /** Multiplicative effect at the change (0.55 = −45%); 1 for A/A. */
  readonly effect: number;
  /** Whether lower is better (bytes per transaction) or higher (throughput). */
  readonly direction: "lower_is_better" | "higher_is_better";
  /** Per-instance marginal log-scale SD at the scrape step and its lag-1 coefficient. */
  readonly noise: { readonly sd: number; readonly phi: number };
  /** Shared fleet factor (what the control removes). */
  readonly shared: { readonly sd: number; readonly phi: number };
  readonly baselineSeconds: number;
  readonly step: number;
  readonly schedule: LookSchedule;
  readonly alpha: number;
}

export interface BakeRun {
  /** Bake seconds at the first decided look (the interval excludes no change); null if never. */
  readonly decidedAt: number | null;
  /** Whether the decision went the effect's way (always false for A/A: any decision is false). */
  readonly right: boolean;
}

/** One seeded bake: simulates the series, then looks until decided or the maximum bake. */
export function simulateBake(s: BakeScenario, seed: number): BakeRun {
  const rng = createRng(seed);
  const n = Math.floor((s.baselineSeconds + s.schedule.maxSeconds) / s.step);
  const changeAt = 1_800_000_000;
  const start = changeAt - s.baselineSeconds;
  const shared = sharedFactor(n, s.shared.sd, s.shared.phi, rng);
  const spec = { start, seconds: n * s.step, step: s.step, level: 1000, noise: s.noise, shared };
  const x = simulateSeries(spec, rng);
  const c = simulateSeries(spec, rng);
  for (let i = 0; i < x.t.length; i++) if (x.t[i]! >= changeAt) (x.v as number[])[i]! *= s.effect;
  const split = (w: { t: number[]; v: (number | null)[] }, end: number) => {
    const before = { t: [] as number[], v: [] as number[] };
    const after = { t: [] as number[], v: [] as number[] };
    for (let i = 0; i < w.t.length; i++) {
      const target = w.t[i]! < changeAt ? before : after;
      if (w.t[i]! < end) {
        target.t.push(w.t[i]!);
        target.v.push(w.v[i] as number);
      }
    }
    return { before, after };
  };
  const looks = Math.round(s.schedule.maxSeconds / s.schedule.lookEverySeconds);
  const xs = split(x, changeAt + s.schedule.maxSeconds);
  const cs = split(c, changeAt + s.schedule.maxSeconds);
  for (let k = 1; k <= looks; k++) {
    const end = changeAt + k * s.schedule.lookEverySeconds;
    const cut = (w: { t: number[]; v: number[] }) => {
      let m = 0;
      while (m < w.t.length && w.t[m]! < end) m++;
      return { t: w.t.slice(0, m), v: w.v.slice(0, m) };
    };
    const r = sequentialLook({
      treated: { before: xs.before, after: cut(xs.after) },
      controls: [{ id: "control", before: cs.before, after: cut(cs.after) }],
      step: s.step,
      alpha: s.alpha,
      schedule: s.schedule,
    });
    if (!r.ok) continue;
    const e = r.estimate;
    if (e.ciLow > 0 || e.ciHigh < 0) {
      const up = e.ciLow > 0;
      const right = s.effect !== 1 && up === s.effect > 1;
      return { decidedAt: k * s.schedule.lookEverySeconds, right };
    }
  }
  return { decidedAt: null, right: false };
}

export interface BakeSummary {
  readonly scenario: string;
  readonly replicates: number;
  /** Median bake seconds to a decision over all replicates (null when half or more never decided). */
  readonly medianDecidedSeconds: number | null;
  /** Share decided the right way by 5 minutes of bake and by the maximum bake (0 for A/A). */
  readonly powerAt5Min: number;
  readonly powerAtMax: number;
  /** Share decided at all (the false-positive rate for A/A) by the maximum bake. */
  readonly decidedShare: number;
  /** Decided the wrong way (a regression called on an improvement, or any decision on A/A). */
  readonly wrongShare: number;
}

/** Runs `replicates` seeded bakes of a scenario (seeds seed0, seed0 + 1, ...) and summarises them. */
export function runBakeScenario(s: BakeScenario, replicates: number, seed0 = 1): BakeSummary {
  const runs: BakeRun[] = [];
  for (let r = 0; r < replicates; r++) runs.push(simulateBake(s, seed0 + r));
  const times = runs.map((r) => r.decidedAt ?? Number.POSITIVE_INFINITY).sort((a, b) => a - b);
  const mid = times[Math.floor((times.length - 1) / 2)]!;
  const share = (f: (r: BakeRun) => boolean) => runs.filter(f).length / replicates;
  return {
    scenario: s.name,
    replicates,
    medianDecidedSeconds: Number.isFinite(mid) ? mid : null,
    powerAt5Min: share((r) => r.right && r.decidedAt !== null && r.decidedAt <= 300),
    powerAtMax: share((r) => r.right),
    decidedShare: share((r) => r.decidedAt !== null),
    wrongShare: share((r) => r.decidedAt !== null && !r.right),
  };
}

/** The benchmark's scenarios: effects and A/A at 4% and 10% noise, baseline and schedule as given. */
export function bakeScenarios(opts: {
  baselineSeconds: number;
  schedule: LookSchedule;
  phi?: number;
}): BakeScenario[] {
  const phi = opts.phi ?? 0.9;
  const out: BakeScenario[] = [];
  for (const sd of [0.04, 0.1]) {
    const pct = `${Math.round(sd * 100)}%`;
    const base = {
      noise: { sd, phi },
      shared: { sd: 0.05, phi: 0.95 },
      baselineSeconds: opts.baselineSeconds,
      step: 15,
      schedule: opts.schedule,
      alpha: 0.05,
    };
    out.push(
      { ...base, name: `bytes/trx −20%, noise ${pct}`, effect: 0.8, direction: "lower_is_better" },
      { ...base, name: `bytes/trx −45%, noise ${pct}`, effect: 0.55, direction: "lower_is_better" },
      { ...base, name: `throughput +20%, noise ${pct}`, effect: 1.2, direction: "higher_is_better" },
      { ...base, name: `A/A, noise ${pct}`, effect: 1, direction: "lower_is_better" },
    );
  }
  return out;
}
