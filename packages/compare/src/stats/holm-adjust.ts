/**
 * Holm's step-down adjustment of p-values for multiple comparisons (controls the family-wise error
 * rate without assuming independence).
 *
 * Definition: sort p ascending as p₍₁₎ ≤ … ≤ p₍ₘ₎; adjusted p₍ᵢ₎ = maxⱼ≤ᵢ min(1, (m − j + 1) p₍ⱼ₎),
 * returned in the input order. Rejecting where adjusted p < α is Holm's procedure.
 * Reference: S. Holm, "A simple sequentially rejective multiple test procedure", Scand. J. Statist. 6
 * (1979).
 *
 * Degenerate input: [] for []; NaN p-values are treated as 1.
 *
 * @example
 * holmAdjust([0.01, 0.04, 0.03]); // [0.03, 0.06, 0.06]
 */
export function holmAdjust(pValues: readonly number[]): number[] {
  const m = pValues.length;
  const order = pValues.map((_, i) => i).sort((a, b) => clean(pValues[a]) - clean(pValues[b]));
  const adjusted = new Array<number>(m).fill(1);
  let running = 0;
  order.forEach((idx, rank) => {
    running = Math.max(running, Math.min(1, (m - rank) * clean(pValues[idx])));
    adjusted[idx] = running;
  });
  return adjusted;
}

function clean(p: number | undefined): number {
  return p !== undefined && p >= 0 && p <= 1 ? p : 1;
}
