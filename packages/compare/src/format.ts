/**
 * Bounded effects and their text. Effects are estimated on the log scale; a ratio comes back as
 * exp of a difference of logs, and an interval side beyond ×1000 (or below ÷1000) is reported as
 * unbounded (null above, 0 below) instead of a number like 4.1e+67: past that a before/after
 * comparison measures nothing (a ratio a thousand times off is a broken metric, a zero baseline or a
 * unit change) and no text should pretend otherwise. Nothing here returns NaN or Infinity.
 */

/** Largest |log ratio| reported as a number: ×1000 either way. */
export const MAX_LOG_RATIO = Math.log(1000);

/** exp of a log ratio, or null when it is not finite. Clamped to ±700 so exp never overflows. */
export function ratioFromLog(logRatio: number): number | null {
  if (!Number.isFinite(logRatio)) return null;
  return Math.exp(Math.min(Math.max(logRatio, -700), 700));
}

/** The interval's lower side as a ratio: 0 below ÷1000 (or −∞), null when not a number. */
export function lowerFromLog(logLow: number): number | null {
  if (Number.isNaN(logLow)) return null;
  return logLow < -MAX_LOG_RATIO ? 0 : Math.exp(Math.min(logLow, 700));
}

/** The interval's upper side as a ratio: null (unbounded) above ×1000 or at +∞ or NaN. */
export function upperFromLog(logHigh: number): number | null {
  if (!(logHigh <= MAX_LOG_RATIO)) return null;
  return Math.exp(Math.max(logHigh, -700));
}

/**
 * A ratio as a signed change: "+20.3%", "-45.0%" (one decimal below 100%), "+142%", "+1210%"
 * (three significant digits), "more than ×1000" past ×1000, "-100%" at 0; "n/a" for null or
 * anything not finite or negative.
 */
export function formatChange(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio) || ratio < 0) return "n/a";
  if (ratio > 1000) return "more than ×1000";
  const p = (ratio - 1) * 100;
  const sign = p >= 0 ? "+" : "-";
  const a = Math.abs(p);
  const digits = a < 100 ? a.toFixed(1) : String(Number(a.toPrecision(3)));
  return `${sign}${digits === "-0.0" ? "0.0" : digits}%`;
}

/** "[-4.0%, +6.6%]"; an unbounded upper side reads "unbounded". */
export function formatInterval(low: number | null | undefined, high: number | null | undefined): string {
  const hi = high === null || high === undefined || !Number.isFinite(high) ? "unbounded" : formatChange(high);
  return `[${formatChange(low ?? null)}, ${hi}]`;
}

/**
 * A ratio in words: "45.0% lower", "20.3% higher", "unchanged" (within 0.05%), "more than 1000 times
 * higher"; "n/a" for null or not finite.
 */
export function describeRatio(ratio: number | null | undefined): string {
  if (ratio === null || ratio === undefined || !Number.isFinite(ratio) || ratio < 0) return "n/a";
  if (ratio > 1000) return "more than 1000 times higher";
  const p = (ratio - 1) * 100;
  const a = Math.abs(p);
  if (a < 0.05) return "unchanged";
  const digits = a < 100 ? a.toFixed(1) : String(Number(a.toPrecision(3)));
  return `${digits}% ${p < 0 ? "lower" : "higher"}`;
}

/** An interval in words: "interval 60.7% lower to 142% higher", "… to unbounded". */
export function describeInterval(low: number | null | undefined, high: number | null | undefined): string {
  const hi =
    high === null || high === undefined || !Number.isFinite(high) ? "unbounded" : describeRatio(high);
  return `interval ${describeRatio(low ?? null)} to ${hi}`;
}

/** A plain number with at most `digits` significant digits and no exponent below 1e21. */
export function formatNumber(x: number | null | undefined, digits = 4): string {
  if (x === null || x === undefined || !Number.isFinite(x)) return "n/a";
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1e21 || a < 1e-6) return x.toExponential(2);
  const rounded = Number(x.toPrecision(digits));
  return rounded.toLocaleString("en-US", { useGrouping: false, maximumFractionDigits: 20 });
}
