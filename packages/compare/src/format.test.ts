import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  describeInterval,
  describeRatio,
  formatChange,
  formatInterval,
  formatNumber,
  lowerFromLog,
  ratioFromLog,
  upperFromLog,
} from "./format.js";

const sane = (s: string) => !/NaN|Infinity|e\+|e-/.test(s) && s.length < 60;

describe("bounded effects and their text", () => {
  it("reads the issue's overflowing interval as unbounded, never as 4.1e+67%", () => {
    expect(upperFromLog(Math.log(4.13298268334137e65))).toBeNull();
    expect(formatInterval(0, upperFromLog(155))).toBe("[-100%, unbounded]");
    expect(describeInterval(lowerFromLog(-1e9), upperFromLog(Number.POSITIVE_INFINITY))).toBe(
      "interval 100% lower to unbounded",
    );
    expect(formatChange(6.684166647284321e74)).toBe("more than ×1000");
  });

  it("keeps one decimal below 100% and three significant digits above", () => {
    expect(formatChange(0.506)).toBe("-49.4%");
    expect(formatChange(2.421)).toBe("+142%");
    expect(formatChange(1)).toBe("+0.0%");
    expect(describeRatio(0.975)).toBe("2.5% lower");
    expect(describeRatio(2.421)).toBe("142% higher");
    expect(formatNumber(140.2999999)).toBe("140.3");
    expect(formatNumber(79.91234)).toBe("79.91");
  });

  it("no output is non-finite, in exponent form or absurdly long (fast-check)", () => {
    const anyNumber = fc.oneof(
      fc.double(),
      fc.constantFrom(Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 0, -0, 1e308, -1e308),
    );
    fc.assert(
      fc.property(anyNumber, anyNumber, anyNumber, (a, b, c) => {
        const lo = lowerFromLog(a);
        const hi = upperFromLog(b);
        const r = ratioFromLog(c);
        for (const x of [lo, hi, r]) if (x !== null && !Number.isFinite(x)) return false;
        if (hi !== null && hi > 1000.000001) return false;
        return [
          formatChange(r),
          formatChange(a),
          formatInterval(lo, hi),
          describeRatio(r),
          describeInterval(lo, hi),
        ].every(sane);
      }),
      { numRuns: 2000 },
    );
  });

  it("formatNumber never prints NaN or Infinity", () => {
    fc.assert(
      fc.property(fc.double(), (x) => {
        const s = formatNumber(x);
        return !/NaN|Infinity/.test(s) && s.length < 30;
      }),
    );
  });
});
