/** Number formatting for finding summaries: deterministic, locale-independent. */

/**
 * Trailing zeros of a decimal fraction dropped, and its point when only zeros followed it:
 * "10.50" -> "10.5", "10.00" -> "10"; text with anything but digits after its last point (an exponent)
 * is left as it is. The same as `s.replace(/\.0+$/, "").replace(/(\.\d*?)0+$/, "$1")` for any text,
 * without two regular expressions per number (they were a tenth of advising an instance).
 * @internal exported for its test
 */
export function trim(s: string): string {
  let t = s;
  // /\.0+$/: a point followed by zeros only (at least one), to the end.
  let point = t.lastIndexOf(".");
  if (point >= 0 && point < t.length - 1 && onlyFrom(t, point + 1, 48, 48)) t = t.slice(0, point);
  // /(\.\d*?)0+$/: the last point followed by digits only; its trailing zeros.
  point = t.lastIndexOf(".");
  if (point < 0 || !onlyFrom(t, point + 1, 48, 57)) return t;
  let end = t.length;
  while (end > point + 1 && t.charCodeAt(end - 1) === 48) end--;
  return end === t.length ? t : t.slice(0, end);
}

/** Every character of s from `from` on has a code in [lo, hi]. */
function onlyFrom(s: string, from: number, lo: number, hi: number): boolean {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < lo || c > hi) return false;
  }
  return true;
}

/** 0.4567 -> "46%"; 0.004 -> "0.4%". */
export function pct(ratio: number): string {
  const p = ratio * 100;
  if (p !== 0 && Math.abs(p) < 1) return `${trim(p.toFixed(1))}%`;
  return `${Math.round(p)}%`;
}

/** A signed gain range: {0.1, 0.4} -> "+10% to +40%". */
export function pctRange(low: number, high: number): string {
  const s = (x: number) => (x > 0 ? "+" : "") + pct(x);
  if (Math.abs(high - low) < 0.005) return s(low);
  return `${s(low)} to ${s(high)}`;
}

/** 3 significant digits, no exponent for ordinary values. */
export function num(x: number): string {
  if (x === 0) return "0";
  const a = Math.abs(x);
  if (a >= 1000) return String(Math.round(x));
  if (a >= 100) return trim(x.toFixed(0));
  if (a >= 10) return trim(x.toFixed(1));
  if (a >= 1) return trim(x.toFixed(2));
  return trim(x.toPrecision(2));
}

const UNITS = ["B", "KiB", "MiB", "GiB", "TiB"] as const;

/** 16384 -> "16 KiB". */
export function bytes(x: number): string {
  let v = x;
  let i = 0;
  while (Math.abs(v) >= 1024 && i < UNITS.length - 1) {
    v /= 1024;
    i++;
  }
  return `${num(v)} ${UNITS[i]}`;
}

/** Seconds to a readable duration: 0.0042 -> "4.2 ms". */
export function seconds(x: number): string {
  if (x >= 1) return `${num(x)} s`;
  if (x >= 1e-3) return `${num(x * 1e3)} ms`;
  return `${num(x * 1e6)} µs`;
}
