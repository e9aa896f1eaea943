import type { PreparedPair } from "./analyse-series.js";
import { type Blocks, chooseBlockSeconds, windowBlocks } from "./blocks.js";
import { estimateEffect } from "./estimate-effect.js";
import { formatChange, lowerFromLog, ratioFromLog, upperFromLog } from "./format.js";
import type { MetricSpec, Options } from "./input.js";
import type { Rng } from "./prng.js";
import type { WorkloadCheck } from "./result.js";
import { seasonalStrata } from "./seasonal-strata.js";
import type { RatioStratum } from "./stats/ratio-cell.js";
import { totalVariationDistance } from "./stats/total-variation-distance.js";

/**
 * Statsig alerts on sample-ratio mismatch at p < 0.001 and warns at p < 0.01 (https://docs.statsig.com/experiments/monitor); a workload
 * shift needs the stricter of the usual levels plus a practical size before it sets throughput aside.
 */
const VOLUME_P = 0.01;

export interface WorkloadCheckInput {
  readonly instance: string;
  /** Workload-kind metrics (statement or transaction rates, same unit, parts of one mix). */
  readonly metrics: readonly MetricSpec[];
  readonly treated: ReadonlyMap<string, PreparedPair>;
  readonly controls: readonly { readonly id: string; readonly series: ReadonlyMap<string, PreparedPair> }[];
  readonly windowSeconds: { readonly before: number; readonly after: number };
  readonly options: Options;
  readonly rng: Rng;
}

/**
 * The SRM-like workload-parity check: did the offered load change between the windows (or, with
 * controls, relative to them)? Volume = sum of the workload metrics, compared like any ratio of means
 * (block-t, hour-matched or against controls); flagged when it moved more than the tolerance at
 * p < 0.01. Mix = shares of each workload metric; flagged when the total variation distance of the
 * shift (minus the controls' shift) exceeds the mix tolerance. Returns null without workload metrics.
 */
export function workloadCheck(input: WorkloadCheckInput): WorkloadCheck | null {
  const { options } = input;
  const ids = input.metrics
    .map((m) => m.id)
    .filter((id) => {
      const p = input.treated.get(id);
      return p !== undefined && p.before.v.length > 0 && p.after.v.length > 0;
    });
  if (ids.length === 0) return null;
  const steps = ids.flatMap((id) => [input.treated.get(id)!.before.step, input.treated.get(id)!.after.step]);
  const step = Math.max(...steps.filter(Number.isFinite), 1);
  const bs = chooseBlockSeconds(
    options.blockSeconds,
    step,
    Math.min(input.windowSeconds.before, input.windowSeconds.after),
  );

  const treated = summed(ids, input.treated, bs);
  const reasons: string[] = [];
  const controlSums = input.controls
    .map((c) => summed(ids, c.series, bs))
    .filter((c) => c.before.means.length > 0 && c.after.means.length > 0);

  let strata: RatioStratum[];
  let pairedWithControls = false;
  if (controlSums.length > 0) {
    const paired = pairNormalised(treated, controlSums);
    if (paired.before.x.length >= options.minBlocks && paired.after.x.length >= options.minBlocks) {
      strata = [paired];
      pairedWithControls = true;
    } else {
      strata = plainStrata(treated, bs, options);
    }
  } else {
    strata = plainStrata(treated, bs, options);
  }

  const effect = estimateEffect(strata, "workload", { ...options, method: "block-t" }, input.rng);
  const finite = Number.isFinite(effect.logRatio);
  let flagged = false;
  if (
    finite &&
    Math.abs(effect.logRatio) > Math.log1p(options.workloadVolumeTolerance) &&
    effect.pValue < VOLUME_P
  ) {
    flagged = true;
    reasons.push(
      `workload volume changed ${signedPct(effect.logRatio)}${pairedWithControls ? " relative to the controls" : ""} (p = ${effect.pValue.toPrecision(2)}), beyond the ±${Math.round(options.workloadVolumeTolerance * 100)}% tolerance`,
    );
  }

  let mixDistance: number | null = null;
  if (ids.length >= 2) {
    const shift = (pair: { before: number[]; after: number[] }) =>
      shares(pair.after).map((s, i) => s - shares(pair.before)[i]!);
    const t = shift(treated.mix);
    let d: number[] = t;
    if (pairedWithControls) {
      const cs = controlSums.map((c) => shift(c.mix));
      const mean = t.map((_, i) => cs.reduce((acc, c) => acc + c[i]!, 0) / cs.length);
      d = t.map((v, i) => v - mean[i]!);
    }
    // ½ Σ |Δshare| is the total variation distance between the two mixes (the controls' shift removed).
    const valid = Number.isFinite(totalVariationDistance(treated.mix.before, treated.mix.after));
    mixDistance = valid ? d.reduce((acc, v) => acc + Math.abs(v), 0) / 2 : null;
    if (mixDistance !== null && mixDistance > options.workloadMixTolerance) {
      flagged = true;
      reasons.push(
        `workload mix shifted by ${(mixDistance * 100).toFixed(1)} percentage points (total variation distance${pairedWithControls ? ", relative to the controls" : ""}), beyond ${Math.round(options.workloadMixTolerance * 100)}`,
      );
    }
  }
  return {
    instance: input.instance,
    metrics: ids,
    volumeRatio: finite ? ratioFromLog(effect.logRatio) : null,
    volumeCiLow: finite && Number.isFinite(effect.ciLow) ? lowerFromLog(effect.ciLow) : null,
    volumeCiHigh: finite ? upperFromLog(effect.ciHigh) : null,
    volumePValue: finite ? effect.pValue : null,
    mixDistance,
    flagged,
    reasons,
  };
}

interface Summed {
  readonly before: Blocks;
  readonly after: Blocks;
  /** Mean of each metric over the summed blocks, per window (mix). */
  readonly mix: { before: number[]; after: number[] };
}

/** Sum of the workload metrics per block, over blocks where every metric has data. */
function summed(ids: readonly string[], series: ReadonlyMap<string, PreparedPair>, bs: number): Summed {
  const side = (which: "before" | "after") => {
    const perMetric = ids.map((id) => {
      const w = series.get(id)?.[which];
      return w ? windowBlocks(w, bs) : undefined;
    });
    // Block positions ascend in every metric: walk them together (a merge) instead of keyed lookups.
    const k = perMetric.length;
    const cursor = new Int32Array(k);
    const first = perMetric[0];
    const positions: number[] = [];
    const means: number[] = [];
    const totals = ids.map(() => 0);
    const picked = new Float64Array(k);
    const n0 = perMetric.every((b) => b !== undefined) ? (first?.positions.length ?? 0) : 0;
    for (let i = 0; i < n0; i++) {
      const p = first!.positions[i]!;
      let everywhere = true;
      for (let m = 0; m < k; m++) {
        const b = perMetric[m]!;
        let j = m === 0 ? i : cursor[m]!;
        while (j < b.positions.length && b.positions[j]! < p) j++;
        cursor[m] = j;
        if (j >= b.positions.length || b.positions[j] !== p) {
          everywhere = false;
          break;
        }
        picked[m] = b.means[j]!;
      }
      if (!everywhere) continue;
      let s = 0;
      for (let m = 0; m < k; m++) {
        s += picked[m]!;
        totals[m]! += picked[m]!;
      }
      positions.push(p);
      means.push(s);
    }
    const blocks: Blocks = {
      positions: Float64Array.from(positions),
      means: Float64Array.from(means),
      counts: new Int32Array(positions.length).fill(1),
    };
    return { blocks, mix: totals.map((t) => (positions.length > 0 ? t / positions.length : 0)) };
  };
  const b = side("before");
  const a = side("after");
  return { before: b.blocks, after: a.blocks, mix: { before: b.mix, after: a.mix } };
}

function pairNormalised(treated: Summed, controls: readonly Summed[]): RatioStratum {
  const side = (which: "before" | "after") => {
    const acc = new Map<number, { sum: number; n: number }>();
    for (const c of controls) {
      let scale = 0;
      for (const m of c.before.means) scale += m;
      scale /= c.before.means.length;
      if (!(scale > 0)) continue;
      const blocks = c[which];
      blocks.positions.forEach((p, i) => {
        const slot = acc.get(p) ?? { sum: 0, n: 0 };
        slot.sum += blocks.means[i]! / scale;
        slot.n++;
        acc.set(p, slot);
      });
    }
    const t = treated[which];
    const positions: number[] = [];
    const x: number[] = [];
    const c: number[] = [];
    t.positions.forEach((p, i) => {
      const slot = acc.get(p);
      if (!slot) return;
      positions.push(p);
      x.push(t.means[i]!);
      c.push(slot.sum / slot.n);
    });
    return { positions: Float64Array.from(positions), x: Float64Array.from(x), c: Float64Array.from(c) };
  };
  return { before: side("before"), after: side("after") };
}

function plainStrata(treated: Summed, bs: number, options: Options): RatioStratum[] {
  const pick = (b: Blocks, idx: readonly number[]) => {
    const positions = new Float64Array(idx.length);
    const x = new Float64Array(idx.length);
    for (let k = 0; k < idx.length; k++) {
      positions[k] = b.positions[idx[k]!]!;
      x[k] = b.means[idx[k]!]!;
    }
    return { positions, x };
  };
  if (options.seasonality === "match") {
    const s = seasonalStrata(treated.before.positions, treated.after.positions, bs, options.minBlocks);
    return s.strata.map((st) => ({
      before: pick(treated.before, st.before),
      after: pick(treated.after, st.after),
    }));
  }
  const all = (b: Blocks) => Array.from({ length: b.positions.length }, (_, i) => i);
  return [
    { before: pick(treated.before, all(treated.before)), after: pick(treated.after, all(treated.after)) },
  ];
}

function shares(values: readonly number[]): number[] {
  const s = values.reduce((a, b) => a + b, 0);
  return values.map((v) => (s > 0 ? v / s : 0));
}

function signedPct(logRatio: number): string {
  return formatChange(ratioFromLog(logRatio));
}
