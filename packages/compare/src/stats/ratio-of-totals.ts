/**
 * Samples of a ratio metric (numerator ÷ denominator, e.g. InnoDB bytes written ÷ transactions)
 * rescaled so that the block means compare takes are ratios of totals. Within each block of
 * `blockSeconds` (block j covers [j·blockSeconds, (j+1)·blockSeconds), as compare aligns them):
 *
 *   v_i = n_i / d̄_j, with d̄_j the mean denominator of the block's samples,
 *
 * so the block mean Σv_i / k equals Σn_i / Σd_i, the ratio of the block's totals. The naive series
 * n_i / d_i gives the mean of per-sample ratios instead: biased upwards by denominator noise
 * (E[1/d] > 1/E[d], Jensen's inequality) and weighing a sample with few transactions as much as a busy
 * one, so a replica applying in bursts looks costlier than it is. The ratio of totals is the usual
 * estimator of a ratio metric (W. G. Cochran, Sampling Techniques, 3rd ed. (1977), chapter 6:
 * the ratio estimator R̂ = ȳ/x̄; Deng, Knoblich, Lu (2018), "Applying the Delta Method in Metric
 * Analytics", KDD: ratio metrics are ratios of sums over the analysis unit).
 *
 * Samples are matched by timestamp (a Prometheus range query puts both on the same grid); a sample
 * whose numerator or denominator is missing, and every sample of a block whose denominator total is
 * not above 0, is null (no data, never 0 or infinity).
 *
 * @example
 * // two 60 s blocks; in the first, 10 bytes over 1 + 4 transactions = 2 bytes per transaction
 * ratioOfTotals([0, 30, 60], [4, 6, 9], [0, 30, 60], [1, 4, 3], 60);
 * // { t: [0, 30, 60], v: [1.6, 2.4, 3] }: block means 2 (= 10 / 5) and 3 (= 9 / 3)
 */
export function ratioOfTotals(
  numeratorT: readonly number[],
  numeratorV: readonly (number | null)[],
  denominatorT: readonly number[],
  denominatorV: readonly (number | null)[],
  blockSeconds: number,
): { t: number[]; v: (number | null)[] } {
  if (!(Number.isFinite(blockSeconds) && blockSeconds > 0))
    throw new RangeError(`blockSeconds must be a positive number, got ${blockSeconds}`);
  const den = new Map<number, number>();
  denominatorT.forEach((t, i) => {
    const d = denominatorV[i];
    if (d !== null && d !== undefined && Number.isFinite(d)) den.set(t, d);
  });
  const t: number[] = [];
  const n: (number | null)[] = [];
  const d: (number | null)[] = [];
  numeratorT.forEach((ti, i) => {
    const ni = numeratorV[i];
    const di = den.get(ti);
    const both = ni !== null && ni !== undefined && Number.isFinite(ni) && di !== undefined;
    t.push(ti);
    n.push(both ? ni : null);
    d.push(both ? di! : null);
  });
  const sum = new Map<number, { d: number; k: number }>();
  t.forEach((ti, i) => {
    if (d[i] === null) return;
    const j = Math.floor(ti / blockSeconds);
    const s = sum.get(j) ?? { d: 0, k: 0 };
    s.d += d[i]!;
    s.k++;
    sum.set(j, s);
  });
  const v = t.map((ti, i) => {
    if (n[i] === null) return null;
    const s = sum.get(Math.floor(ti / blockSeconds))!;
    return s.d > 0 ? n[i]! / (s.d / s.k) : null;
  });
  return { t, v };
}
