import { describe, expect, it } from "vitest";
import { bytes, num, pct, pctRange, seconds } from "./format.js";

describe("format", () => {
  it.each([
    [0.4567, "46%"],
    [0.004, "0.4%"],
    [0, "0%"],
    [1, "100%"],
  ])("pct(%s)", (x, s) => expect(pct(x)).toBe(s));
  it("pctRange", () => {
    expect(pctRange(0.1, 0.4)).toBe("+10% to +40%");
    expect(pctRange(0, 0)).toBe("0%");
  });
  it.each([
    [1234.5, "1235"],
    [12.34, "12.3"],
    [1.5, "1.5"],
    [0.0123, "0.012"],
  ])("num(%s)", (x, s) => expect(num(x)).toBe(s));
  it.each([
    [16384, "16 KiB"],
    [2097152, "2 MiB"],
    [512, "512 B"],
  ])("bytes(%s)", (x, s) => expect(bytes(x)).toBe(s));
  it.each([
    [2, "2 s"],
    [0.0042, "4.2 ms"],
    [0.0005, "500 µs"],
  ])("seconds(%s)", (x, s) => expect(seconds(x)).toBe(s));
});
