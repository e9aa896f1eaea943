import type { Direction } from "./input.js";
import type { Verdict } from "./result.js";

export interface JudgeInput {
  /** ln(ratio) and its CI on the log scale. */
  readonly logRatio: number;
  readonly ciLow: number;
  readonly ciHigh: number;
  /** Whether the change is statistically significant (CI excludes 0, or an adjusted p < alpha). */
  readonly significant: boolean;
  readonly direction: Direction;
  /** Relative equivalence margin m: changes within [1/(1+m), 1+m] count as no change. */
  readonly margin: number;
}

/**
 * Verdict for one effect, Kayenta-like but with an equivalence band (two one-sided tests):
 * - significant and the estimate beyond the margin: improved or regressed by direction (or changed
 *   for neutral metrics);
 * - the whole CI inside the margin: unchanged (equivalence shown), also when significant but smaller
 *   than the margin;
 * - otherwise inconclusive: the data cannot tell a change from no change of that size.
 * Reference: D. J. Schuirmann, "A comparison of the two one-sided tests procedure and the power
 * approach for assessing the equivalence of average bioavailability", J. Pharmacokin. Biopharm. 15
 * (1987).
 */
export function judge(input: JudgeInput): Verdict {
  const { logRatio, ciLow, ciHigh, significant, direction, margin } = input;
  if (!Number.isFinite(logRatio)) return "inconclusive";
  const band = Math.log1p(margin);
  if (significant && Math.abs(logRatio) >= band) {
    if (direction === "neutral") return "changed";
    const better = direction === "higher_is_better" ? logRatio > 0 : logRatio < 0;
    return better ? "improved" : "regressed";
  }
  if (ciLow >= -band && ciHigh <= band) return "unchanged";
  if (significant && Math.abs(logRatio) < band) return "unchanged";
  return "inconclusive";
}
