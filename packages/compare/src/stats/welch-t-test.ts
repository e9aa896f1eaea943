import { studentTCdf } from "./student-t-cdf.js";

export interface WelchTTest {
  /** mean(a) − mean(b). */
  readonly difference: number;
  readonly se: number;
  readonly df: number;
  readonly pValue: number;
}

/**
 * Welch's unequal-variance two-sample t-test of mean(a) = mean(b).
 *
 * Definition: t = (ā − b̄)/√(s²ₐ/nₐ + s²_b/n_b) with Welch–Satterthwaite df
 * (s²ₐ/nₐ + s²_b/n_b)² / ((s²ₐ/nₐ)²/(nₐ−1) + (s²_b/n_b)²/(n_b−1)); two-sided p-value.
 * Reference: B. L. Welch, "The generalization of Student's problem when several different population
 * variances are involved", Biometrika 34 (1947).
 *
 * Degenerate input: p = 1 and NaN statistics when either sample has fewer than 2 values; with both
 * variances 0, p = 1 for equal means and 0 otherwise.
 *
 * @example
 * welchTTest([1, 2, 3, 4], [1, 2, 3, 4]).pValue; // 1
 * welchTTest([11, 12, 13, 14], [1, 2, 3, 4]).pValue < 0.001; // true
 */
export function welchTTest(a: ArrayLike<number>, b: ArrayLike<number>): WelchTTest {
  const na = a.length;
  const nb = b.length;
  if (na < 2 || nb < 2) return { difference: Number.NaN, se: Number.NaN, df: Number.NaN, pValue: 1 };
  const [ma, va] = meanVar(a);
  const [mb, vb] = meanVar(b);
  const difference = ma - mb;
  const qa = va / na;
  const qb = vb / nb;
  const se = Math.sqrt(qa + qb);
  if (!(se > 0)) return { difference, se: 0, df: Number.NaN, pValue: difference === 0 ? 1 : 0 };
  const df = (qa + qb) ** 2 / ((qa * qa) / (na - 1) + (qb * qb) / (nb - 1));
  return { difference, se, df, pValue: Math.min(1, 2 * (1 - studentTCdf(Math.abs(difference) / se, df))) };
}

function meanVar(x: ArrayLike<number>): [number, number] {
  let m = 0;
  for (let i = 0; i < x.length; i++) m += x[i]!;
  m /= x.length;
  let ss = 0;
  for (let i = 0; i < x.length; i++) ss += (x[i]! - m) ** 2;
  return [m, ss / (x.length - 1)];
}
