/**
 * Total variation distance between two discrete distributions given as non-negative weights
 * (normalised here), e.g. the statement mix before and after a change.
 *
 * Definition: TV(p, q) = ½ Σᵢ |pᵢ − qᵢ| with pᵢ = aᵢ/Σa, qᵢ = bᵢ/Σb; 0 for identical shares, 1 for
 * disjoint support. The largest difference in probability the two mixes give to any set of categories.
 * Reference: D. A. Levin, Y. Peres, E. L. Wilmer, Markov Chains and Mixing Times (2009), section 4.1.
 *
 * Degenerate input: NaN when either side sums to 0 or a weight is negative or not finite; the shorter
 * array is padded with zeros.
 *
 * @example
 * totalVariationDistance([50, 50], [60, 40]); // 0.1
 * totalVariationDistance([1, 0], [0, 1]); // 1
 */
export function totalVariationDistance(a: readonly number[], b: readonly number[]): number {
  const n = Math.max(a.length, b.length);
  let sa = 0;
  let sb = 0;
  for (let i = 0; i < n; i++) {
    const x = a[i] ?? 0;
    const y = b[i] ?? 0;
    if (!(x >= 0) || !(y >= 0) || !Number.isFinite(x) || !Number.isFinite(y)) return Number.NaN;
    sa += x;
    sb += y;
  }
  if (!(sa > 0) || !(sb > 0)) return Number.NaN;
  let d = 0;
  for (let i = 0; i < n; i++) d += Math.abs((a[i] ?? 0) / sa - (b[i] ?? 0) / sb);
  return d / 2;
}
