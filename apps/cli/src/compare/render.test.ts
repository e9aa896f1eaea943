import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { change } from "./render.js";

describe("untorn compare's percentages", () => {
  it("never print an overflowing interval side as a number", () => {
    expect(change(4.13298268334137e65)).toBe("more than ×1000");
    expect(change(2.421)).toBe("+142%");
    expect(change(0.506)).toBe("-49.4%");
    expect(change(1.012)).toBe("+1.20%");
    expect(change(null)).toBe("-");
    expect(change(Number.NaN)).toBe("-");
  });

  it("no ratio gives NaN, Infinity or an exponent (fast-check)", () => {
    fc.assert(
      fc.property(fc.double(), (r) => !/NaN|Infinity|e[+-]/.test(change(r)) && change(r).length < 20),
    );
  });
});
