import type { Flag } from "./result.js";

/** Seconds per stratum: hour of day (daily seasonality of OLTP load follows the clock hour). */
export const STRATUM_SECONDS = 3600;
const DAY = 86_400;

export interface BlockStrata {
  /** Per stratum: indices into the before and after block arrays, in time order. */
  readonly strata: { readonly before: number[]; readonly after: number[] }[];
  readonly matched: boolean;
  readonly flags: Flag[];
}

/**
 * Groups blocks by hour of day for a pure before/after comparison (no control), keeping only the
 * hours present in both windows with at least two blocks each, so a window that covers the nightly
 * trough is never compared with one that covers the daytime peak. Whole-day windows keep every hour.
 * When fewer than `minBlocks` blocks remain in either window the hours cannot be matched: one stratum
 * of all blocks is returned with a warning. Hours are UTC-based; any fixed time-zone offset shifts
 * both windows alike (daylight-saving changes inside a window are not modelled).
 */
export function seasonalStrata(
  before: ArrayLike<number>,
  after: ArrayLike<number>,
  blockSeconds: number,
  minBlocks: number,
  /** Controls were given (but could not be paired): do not advise adding one. */
  controlsGiven = false,
): BlockStrata {
  const hourOf = (position: number) =>
    Math.floor((((((position + 0.5) * blockSeconds) % DAY) + DAY) % DAY) / STRATUM_SECONDS);
  const byHour = new Map<number, { before: number[]; after: number[] }>();
  const slot = (h: number) => {
    let s = byHour.get(h);
    if (!s) {
      s = { before: [], after: [] };
      byHour.set(h, s);
    }
    return s;
  };
  for (let i = 0; i < before.length; i++) slot(hourOf(before[i]!)).before.push(i);
  for (let i = 0; i < after.length; i++) slot(hourOf(after[i]!)).after.push(i);
  const strata = [...byHour.entries()]
    .sort((a, b) => a[0] - b[0])
    .map(([, s]) => s)
    .filter((s) => s.before.length >= 2 && s.after.length >= 2);
  const keptBefore = strata.reduce((n, s) => n + s.before.length, 0);
  const keptAfter = strata.reduce((n, s) => n + s.after.length, 0);
  if (keptBefore < minBlocks || keptAfter < minBlocks) {
    return {
      strata: [
        {
          before: Array.from({ length: before.length }, (_, i) => i),
          after: Array.from({ length: after.length }, (_, i) => i),
        },
      ],
      matched: false,
      flags: [
        {
          code: "seasonality_unmatched",
          severity: "warning",
          message: `the windows cover different hours of day, so daily load seasonality may bias this before/after comparison; use windows at the same hours (or whole days)${controlsGiven ? "" : " or a control instance"}`,
        },
      ],
    };
  }
  const flags: Flag[] = [];
  const droppedBefore = before.length - keptBefore;
  const droppedAfter = after.length - keptAfter;
  if (droppedBefore > 0 || droppedAfter > 0) {
    flags.push({
      code: "seasonality_matched",
      severity: "info",
      message: `compared only the ${strata.length} hour(s) of day present in both windows; left out ${pct(droppedBefore, before.length)} of before and ${pct(droppedAfter, after.length)} of after blocks`,
    });
  }
  return { strata, matched: true, flags };
}

function pct(part: number, whole: number): string {
  return `${whole > 0 ? Math.round((100 * part) / whole) : 0}%`;
}
