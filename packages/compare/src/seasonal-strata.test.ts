import { describe, expect, it } from "vitest";
import { seasonalStrata } from "./seasonal-strata.js";

const day = 86_400 / 300; // blocks per day at 300 s
const hours = (startHour: number, count: number, dayOffset = 0) =>
  Array.from({ length: count * 12 }, (_, i) => dayOffset * day + startHour * 12 + i);

describe("seasonalStrata", () => {
  it("matches the same hours of day on different days", () => {
    const s = seasonalStrata(hours(10, 2, 0), hours(10, 2, 1), 300, 6);
    expect(s.matched).toBe(true);
    expect(s.strata.length).toBe(2);
    expect(s.flags).toEqual([]);
  });

  it("keeps only the shared hours and says how much it left out", () => {
    const s = seasonalStrata(hours(0, 24, 0), hours(9, 3, 1), 300, 6);
    expect(s.matched).toBe(true);
    expect(s.strata.length).toBe(3);
    expect(s.strata.every((x) => x.before.length === 12 && x.after.length === 12)).toBe(true);
    expect(s.flags[0]).toMatchObject({ code: "seasonality_matched", severity: "info" });
    expect(s.flags[0]!.message).toContain("88% of before");
  });

  it("warns and compares everything when the hours do not overlap", () => {
    const s = seasonalStrata(hours(2, 2), hours(14, 2), 300, 6);
    expect(s.matched).toBe(false);
    expect(s.strata).toHaveLength(1);
    expect(s.strata[0]!.before.length).toBe(24);
    expect(s.flags[0]).toMatchObject({ code: "seasonality_unmatched", severity: "warning" });
  });
});
