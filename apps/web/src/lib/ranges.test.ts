import { describe, expect, it } from "vitest";
import { parseRangeParam } from "./ranges.js";

describe("parseRangeParam", () => {
  it("takes nothing, a preset or a custom duration", () => {
    expect(parseRangeParam(undefined)).toEqual({ ok: true, range: null });
    expect(parseRangeParam("24h")).toEqual({ ok: true, range: "24h" });
    expect(parseRangeParam("2h30m")).toEqual({ ok: true, range: "2h30m" });
  });
  it("takes all only where it is offered, and names what is allowed", () => {
    expect(parseRangeParam("all", true)).toEqual({ ok: true, range: "all" });
    const bad = parseRangeParam("all");
    expect(bad).toMatchObject({
      ok: false,
      value: "all",
      message: expect.stringMatching(/^must be one of 15m, 1h, 6h, 24h, 7d or/),
    });
    expect(parseRangeParam("forever", true)).toMatchObject({
      ok: false,
      message: expect.stringMatching(/7d, all or a PromQL duration/),
    });
  });
  it("refuses a repeated or out-of-bounds range", () => {
    expect(parseRangeParam(["1h", "6h"])).toEqual({
      ok: false,
      value: "1h,6h",
      message: "given more than once",
    });
    expect(parseRangeParam("40d")).toMatchObject({ ok: false, message: "must be from 30s to 30d" });
    expect(parseRangeParam("x".repeat(80))).toMatchObject({
      ok: false,
      message: "must be at most 40 characters",
    });
  });
});
