import { type Blocks, chooseBlockSeconds, windowBlocks } from "./blocks.js";
import { estimateEffect } from "./estimate-effect.js";
import { lowerFromLog, ratioFromLog, upperFromLog } from "./format.js";
import type { Direction, MetricSpec, Options } from "./input.js";
import { judge } from "./judge.js";
import type { PreparedPair } from "./prepare-window.js";
import type { Rng } from "./prng.js";
import { qualityChecks } from "./quality-checks.js";
import { rawLag1 } from "./raw-lag1.js";
import type { Design, Flag, SeriesResult } from "./result.js";
import { seasonalStrata } from "./seasonal-strata.js";
import { sequentialLook } from "./sequential.js";
import { normalQuantile } from "./stats/normal-quantile.js";
import type { RatioStratum } from "./stats/ratio-cell.js";

export type { PreparedPair };

export interface SeriesAnalysisInput {
  readonly instance: string;
  readonly role: "treated" | "control";
  readonly metric: MetricSpec;
  readonly direction: Direction;
  readonly treated: PreparedPair;
  /** Controls with data for this metric; empty for a pure before/after comparison. */
  readonly controls: readonly ({ readonly id: string } & PreparedPair)[];
  /** Window lengths in seconds (for the automatic block length). */
  readonly windowSeconds: { readonly before: number; readonly after: number };
  readonly options: Options;
  readonly rng: Rng;
}

/**
 * Compares one metric of one instance between the windows: blocks, design (difference in
 * differences against the controls when they have enough paired blocks, else hour-matched or plain
 * before/after), the test, quality checks and the verdict.
 */
export function analyseSeries(input: SeriesAnalysisInput): SeriesResult {
  const { metric, options, treated } = input;
  const flags: Flag[] = [...treated.before.flags, ...treated.after.flags];
  const base = seriesBase(input);
  const none = noEstimate();
  if (treated.before.v.length === 0 || treated.after.v.length === 0)
    return noDataResult(treated, base, none, flags);
  if (options.sequential && metric.kind !== "workload") return sequentialResult(input, base, none, flags);
  if (treated.before.v.length < options.minSamples || treated.after.v.length < options.minSamples)
    return tooFewSamplesResult(input, base, none, flags);

  const step = seriesStep(treated);
  const blockSeconds = chooseBlockSeconds(
    options.blockSeconds,
    step,
    Math.min(input.windowSeconds.before, input.windowSeconds.after),
  );
  const { design, strata, controls } = blockDesign(input, blockSeconds, flags);
  const blocksBefore = strata.reduce((n, s) => n + s.before.x.length, 0);
  const blocksAfter = strata.reduce((n, s) => n + s.after.x.length, 0);
  const shape: BlockShape = { design, controls, blocksBefore, blocksAfter, blockSeconds };
  if (blocksBefore < options.minBlocks || blocksAfter < options.minBlocks)
    return tooFewBlocksResult(input, base, none, shape, flags);
  return zeroMeanResult(base, none, shape, flags) ?? blockTestResult(input, base, shape, strata, step, flags);
}

/** What every result of the series says, whatever was estimated. */
type SeriesBase = Omit<SeriesResult, keyof NoneShape | "verdict" | "flags">;

/** The blocks a block test ran on, and against which design. */
interface BlockShape {
  readonly design: Design;
  readonly controls: string[];
  readonly blocksBefore: number;
  readonly blocksAfter: number;
  readonly blockSeconds: number;
}

function seriesBase(input: SeriesAnalysisInput): SeriesBase {
  const { metric, treated } = input;
  return {
    instance: input.instance,
    role: input.role,
    metric: metric.id,
    kind: metric.kind,
    direction: input.direction,
    ...(metric.unit !== undefined ? { unit: metric.unit } : {}),
    meanBefore: meanOrNull(treated.before.v),
    meanAfter: meanOrNull(treated.after.v),
    nBefore: treated.before.v.length,
    nAfter: treated.after.v.length,
    carriesVerdict: input.role === "treated" && metric.kind !== "workload",
  };
}

/** The fields of a result without an estimate (a fresh object: results are updated later). */
function noEstimate(): NoneShape {
  return {
    ratio: null,
    ciLow: null,
    ciHigh: null,
    pValue: null,
    logSe: null,
    estimand: "none",
    method: "none",
    design: "none",
    controls: [],
    blocksBefore: 0,
    blocksAfter: 0,
    blockSeconds: null,
    autocorrelation: null,
  };
}

/** The coarser of the windows' scrape steps, 1 s where a window has too few samples to tell. */
function seriesStep(treated: PreparedPair): number {
  return Math.max(finiteOr(treated.before.step, 1), finiteOr(treated.after.step, 1));
}

/** A window without usable samples: no_data. */
function noDataResult(treated: PreparedPair, base: SeriesBase, none: NoneShape, flags: Flag[]): SeriesResult {
  const which =
    treated.before.v.length === 0
      ? treated.after.v.length === 0
        ? "either window"
        : "the before window"
      : "the after window";
  flags.push({ code: "no_data", severity: "error", message: `no usable samples in ${which}` });
  return { ...base, ...none, verdict: "no_data", flags };
}

/** Too few samples for a block test: the baseline-noise judgement where it applies, else inconclusive. */
function tooFewSamplesResult(
  input: SeriesAnalysisInput,
  base: SeriesBase,
  none: NoneShape,
  flags: Flag[],
): SeriesResult {
  const { treated, options } = input;
  const why = `${treated.before.v.length} before / ${treated.after.v.length} after usable samples; at least ${options.minSamples} needed in each for a block test`;
  const derived =
    input.metric.kind !== "workload" ? baselineNoiseResult(input, base, none, flags, why) : null;
  if (derived) return derived;
  flags.push({
    code: "too_little_data",
    severity: "warning",
    message: why.replace(" for a block test", ""),
  });
  return { ...base, ...none, verdict: "inconclusive", flags };
}

/**
 * The design and its strata of treated blocks: difference in differences when the controls share
 * enough blocks with the instance, else the same hours of day (seasonality "match") or all blocks.
 */
function blockDesign(
  input: SeriesAnalysisInput,
  blockSeconds: number,
  flags: Flag[],
): { readonly design: Design; readonly strata: RatioStratum[]; readonly controls: string[] } {
  const { options } = input;
  const tb = windowBlocks(input.treated.before, blockSeconds);
  const ta = windowBlocks(input.treated.after, blockSeconds);
  if (input.controls.length > 0) {
    const paired = pairWithControls(tb, ta, input.controls, blockSeconds);
    if (paired.before.x.length >= options.minBlocks && paired.after.x.length >= options.minBlocks)
      return { design: "difference-in-differences", strata: [paired], controls: paired.ids };
    flags.push({
      code: "control_missing",
      severity: "warning",
      message: `controls share only ${paired.before.x.length} before / ${paired.after.x.length} after blocks with this instance; compared before/after without them`,
    });
  }
  if (options.seasonality !== "match")
    return { design: "before-after", strata: [{ before: all(tb), after: all(ta) }], controls: [] };
  const s = seasonalStrata(
    tb.positions,
    ta.positions,
    blockSeconds,
    options.minBlocks,
    input.controls.length > 0,
  );
  flags.push(...s.flags);
  return {
    design: s.matched ? "matched-hours" : "before-after",
    strata: s.strata.map((st) => ({ before: pick(tb, st.before), after: pick(ta, st.after) })),
    controls: [],
  };
}

/**
 * Too few blocks: the baseline-noise judgement where it applies (without the design's own flags, which
 * it does not use), else inconclusive.
 */
function tooFewBlocksResult(
  input: SeriesAnalysisInput,
  base: SeriesBase,
  none: NoneShape,
  shape: BlockShape,
  flags: Flag[],
): SeriesResult {
  const { minBlocks } = input.options;
  const { blocksBefore, blocksAfter, blockSeconds } = shape;
  const why = `${blocksBefore} before / ${blocksAfter} after usable ${blockSeconds} s blocks; at least ${minBlocks} needed in each for a block test`;
  const derived =
    input.metric.kind !== "workload"
      ? baselineNoiseResult(
          input,
          base,
          none,
          flags.filter((f) => f.code !== "control_missing" && !f.code.startsWith("seasonality_")),
          why,
        )
      : null;
  if (derived) return derived;
  flags.push({
    code: "too_little_data",
    severity: "warning",
    message: `${blocksBefore} before / ${blocksAfter} after usable ${blockSeconds} s blocks; at least ${minBlocks} needed in each`,
  });
  return { ...base, ...none, ...shape, verdict: "inconclusive", flags };
}

/** A before mean of 0: unchanged when the after mean is 0 too, else inconclusive (no ratio); null otherwise. */
function zeroMeanResult(
  base: SeriesBase,
  none: NoneShape,
  shape: BlockShape,
  flags: Flag[],
): SeriesResult | null {
  const meanB = base.meanBefore ?? 0;
  const meanA = base.meanAfter ?? 0;
  if (meanB !== 0) return null;
  if (meanA === 0) {
    return {
      ...base,
      ...none,
      ...shape,
      ratio: 1,
      ciLow: 1,
      ciHigh: 1,
      pValue: 1,
      verdict: "unchanged",
      flags: [
        ...flags,
        { code: "zero_values", severity: "info", message: "the metric was 0 in both windows" },
      ],
    };
  }
  flags.push({
    code: "zero_baseline",
    severity: "warning",
    message: `the metric was 0 before and averaged ${meanA.toPrecision(3)} after: no ratio can be formed`,
  });
  return { ...base, ...none, ...shape, verdict: "inconclusive", flags };
}

/** The block test on the strata (estimateEffect), its quality checks and the verdict. */
function blockTestResult(
  input: SeriesAnalysisInput,
  base: SeriesBase,
  shape: BlockShape,
  strata: readonly RatioStratum[],
  step: number,
  flags: Flag[],
): SeriesResult {
  const { options } = input;
  const { blockSeconds } = shape;
  const lag1 = rawLag1(
    input.treated,
    shape.design === "difference-in-differences"
      ? input.controls.filter((c) => shape.controls.includes(c.id))
      : [],
  );
  const effect = estimateEffect(strata, input.metric.kind, options, input.rng, {
    lag1,
    samplesPerBlock: blockSeconds / step,
  });
  flags.push(...effect.flags, ...qualityChecks(strata, effect.rho, options.equivalenceMargin, blockSeconds));
  const finite = Number.isFinite(effect.logRatio);
  const verdict = judge({
    logRatio: effect.logRatio,
    ciLow: effect.ciLow,
    ciHigh: effect.ciHigh,
    significant: effect.ciLow > 0 || effect.ciHigh < 0,
    direction: input.direction,
    margin: options.equivalenceMargin,
  });
  return {
    ...base,
    ...shape,
    verdict,
    ratio: finite ? ratioFromLog(effect.logRatio) : null,
    // Below ÷1000 the lower limit is 0; above ×1000 the upper one is unbounded, null (JSON has no
    // Infinity, and a number like 4e+67 measures nothing).
    ciLow: finite ? lowerFromLog(effect.ciLow) : null,
    ciHigh: finite ? upperFromLog(effect.ciHigh) : null,
    pValue: effect.pValue,
    logSe: Number.isFinite(effect.logSe) ? effect.logSe : null,
    estimand: effect.estimand,
    method: effect.method,
    autocorrelation: effect.rho,
    flags,
  };
}

/**
 * Treated blocks paired with the mean of the controls' blocks at the same positions; each control is
 * first divided by its own before-window mean so a control missing a block does not shift the level.
 * Control blocks are kept with the control's windows (windowBlocks): every treated instance reuses them.
 */
function pairWithControls(
  tb: Blocks,
  ta: Blocks,
  controls: SeriesAnalysisInput["controls"],
  blockSeconds: number,
): RatioStratum & { ids: string[] } {
  const ids: string[] = [];
  const sumsBefore = new Float64Array(tb.positions.length);
  const sumsAfter = new Float64Array(ta.positions.length);
  const countsBefore = new Float64Array(tb.positions.length);
  const countsAfter = new Float64Array(ta.positions.length);
  for (const c of controls) {
    const cb = windowBlocks(c.before, blockSeconds);
    const ca = windowBlocks(c.after, blockSeconds);
    let scale = 0;
    for (let i = 0; i < cb.means.length; i++) scale += cb.means[i]!;
    scale /= cb.means.length;
    if (!(scale > 0) || ca.means.length === 0) continue;
    ids.push(c.id);
    addControlBlocks(tb.positions, cb, scale, sumsBefore, countsBefore);
    addControlBlocks(ta.positions, ca, scale, sumsAfter, countsAfter);
  }
  return {
    before: pairedSide(tb, sumsBefore, countsBefore),
    after: pairedSide(ta, sumsAfter, countsAfter),
    ids,
  };
}

/** Adds a control's scaled block means at the treated blocks' positions (both ascending). */
function addControlBlocks(
  positions: Float64Array,
  control: Blocks,
  scale: number,
  sums: Float64Array,
  counts: Float64Array,
): void {
  const cp = control.positions;
  const cm = control.means;
  let j = 0;
  for (let i = 0; i < positions.length; i++) {
    const p = positions[i]!;
    while (j < cp.length && cp[j]! < p) j++;
    if (j < cp.length && cp[j] === p) {
      sums[i]! += cm[j]! / scale;
      counts[i]! += 1;
    }
  }
}

/** The treated blocks some control shares, with the controls' mean there. */
function pairedSide(blocks: Blocks, sums: Float64Array, counts: Float64Array) {
  let m = 0;
  for (let i = 0; i < counts.length; i++) if (counts[i] !== 0) m++;
  const positions = new Float64Array(m);
  const x = new Float64Array(m);
  const c = new Float64Array(m);
  let k = 0;
  for (let i = 0; i < counts.length; i++) {
    const n = counts[i]!;
    if (n === 0) continue;
    positions[k] = blocks.positions[i]!;
    x[k] = blocks.means[i]!;
    c[k] = sums[i]! / n;
    k++;
  }
  return { positions, x, c };
}

function pick(blocks: Blocks, indices: readonly number[]) {
  const positions = new Float64Array(indices.length);
  const x = new Float64Array(indices.length);
  for (let k = 0; k < indices.length; k++) {
    const i = indices[k]!;
    positions[k] = blocks.positions[i]!;
    x[k] = blocks.means[i]!;
  }
  return { positions, x };
}

/** All the blocks, as copies (the blocks are shared through windowBlocks). */
function all(blocks: Blocks) {
  return { positions: blocks.positions.slice(), x: blocks.means.slice() };
}

function meanOrNull(v: Float64Array): number | null {
  if (v.length === 0) return null;
  let s = 0;
  for (let i = 0; i < v.length; i++) s += v[i]!;
  return s / v.length;
}

function finiteOr(x: number, fallback: number): number {
  return Number.isFinite(x) ? x : fallback;
}

/**
 * The sequential bake judgement of one series (options.sequential; sequential.ts): the before window
 * is the baseline from history, its noise stands for the after window's too, and the interval holds
 * alpha over every look of the schedule. Undecided at the last look is inconclusive, and the flag
 * says so: the maximum bake was reached.
 */
function sequentialResult(
  input: SeriesAnalysisInput,
  base: SeriesBase,
  none: NoneShape,
  flags: Flag[],
): SeriesResult {
  const { treated, options } = input;
  const schedule = options.sequential!;
  const step = seriesStep(treated);
  const r = sequentialLook({
    treated: { before: treated.before, after: treated.after },
    controls: input.controls,
    step,
    alpha: options.alpha,
    schedule,
  });
  if (r.controlsDropped)
    flags.push({ code: "control_missing", severity: "warning", message: r.controlsDropped });
  if (!r.ok) {
    flags.push({ code: "too_little_data", severity: "warning", message: r.reason });
    return { ...base, ...none, verdict: "inconclusive", flags };
  }
  const e = r.estimate;
  for (const note of e.notes) flags.push({ code: "zero_values", severity: "info", message: note });
  const verdict = judge({
    logRatio: e.logRatio,
    ciLow: e.ciLow,
    ciHigh: e.ciHigh,
    significant: e.ciLow > 0 || e.ciHigh < 0,
    direction: input.direction,
    margin: options.equivalenceMargin,
  });
  const looks = Math.max(1, Math.round(schedule.maxSeconds / schedule.lookEverySeconds));
  flags.push({
    code: "sequential",
    severity: "info",
    message: `sequential judgement: ${e.nBefore} baseline samples (${e.effectiveBefore.toFixed(1)} effective at lag-1 autocorrelation ${e.phi.toFixed(2)}), ${e.nAfter} in the bake (${e.effectiveAfter.toFixed(1)} effective); interval ±${e.critical.toFixed(2)} standard errors, holding ${Math.round((1 - options.alpha) * 100)}% over ${looks} look(s) up to ${Math.round(schedule.maxSeconds / 60)} min${e.finalLook && verdict === "inconclusive" ? "; the maximum bake is reached undecided" : ""}`,
  });
  const design: Design = e.controls.length > 0 ? "difference-in-differences" : "before-after";
  return {
    ...base,
    ...none,
    design,
    controls: e.controls,
    verdict,
    ratio: ratioFromLog(e.logRatio),
    ciLow: lowerFromLog(e.ciLow),
    ciHigh: upperFromLog(e.ciHigh),
    pValue: e.pValue,
    // The sequential interval's half-width in standard errors is `critical`, not z: pooling and the
    // simultaneous interval read the SE behind the interval, so the SE is scaled to match it.
    logSe: (e.logSe * e.critical) / normalQuantile(1 - options.alpha / 2),
    estimand: "geometric-mean-ratio",
    method: "sequential",
    autocorrelation: e.phi,
    flags,
  };
}

type NoneShape = {
  ratio: null;
  ciLow: null;
  ciHigh: null;
  pValue: null;
  logSe: null;
  estimand: "none";
  method: "none";
  design: "none";
  controls: string[];
  blocksBefore: number;
  blocksAfter: number;
  blockSeconds: null;
  autocorrelation: null;
};

/**
 * A comparison the block test refuses for too few blocks (a short window beside a long one, e.g. an
 * hour before and 5 minutes after), judged instead the way a bake is (sequential.ts) with a single
 * look: the longer window's own noise (its lag-1 autocorrelation φ and SD, of the log contrast against
 * the controls) stands for the shorter one's, so what is required is derived from how autocorrelated
 * the series is, effective samples n/κ, not a fixed count of fixed-length blocks. One look at level
 * alpha: the false-positive rate is the test's own. null when the longer window holds too few
 * effective samples either; the caller then keeps its refusal, and its reason says both.
 */
function baselineNoiseResult(
  input: SeriesAnalysisInput,
  base: SeriesBase,
  none: NoneShape,
  flags: Flag[],
  why: string,
): SeriesResult | null {
  const { treated, options } = input;
  const step = seriesStep(treated);
  // The longer window carries the noise; swapped, the effect is the inverse.
  const swap = treated.after.v.length > treated.before.v.length;
  const long = swap ? "after" : "before";
  const short = swap ? "before" : "after";
  const seconds = Math.max(treated[short].v.length * step, step);
  const r = sequentialLook({
    treated: { before: treated[long], after: treated[short] },
    controls: input.controls.map((c) => ({ id: c.id, before: c[long], after: c[short] })),
    step,
    alpha: options.alpha,
    schedule: { lookEverySeconds: seconds, maxSeconds: seconds },
  });
  if (!r.ok) return null;
  const out = [...flags];
  if (r.controlsDropped)
    out.push({ code: "control_missing", severity: "warning", message: r.controlsDropped });
  const e = r.estimate;
  for (const note of e.notes) out.push({ code: "zero_values", severity: "info", message: note });
  const logRatio = swap ? -e.logRatio : e.logRatio;
  const ciLow = swap ? -e.ciHigh : e.ciLow;
  const ciHigh = swap ? -e.ciLow : e.ciHigh;
  const verdict = judge({
    logRatio,
    ciLow,
    ciHigh,
    significant: ciLow > 0 || ciHigh < 0,
    direction: input.direction,
    margin: options.equivalenceMargin,
  });
  out.push({
    code: "baseline_noise",
    severity: "info",
    message: `${why}: judged against the ${long} window's own noise instead: ${e.nBefore} samples there (${e.effectiveBefore.toFixed(1)} effective at lag-1 autocorrelation ${e.phi.toFixed(2)}), ${e.nAfter} in the ${short} window (${e.effectiveAfter.toFixed(1)} effective); interval ±${e.critical.toFixed(2)} standard errors`,
  });
  return {
    ...base,
    ...none,
    design: e.controls.length > 0 ? "difference-in-differences" : "before-after",
    controls: e.controls,
    verdict,
    ratio: ratioFromLog(logRatio),
    ciLow: lowerFromLog(ciLow),
    ciHigh: upperFromLog(ciHigh),
    pValue: e.pValue,
    logSe: (e.logSe * e.critical) / normalQuantile(1 - options.alpha / 2),
    estimand: "geometric-mean-ratio",
    method: "baseline-noise",
    autocorrelation: e.phi,
    flags: out,
  };
}
