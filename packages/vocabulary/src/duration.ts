/**
 * PromQL durations ("5m", "1h30m", "500ms"), parsed and formatted exactly like Prometheus's
 * common/model Duration: integer amounts, units y w d h m s ms from largest to smallest, each at most
 * once, "0" allowed without a unit, y = 365d, w = 7d, at most 2^63 ns (about 292 years).
 */

const UNITS = [
  ["y", 365 * 24 * 3_600_000],
  ["w", 7 * 24 * 3_600_000],
  ["d", 24 * 3_600_000],
  ["h", 3_600_000],
  ["m", 60_000],
  ["s", 1000],
  ["ms", 1],
] as const;

/** Largest duration Prometheus accepts, in milliseconds (Go's time.Duration is int64 nanoseconds). */
export const MAX_DURATION_MS = 9_223_372_036_854;

export class InvalidDurationError extends RangeError {
  override readonly name = "InvalidDurationError";
  constructor(
    readonly input: string,
    reason: string,
  ) {
    super(`invalid PromQL duration ${JSON.stringify(input)}: ${reason}`);
  }
}

const TOKEN = /^(\d+)([a-z]+)/;
/** How a valid duration looks, for error messages. */
export const DURATION_HINT =
  "expected whole numbers with units y, w, d, h, m, s, ms from largest to smallest, like 5m or 1h30m";

/**
 * Milliseconds in a PromQL duration.
 * @example parseDuration("1h30m") // 5_400_000
 * @throws InvalidDurationError for "", "5", "1.5h", "30m1h", "5 m", "1mo", overflow.
 */
export function parseDuration(text: string): number {
  if (text === "0") return 0;
  if (text === "") throw new InvalidDurationError(text, "empty");
  let rest = text;
  let total = 0;
  let lastUnit = -1;
  while (rest !== "") {
    const m = TOKEN.exec(rest);
    if (!m) throw new InvalidDurationError(text, DURATION_HINT);
    const [token, digits, unit] = m as unknown as [string, string, string];
    const index = UNITS.findIndex(([u]) => u === unit);
    if (index < 0) throw new InvalidDurationError(text, `unknown unit "${unit}" (${DURATION_HINT})`);
    if (index <= lastUnit) throw new InvalidDurationError(text, DURATION_HINT);
    lastUnit = index;
    total += Number(digits) * UNITS[index]![1];
    if (total > MAX_DURATION_MS)
      throw new InvalidDurationError(text, "longer than Prometheus allows (~292y)");
    rest = rest.slice(token.length);
  }
  return total;
}

export function isDuration(text: string): boolean {
  try {
    parseDuration(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The canonical PromQL text of a whole number of milliseconds, as Prometheus prints it: years and
 * weeks only when they divide exactly ("90d", not "12w6d"); 0 is "0s".
 * @example formatDuration(5_400_000) // "1h30m"
 */
export function formatDuration(ms: number): string {
  if (!Number.isSafeInteger(ms) || ms < 0 || ms > MAX_DURATION_MS) {
    throw new RangeError(`cannot format ${ms} ms as a PromQL duration: need a whole number of ms ≥ 0`);
  }
  if (ms === 0) return "0s";
  let rest = ms;
  let out = "";
  for (const [unit, mult] of UNITS) {
    const exactOnly = unit === "y" || unit === "w";
    if (exactOnly && rest % mult !== 0) continue;
    const n = Math.floor(rest / mult);
    if (n > 0) {
      out += `${n}${unit}`;
      rest -= n * mult;
    }
  }
  return out;
}
