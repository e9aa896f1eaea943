import { InvalidDurationError, parseDuration } from "@untorn/prom/duration";

/** A time range in Unix seconds, start < end. */
export interface TimeRange {
  readonly start: number;
  readonly end: number;
}

const RFC3339 = /^\d{4}-\d{2}-\d{2}[Tt]\d{2}:\d{2}:\d{2}(\.\d+)?([Zz]|[+-]\d{2}:\d{2})$/;
const RELATIVE = /^(?:now)?-(.+)$/;

export const TIME_FORMS =
  "an RFC 3339 time (2026-01-31T12:00:00Z), Unix seconds, now, or a time relative to now (-2h, now-90m, -1h30m)";

/** Clock skew tolerated for a range that ends slightly after "now". */
const FUTURE_SLACK_SECONDS = 60;

/**
 * One end of a range: RFC 3339 (with a zone), Unix seconds, `now`, or `-<PromQL duration>` /
 * `now-<duration>` before `now`. Throws a RangeError whose message says what was expected.
 */
export function parseTimePoint(text: string, now: number): number {
  const t = text.trim();
  if (t === "now") return now;
  if (/^\d+(\.\d+)?$/.test(t)) {
    const s = Number(t);
    if (s > 1e11) throw new RangeError(`${JSON.stringify(text)} looks like milliseconds: give Unix seconds`);
    return s;
  }
  const rel = RELATIVE.exec(t);
  if (rel) {
    try {
      return now - parseDuration(rel[1]!) / 1000;
    } catch (err) {
      if (err instanceof InvalidDurationError)
        throw new RangeError(`${JSON.stringify(text)}: ${err.message}`);
      throw err;
    }
  }
  if (RFC3339.test(t)) {
    const ms = Date.parse(t);
    if (!Number.isNaN(ms)) return ms / 1000;
  }
  throw new RangeError(`${JSON.stringify(text)} is not a time: expected ${TIME_FORMS}`);
}

/**
 * `<start>..<end>`, each end as parseTimePoint takes it. The range must be non-empty and must not end
 * in the future.
 * @example parseTimeRange("-2h..-1h", 7200) // { start: 0, end: 3600 }
 */
export function parseTimeRange(text: string, now: number): TimeRange {
  const parts = text.split("..");
  if (parts.length !== 2 || !parts[0]!.trim() || !parts[1]!.trim()) {
    throw new RangeError(
      `${JSON.stringify(text)} is not a range: expected <start>..<end>, each ${TIME_FORMS}`,
    );
  }
  const start = parseTimePoint(parts[0]!, now);
  const end = parseTimePoint(parts[1]!, now);
  if (!(end > start)) {
    throw new RangeError(
      `${JSON.stringify(text)}: the end (${iso(end)}) must be after the start (${iso(start)})`,
    );
  }
  if (end > now + FUTURE_SLACK_SECONDS) {
    throw new RangeError(`${JSON.stringify(text)}: ends in the future (${iso(end)}; now is ${iso(now)})`);
  }
  return { start, end };
}

export function iso(seconds: number): string {
  return new Date(Math.round(seconds * 1000)).toISOString().replace(/\.000Z$/, "Z");
}

export function formatRange(r: TimeRange): string {
  return `${iso(r.start)}..${iso(r.end)}`;
}
