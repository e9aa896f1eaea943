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
