export interface LinearTrend {
  /** Least-squares slope of y on x. */
  readonly slope: number;
  /** Standard error of the slope assuming independent residuals. */
  readonly se: number;
  readonly n: number;
}

/**
 * Ordinary least-squares slope of y on x with its (independent-errors) standard error.
 *
 * Definition: b = Σ(x − x̄)(y − ȳ) / Σ(x − x̄)²; SE(b) = √(Σ eᵢ² / (n − 2) / Σ(x − x̄)²).
 * Reference: any regression text, e.g. N. R. Draper and H. Smith, Applied Regression Analysis, 3rd ed.
 * (1998), chapter 1.
 *
 * Degenerate input: slope NaN for fewer than 2 points or constant x; SE NaN for fewer than 3 points.
 *
 * @example
 * linearTrend([0, 1, 2, 3], [1, 3, 5, 7]); // { slope: 2, se: 0, n: 4 }
 */
export function linearTrend(x: ArrayLike<number>, y: ArrayLike<number>): LinearTrend {
  const n = Math.min(x.length, y.length);
  if (n < 2) return { slope: Number.NaN, se: Number.NaN, n };
  let mx = 0;
  let my = 0;
  for (let i = 0; i < n; i++) {
    mx += x[i]!;
    my += y[i]!;
  }
  mx /= n;
  my /= n;
  let sxx = 0;
  let sxy = 0;
  for (let i = 0; i < n; i++) {
    sxx += (x[i]! - mx) ** 2;
    sxy += (x[i]! - mx) * (y[i]! - my);
  }
  if (!(sxx > 0)) return { slope: Number.NaN, se: Number.NaN, n };
  const slope = sxy / sxx;
  if (n < 3) return { slope, se: Number.NaN, n };
  let sse = 0;
  for (let i = 0; i < n; i++) sse += (y[i]! - my - slope * (x[i]! - mx)) ** 2;
  return { slope, se: Math.sqrt(sse / (n - 2) / sxx), n };
}
