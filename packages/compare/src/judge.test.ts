import { describe, expect, it } from "vitest";
import { judge } from "./judge.js";

const ln = Math.log;
const up = { direction: "higher_is_better" as const, margin: 0.02 };
const down = { direction: "lower_is_better" as const, margin: 0.02 };

describe("judge", () => {
  it.each([
    [
      "clear gain",
      { logRatio: ln(1.2), ciLow: ln(1.1), ciHigh: ln(1.3), significant: true, ...up },
      "improved",
    ],
    [
      "clear loss",
      { logRatio: ln(0.8), ciLow: ln(0.7), ciHigh: ln(0.9), significant: true, ...up },
      "regressed",
    ],
    [
      "lower is better",
      { logRatio: ln(0.8), ciLow: ln(0.7), ciHigh: ln(0.9), significant: true, ...down },
      "improved",
    ],
    [
      "CI inside the margin",
      { logRatio: ln(1.005), ciLow: ln(0.99), ciHigh: ln(1.015), significant: false, ...up },
      "unchanged",
    ],
    [
      "significant but tiny",
      { logRatio: ln(1.01), ciLow: ln(1.002), ciHigh: ln(1.025), significant: true, ...up },
      "unchanged",
    ],
    [
      "wide CI",
      { logRatio: ln(1.05), ciLow: ln(0.95), ciHigh: ln(1.15), significant: false, ...up },
      "inconclusive",
    ],
    [
      "no estimate",
      { logRatio: Number.NaN, ciLow: -Infinity, ciHigh: Infinity, significant: false, ...up },
      "inconclusive",
    ],
    [
      "neutral metric",
      {
        logRatio: ln(1.3),
        ciLow: ln(1.2),
        ciHigh: ln(1.4),
        significant: true,
        direction: "neutral" as const,
        margin: 0.02,
      },
      "changed",
    ],
  ])("%s", (_, input, expected) => {
    expect(judge(input)).toBe(expected);
  });
});
