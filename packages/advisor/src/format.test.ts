import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { bytes, num, pct, pctRange, seconds, trim } from "./format.js";

/** trim as it was written before: two regular expressions. */
const trimByRegex = (s: string) => s.replace(/\.0+$/, "").replace(/(\.\d*?)0+$/, "$1");

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

  it.each([
    ["10.50", "10.5"],
    ["10.00", "10"],
    ["100", "100"],
    ["-0.50", "-0.5"],
    ["1.5e-7", "1.5e-7"],
    ["1.0e-10", "1.0e-10"],
    ["1.00.0", "1."],
    [".0", ""],
  ])("trim(%j) = %j, as the regular expressions gave", (s, out) => {
    expect(trim(s)).toBe(out);
    expect(trimByRegex(s)).toBe(out);
  });
  it("trim gives what the regular expressions gave: every way a number is formatted, and any text of digits, points, e and signs", () => {
    const formatted = fc
      .tuple(fc.double({ noNaN: false }), fc.integer({ min: 0, max: 20 }), fc.integer({ min: 1, max: 21 }))
      .chain(([x, digits, precision]) =>
        fc.constantFrom(x.toFixed(digits), x.toPrecision(precision), String(x), (x * 100).toFixed(1)),
      );
    const text = fc
      .array(fc.constantFrom("0", "0", "0", "1", "5", "9", ".", "e", "-", "+", "x"), { maxLength: 12 })
      .map((cs) => cs.join(""));
    fc.assert(
      fc.property(fc.oneof(formatted, text), (s) => {
        expect(trim(s)).toBe(trimByRegex(s));
      }),
      { numRuns: 20_000 },
    );
  });
});
