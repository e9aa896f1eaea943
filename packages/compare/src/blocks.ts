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
  const positions: number[] = [];
  const means: number[] = [];
  const counts: number[] = [];
  let current = Number.NaN;
  let sum = 0;
  let count = 0;
  const flush = () => {
    if (count >= needed) {
      positions.push(current);
      means.push(sum / count);
      counts.push(count);
    }
  };
  for (let i = 0; i < t.length; i++) {
    const j = Math.floor(t[i]! / blockSeconds);
    if (j !== current) {
      if (count > 0) flush();
      current = j;
      sum = 0;
      count = 0;
    }
    sum += v[i]!;
    count++;
  }
  if (count > 0) flush();
  return {
    positions: Float64Array.from(positions),
    means: Float64Array.from(means),
    counts: Int32Array.from(counts),
  };
}

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
