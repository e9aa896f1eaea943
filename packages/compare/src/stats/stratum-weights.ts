import type { RatioStratum } from "./ratio-cell.js";

/**
 * Direct-standardisation weights for a stratified comparison of two windows.
 *
 * Definition: stratum h gets wₕ = nₐ,ₕ n_b,ₕ / (nₐ,ₕ + n_b,ₕ) (proportional to the precision of the
 * difference of its two means), normalised to Σ wₕ = 1; both windows are then averaged with the same
 * weights, so an hour of day seen only in one window cannot bias the ratio.
 * Reference: W. G. Cochran, Sampling Techniques, 3rd ed. (1977), section 5A (optimum weights for a
 * stratified difference); direct standardisation as in epidemiology (Rothman, Modern Epidemiology).
 *
 * Degenerate input: strata with fewer than two blocks in either window get 0; all zeros when no stratum
 * qualifies.
 *
 * @example
 * stratumWeights([
 *   { before: { positions: [0, 1], x: [1, 1] }, after: { positions: [5, 6], x: [1, 1] } },
 *   { before: { positions: [2], x: [1] }, after: { positions: [7, 8], x: [1, 1] } },
 * ]); // [1, 0]
 */
export function stratumWeights(strata: readonly RatioStratum[]): number[] {
  const raw = strata.map((s) => {
    const na = s.after.x.length;
    const nb = s.before.x.length;
    return na >= 2 && nb >= 2 ? (na * nb) / (na + nb) : 0;
  });
  const sum = raw.reduce((a, b) => a + b, 0);
  return raw.map((w) => (sum > 0 ? w / sum : 0));
}
