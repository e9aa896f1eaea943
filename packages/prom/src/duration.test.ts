import { describe, expect, it } from "vitest";
import { TIME_RANGE_PRESETS, TimeRange, timeRangeSeconds, WindowDuration } from "./duration.js";

describe("WindowDuration", () => {
  it("accepts a window and keeps its text", () => {
    expect(WindowDuration.parse("1h30m")).toBe("1h30m");
  });
  it("rejects zero and garbage with a message", () => {
    expect(WindowDuration.safeParse("0s").error?.issues[0]?.message).toMatch(/longer than 0/);
    expect(WindowDuration.safeParse("5 minutes").error?.issues[0]?.message).toMatch(/not a PromQL duration/);
    expect(WindowDuration.safeParse("5 minutes").error?.issues).toHaveLength(1);
  });
});

describe("TimeRange", () => {
  it("accepts every preset and a custom duration, keeping the text", () => {
    for (const p of TIME_RANGE_PRESETS) expect(TimeRange.parse(p)).toBe(p);
    expect(TimeRange.parse("90m")).toBe("90m");
    expect(timeRangeSeconds("7d")).toBe(604_800);
    expect(timeRangeSeconds("1h30m")).toBe(5400);
  });
  it("refuses garbage, and ranges outside 30s to 30d, with one message each", () => {
    const msg = (s: string) => TimeRange.safeParse(s).error?.issues.map((i) => i.message);
    expect(msg("bogus")).toEqual([expect.stringMatching(/^must be one of 15m, 1h, 6h, 24h, 7d or a PromQL/)]);
    expect(msg("20s")).toEqual(["must be from 30s to 30d"]);
    expect(msg("31d")).toEqual(["must be from 30s to 30d"]);
    expect(msg("1".repeat(41))).toEqual(["must be at most 40 characters"]);
    expect(TimeRange.safeParse("30d").success).toBe(true);
    expect(TimeRange.safeParse("30s").success).toBe(true);
  });
});
