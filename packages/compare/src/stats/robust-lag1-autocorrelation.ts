import { madByBuckets } from "./median-by-buckets.js";

/**
 * Outlier-resistant lag-1 autocorrelation from pairs (xᵢ, yᵢ) = (value at t, value at t + step).
 *
 * Definition: with u = x + y and v = x − y, Var(u) = 2σ²(1 + ρ) and Var(v) = 2σ²(1 − ρ), so
 * ρ = (S(u)² − S(v)²) / (S(u)² + S(v)²) for any scale S; here S is the median absolute deviation, so an
 * isolated stall or spike (one scrape at a third of the level) does not drag ρ towards 0 the way it
 * drags the product-moment estimate.
 * Reference: R. Gnanadesikan and J. R. Kettenring, "Robust estimates, residuals, and outlier detection
 * with multiresponse data", Biometrics 28 (1972); P. J. Rousseeuw and C. Croux, "Alternatives to the
 * median absolute deviation", JASA 88 (1993) for the MAD.
 *
 * Degenerate input: NaN with fewer than 8 pairs or when both scales are 0.
 *
 * @example
 * robustLag1Autocorrelation([1, 2, 3, 4, 5, 6, 7, 8], [2, 3, 4, 5, 6, 7, 8, 9]); // 1 (v is constant)
 */
export function robustLag1Autocorrelation(x: ArrayLike<number>, y: ArrayLike<number>): number {
  const n = Math.min(x.length, y.length);
  if (n < 8) return Number.NaN;
  // Working arrays reused across calls (only the numbers derived from them are returned).
  if (scratchU.length < n) {
    scratchU = new Float64Array(n);
    scratchV = new Float64Array(n);
  }
  const u = scratchU.subarray(0, n);
  const v = scratchV.subarray(0, n);
  for (let i = 0; i < n; i++) {
    u[i] = x[i]! + y[i]!;
    v[i] = x[i]! - y[i]!;
  }
  return robustLag1FromSums(u, v);
}

let scratchU = new Float64Array(0);
let scratchV = new Float64Array(0);

/**
 * robustLag1Autocorrelation() from the sums uᵢ = xᵢ + yᵢ and differences vᵢ = xᵢ − yᵢ of the pairs,
 * for a caller that forms them as it finds the pairs; overwrites both arrays.
 *
 * @example
 * robustLag1FromSums(Float64Array.from([3, 5, 7, 9, 11, 13, 15, 17]), new Float64Array(8).fill(-1)); // 1
 */
export function robustLag1FromSums(u: Float64Array, v: Float64Array): number {
  const n = Math.min(u.length, v.length);
  if (n < 8) return Number.NaN;
  const su = madByBuckets(u.subarray(0, n));
  const sv = madByBuckets(v.subarray(0, n));
  const den = su * su + sv * sv;
  if (!(den > 0)) return Number.NaN;
  return (su * su - sv * sv) / den;
}
