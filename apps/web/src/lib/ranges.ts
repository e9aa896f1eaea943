/**
 * The time ranges of the fleet and instance pages (`?range=`), shared by the pages, the read API and the
 * data layer: the presets and custom durations of @untorn/prom/duration's TimeRange (the CLI's
 * `--window` takes the same), and `all` (the whole recording) for an instance's charts.
 */
import { TIME_RANGE_PRESETS, TimeRange, timeRangeSeconds } from "@untorn/prom/duration";

export const RANGE_KEYS = [...TIME_RANGE_PRESETS, "all"] as const;
export type RangeKey = (typeof RANGE_KEYS)[number];

export const RANGE_LABELS: Readonly<Record<RangeKey, string>> = {
  "15m": "15 minutes",
  "1h": "1 hour",
  "6h": "6 hours",
  "24h": "24 hours",
  "7d": "7 days",
  all: "whole recording",
};

/** A range given in a URL: a TimeRange, or `all` where it is offered. */
export type RangeParam =
  | { readonly ok: true; readonly range: string | null }
  | { readonly ok: false; readonly value: string; readonly message: string };

/** Parses `?range=` (absent: null); `all` only when `allowAll`. Never throws. */
export function parseRangeParam(raw: string | readonly string[] | undefined, allowAll = false): RangeParam {
  if (raw === undefined) return { ok: true, range: null };
  if (typeof raw !== "string") return { ok: false, value: raw.join(","), message: "given more than once" };
  const value = raw.length > 60 ? `${raw.slice(0, 59)}…` : raw;
  if (allowAll && raw === "all") return { ok: true, range: "all" };
  const r = TimeRange.safeParse(raw);
  if (r.success) return { ok: true, range: r.data };
  const message = r.error.issues[0]?.message ?? "invalid";
  return { ok: false, value, message: allowAll ? message.replace("7d or", "7d, all or") : message };
}

/** Seconds in a range other than `all`. */
export const rangeSeconds = (range: string): number => timeRangeSeconds(range);
