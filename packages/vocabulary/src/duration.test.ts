import { describe, expect, it } from "vitest";
import {
  formatDuration,
  InvalidDurationError,
  isDuration,
  MAX_DURATION_MS,
  parseDuration,
} from "./duration.js";

describe("parseDuration", () => {
  it.each([
    ["0", 0],
    ["0s", 0],
    ["500ms", 500],
    ["30s", 30_000],
    ["5m", 300_000],
    ["1h30m", 5_400_000],
    ["1d", 86_400_000],
    ["2w", 14 * 86_400_000],
    ["1y", 365 * 86_400_000],
    ["1y2w3d4h5m6s7ms", ((((365 + 14 + 3) * 24 + 4) * 60 + 5) * 60 + 6) * 1000 + 7],
    ["90m", 5_400_000],
  ])("%s is %d ms", (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
  });

  it.each([
    ["", /empty/],
    ["5", /expected whole numbers/],
    ["1.5h", /expected whole numbers/],
    ["5 m", /expected whole numbers/],
    ["m5", /expected whole numbers/],
    ["30m1h", /expected whole numbers/],
    ["5m5m", /expected whole numbers/],
    ["1mo", /unknown unit "mo"/],
    ["5M", /expected whole numbers/],
    ["-5m", /expected whole numbers/],
    ["300y", /longer than Prometheus allows/],
  ])("rejects %j", (text, message) => {
    expect(() => parseDuration(text)).toThrow(InvalidDurationError);
    expect(() => parseDuration(text)).toThrow(message);
  });

  it("accepts up to Prometheus's int64-nanosecond limit and not one ms more", () => {
    expect(parseDuration(`${MAX_DURATION_MS}ms`)).toBe(MAX_DURATION_MS);
    expect(isDuration(`${MAX_DURATION_MS + 1}ms`)).toBe(false);
  });
});

describe("formatDuration", () => {
  it.each([
    [0, "0s"],
    [1, "1ms"],
    [1500, "1s500ms"],
    [5_400_000, "1h30m"],
    [7 * 86_400_000, "1w"],
    // Prometheus prints 90d, not 12w6d: weeks and years only when exact.
    [90 * 86_400_000, "90d"],
    [365 * 86_400_000, "1y"],
    [366 * 86_400_000, "366d"],
  ])("%d ms is %s", (ms, text) => {
    expect(formatDuration(ms)).toBe(text);
  });

  it.each([-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY])("rejects %d", (ms) => {
    expect(() => formatDuration(ms)).toThrow(RangeError);
  });

  it("round-trips through parseDuration", () => {
    for (const ms of [1, 999, 60_000, 3_723_004, 8 * 86_400_000, 400 * 86_400_000 + 7]) {
      expect(parseDuration(formatDuration(ms))).toBe(ms);
    }
  });
});
