import { describe, expect, it } from "vitest";
import { aggregateBlocks, chooseBlockSeconds } from "./blocks.js";

describe("aggregateBlocks", () => {
  it("averages samples into absolutely aligned blocks", () => {
    const t = [0, 15, 30, 45, 60, 75, 90, 105].map((x) => x + 600);
    const v = [1, 2, 3, 4, 10, 10, 10, 10];
    const b = aggregateBlocks(t, v, 60, 15);
    expect(Array.from(b.positions)).toEqual([10, 11]);
    expect(Array.from(b.means)).toEqual([2.5, 10]);
    expect(Array.from(b.counts)).toEqual([4, 4]);
  });

  it("drops blocks with less than half their samples", () => {
    const t = [0, 15, 30, 45, 60, 120, 135, 150];
    const b = aggregateBlocks(
      t,
      t.map(() => 1),
      60,
      15,
    );
    expect(Array.from(b.positions)).toEqual([0, 2]);
  });

  it("handles empty input", () => {
    expect(aggregateBlocks([], [], 60, 15).positions.length).toBe(0);
  });
});

describe("chooseBlockSeconds", () => {
  it("takes 5 min blocks when each window holds 12 of them, shorter ones otherwise", () => {
    expect(chooseBlockSeconds("auto", 15, 3600)).toBe(300);
    expect(chooseBlockSeconds("auto", 15, 1800)).toBe(120);
    expect(chooseBlockSeconds("auto", 15, 600)).toBe(60);
    expect(chooseBlockSeconds("auto", 15, 300)).toBe(60);
  });
  it("never goes below the scrape step", () => {
    expect(chooseBlockSeconds("auto", 300, 3600)).toBe(300);
    expect(chooseBlockSeconds(30, 60, 3600)).toBe(60);
    expect(chooseBlockSeconds(120, 15, 3600)).toBe(120);
  });
});
