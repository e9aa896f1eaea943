/** Block means of one window: the unit every test in this package works on. */
export interface Blocks {
  /** Block number floor(t / blockSeconds), ascending; equal numbers across instances mean the same time. */
  readonly positions: Float64Array;
  readonly means: Float64Array;
  readonly counts: Int32Array;
}

/**
 * A block needs at least this share of its expected samples; a block half-empty from a gap or a
 * window edge would weigh as much as a full one with twice the noise.
 */
export const MIN_BLOCK_COVERAGE = 0.5;

/**
 * Averages samples into fixed, absolutely aligned blocks of `blockSeconds` (block j covers
 * [j·blockSeconds, (j+1)·blockSeconds)), so blocks of different instances line up for pairing.
 * Blocks with fewer than MIN_BLOCK_COVERAGE of the expected samples (blockSeconds / step) are dropped.
 */
export function aggregateBlocks(
  t: ArrayLike<number>,
  v: ArrayLike<number>,
  blockSeconds: number,
  step: number,
): Blocks {
  const expected = Number.isFinite(step) && step > 0 ? blockSeconds / step : 1;
  const needed = Math.max(1, Math.ceil(MIN_BLOCK_COVERAGE * expected - 1e-9));
  // At most one block per sample: the working arrays, then a copy of the blocks kept.
  if (scratch.positions.length < t.length) {
    scratch.positions = new Float64Array(t.length);
    scratch.means = new Float64Array(t.length);
    scratch.counts = new Int32Array(t.length);
  }
  const { positions, means, counts } = scratch;
  let blocks = 0;
  let current = Number.NaN;
  let sum = 0;
  let count = 0;
  for (let i = 0; i < t.length; i++) {
    const j = Math.floor(t[i]! / blockSeconds);
    if (j !== current) {
      if (count >= needed) {
        positions[blocks] = current;
        means[blocks] = sum / count;
        counts[blocks] = count;
        blocks++;
      }
      current = j;
      sum = 0;
      count = 0;
    }
    sum += v[i]!;
    count++;
  }
  if (count >= needed) {
    positions[blocks] = current;
    means[blocks] = sum / count;
    counts[blocks] = count;
    blocks++;
  }
  return {
    positions: positions.slice(0, blocks),
    means: means.slice(0, blocks),
    counts: counts.slice(0, blocks),
  };
}

const scratch = { positions: new Float64Array(0), means: new Float64Array(0), counts: new Int32Array(0) };

/** A window's samples as aggregateBlocks takes them (a PreparedWindow). */
export interface BlockSource {
  readonly t: Float64Array;
  readonly v: Float64Array;
  readonly step: number;
}

/**
 * aggregateBlocks of a window, kept with the window (weakly) for the next caller with the same block
 * length: a control's blocks serve every treated instance, a workload series' the series result and
 * the workload check. The blocks returned are shared: read them, do not write.
 */
export function windowBlocks(w: BlockSource, blockSeconds: number): Blocks {
  let byLength = blockCache.get(w);
  if (!byLength) {
    byLength = new Map();
    blockCache.set(w, byLength);
  }
  let b = byLength.get(blockSeconds);
  if (!b) {
    b = aggregateBlocks(w.t, w.v, blockSeconds, w.step);
    byLength.set(blockSeconds, b);
  }
  return b;
}

const blockCache = new WeakMap<BlockSource, Map<number, Blocks>>();

/** Block lengths tried by blockSeconds "auto", longest first (60 s to 5 min). */
export const AUTO_BLOCK_SECONDS = [300, 120, 60] as const;
/** auto wants at least this many blocks per window so the within-window variance has some df. */
export const AUTO_MIN_BLOCKS = 12;

/**
 * Picks the block length: a fixed value is used as given (but never shorter than the scrape step);
 * "auto" takes the longest of 300, 120, 60 s that leaves AUTO_MIN_BLOCKS blocks in the shorter window.
 * Long blocks average out short-range autocorrelation; short windows need shorter blocks to have any.
 */
export function chooseBlockSeconds(
  option: number | "auto",
  step: number,
  shortestWindowSeconds: number,
): number {
  const floor = Number.isFinite(step) && step > 0 ? step : 1;
  if (option !== "auto") return Math.max(option, floor);
  for (const candidate of AUTO_BLOCK_SECONDS) {
    if (candidate >= floor && shortestWindowSeconds / candidate >= AUTO_MIN_BLOCKS) return candidate;
  }
  return Math.max(60, floor);
}
