import { describe, expect, it } from "vitest";
import { parseTimePoint, parseTimeRange } from "./time-range.js";

const NOW = 1_767_225_600; // 2026-01-01T00:00:00Z

describe("parseTimePoint", () => {
  it.each([
    ["now", NOW],
    ["-2h", NOW - 7200],
    ["now-90m", NOW - 5400],
    ["-1h30m", NOW - 5400],
    ["1767222000", 1_767_222_000],
    ["2025-12-31T23:00:00Z", NOW - 3600],
    ["2026-01-01T01:00:00+02:00", NOW - 3600],
    ["2025-12-31T23:59:59.5Z", NOW - 0.5],
  ])("%s", (text, expected) => {
    expect(parseTimePoint(text, NOW)).toBe(expected);
  });

  it.each([
    ["yesterday", /is not a time: expected an RFC 3339 time/],
    ["2025-12-31T23:00:00", /is not a time/], // RFC 3339 needs a zone
    ["2025-12-31", /is not a time/],
    ["-2 hours", /invalid PromQL duration/],
    ["-1.5h", /invalid PromQL duration/],
    ["1767225600000", /looks like milliseconds/],
  ])("refuses %s", (text, message) => {
    expect(() => parseTimePoint(text, NOW)).toThrow(message);
  });
});

describe("parseTimeRange", () => {
  it("takes relative and absolute ends", () => {
    expect(parseTimeRange("-2h..-1h", NOW)).toEqual({ start: NOW - 7200, end: NOW - 3600 });
    expect(parseTimeRange("2025-12-31T22:00:00Z..now", NOW)).toEqual({ start: NOW - 7200, end: NOW });
  });

  it.each([
    ["-1h", /not a range: expected <start>..<end>/],
    ["-1h..", /not a range/],
    ["-1h..-2h..now", /not a range/],
    ["-1h..-2h", /the end \(2025-12-31T22:00:00Z\) must be after the start \(2025-12-31T23:00:00Z\)/],
    ["-1h..-1h", /must be after the start/],
    ["-1h..2026-01-01T02:00:00Z", /ends in the future/],
  ])("refuses %s", (text, message) => {
    expect(() => parseTimeRange(text, NOW)).toThrow(message);
  });
});
