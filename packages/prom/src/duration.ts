import { DURATION_HINT, isDuration, parseDuration } from "@untorn/vocabulary/duration";
import { z } from "zod";

/**
 * The PromQL duration grammar is the vocabulary's (@untorn/vocabulary/duration), shared by the catalog,
 * the dashboards, the web app and the CLI; this module adds the zod schema for user input.
 */
export {
  formatDuration,
  InvalidDurationError,
  isDuration,
  MAX_DURATION_MS,
  parseDuration,
} from "@untorn/vocabulary/duration";

/** A PromQL range window from user input (form, CLI flag, JSON): valid duration text, longer than 0. */
export const WindowDuration = z
  .string()
  .refine(isDuration, { message: `not a PromQL duration: ${DURATION_HINT}`, abort: true })
  .refine((s) => parseDuration(s) > 0, { message: "a window must be longer than 0" })
  .describe('PromQL duration such as "5m" or "1h30m".');

/**
 * The time ranges the console (fleet and instance pages, `?range=`), its read API and the CLI
 * (`--window`) offer: these presets, or any PromQL duration from TIME_RANGE_MIN to TIME_RANGE_MAX.
 */
export const TIME_RANGE_PRESETS = ["15m", "1h", "6h", "24h", "7d"] as const;
export type TimeRangePreset = (typeof TIME_RANGE_PRESETS)[number];
/** Under 30 s a window holds fewer than two scrapes at a 15 s interval: no rate at all. */
export const TIME_RANGE_MIN = "30s";
/** Prometheus keeps 15 days by default; 30 days covers a longer retention without inviting year-long scans. */
export const TIME_RANGE_MAX = "30d";

const RANGE_MIN_MS = parseDuration(TIME_RANGE_MIN);
const RANGE_MAX_MS = parseDuration(TIME_RANGE_MAX);

/** A time range from user input: a preset or a PromQL duration within [1m, 30d]; keeps its text. */
export const TimeRange = z
  .string()
  .max(40, { message: "must be at most 40 characters", abort: true })
  .refine(isDuration, {
    message: `must be one of ${TIME_RANGE_PRESETS.join(", ")} or a PromQL duration such as 90m or 3h`,
    abort: true,
  })
  .refine((s) => parseDuration(s) >= RANGE_MIN_MS && parseDuration(s) <= RANGE_MAX_MS, {
    message: `must be from ${TIME_RANGE_MIN} to ${TIME_RANGE_MAX}`,
  })
  .describe(
    `Time range the workload statistics cover: ${TIME_RANGE_PRESETS.join(", ")}, or a PromQL duration from ${TIME_RANGE_MIN} to ${TIME_RANGE_MAX}.`,
  );

/** The range's length in seconds (a valid TimeRange). */
export const timeRangeSeconds = (range: string): number => parseDuration(range) / 1000;
