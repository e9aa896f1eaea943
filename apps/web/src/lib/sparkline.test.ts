import { describe, expect, it } from "vitest";
import { SPARKLINE, sparklineLabel, sparklinePath } from "./sparkline.js";

/** The box the coordinates below are worked out for (the product's SPARKLINE is smaller). */
const BOX = { width: 88, height: 24, pad: 2 };

/** The numbers of a path, as [x, y] pairs per subpath. */
const coords = (d: string) =>
  d
    .split("M")
    .filter(Boolean)
    .map((sub) => [...sub.matchAll(/(-?[\d.]+),(-?[\d.]+)/g)].map((m) => [Number(m[1]), Number(m[2])]));

describe("sparklinePath", () => {
  it("maps the time range to the box's width and the values to its height, y downwards", () => {
    expect(
      sparklinePath(
        [
          [
            [0, 0],
            [10, 5],
          ],
        ],
        { start: 0, end: 10, low: 0, high: 5 },
        BOX,
      ),
    ).toBe("M2,22L86,2");
    const d = sparklinePath(
      [
        [
          [100, 1],
          [150, 3],
          [200, 2],
        ],
      ],
      { start: 100, end: 200, low: 0, high: 4 },
      BOX,
    );
    expect(coords(d)).toEqual([
      [
        [2, 17],
        [44, 7],
        [86, 12],
      ],
    ]);
  });

  it("leaves a gap between runs and draws a lone point as a dot", () => {
    const d = sparklinePath(
      [
        [
          [0, 1],
          [1, 2],
        ],
        [[5, 2]],
      ],
      { start: 0, end: 10, low: 0, high: 2 },
      BOX,
    );
    expect(d.match(/M/g)).toHaveLength(2);
    expect(d.endsWith("h0")).toBe(true);
    expect(coords(d)[1]).toEqual([[44, 2]]);
  });

  it("puts a flat line at the bottom, keeps every point inside the box, and draws nothing for nothing", () => {
    expect(
      sparklinePath(
        [
          [
            [0, 0],
            [10, 0],
          ],
        ],
        { start: 0, end: 10, low: 0, high: 0 },
        BOX,
      ),
    ).toBe("M2,22L86,22");
    // The product's box by default.
    const bottom = SPARKLINE.height - SPARKLINE.pad;
    expect(sparklinePath([[[0, 0]]], { start: 0, end: 10, low: 0, high: 0 })).toBe(
      `M${SPARKLINE.pad},${bottom}h0`,
    );
    const d = sparklinePath(
      [
        [
          [-5, 9],
          [15, -3],
        ],
      ],
      { start: 0, end: 10, low: 0, high: 4 },
    );
    for (const [, y] of coords(d).flat()) {
      expect(y).toBeGreaterThanOrEqual(SPARKLINE.pad);
      expect(y).toBeLessThanOrEqual(SPARKLINE.height - SPARKLINE.pad);
    }
    expect(sparklinePath([], { start: 0, end: 10, low: 0, high: 1 })).toBe("");
    expect(sparklinePath([[]], { start: 0, end: 10, low: 0, high: 1 })).toBe("");
  });
});

describe("sparklineLabel", () => {
  it("names the figure, its unit, the span and the first, last and peak values", () => {
    expect(
      sparklineLabel({
        what: "Doublewrite pages written",
        unit: "pages/s",
        spanSeconds: 900,
        first: 12.34,
        last: 0,
        peak: 1234.5,
      }),
    ).toBe("Doublewrite pages written over 15 min: first 12.3 pages/s, last 0 pages/s, peak 1,235 pages/s");
  });
});
