import { describe, expect, it } from "vitest";
import { escapeXml, lineChartSvg, niceStep } from "./svg.js";

/** Tags opened and closed in order (enough to catch a malformed chart; SVG here has no CDATA). */
function wellFormed(svg: string): boolean {
  const stack: string[] = [];
  for (const m of svg.matchAll(/<(\/?)([a-z]+)[^>]*?(\/?)>/g)) {
    const [, close, name, self] = m;
    if (self) continue;
    if (close) {
      if (stack.pop() !== name) return false;
    } else stack.push(name!);
  }
  return stack.length === 0;
}

describe("niceStep", () => {
  it.each([
    [100, 20],
    [83, 20],
    [7, 2],
    [0.9, 0.2],
    [0, 1],
  ])("max %d → %d", (max, step) => {
    expect(niceStep(max)).toBeCloseTo(step);
  });
});

describe("lineChartSvg", () => {
  const svg = lineChartSvg({
    title: "TPS <by> threads & more",
    xLabel: "threads",
    yLabel: "TPS",
    series: [
      {
        name: "ON",
        color: "#c0392b",
        points: [
          { x: 16, y: 20, low: 18, high: 22 },
          { x: 1, y: 10 },
        ],
      },
      {
        name: "OFF",
        color: "#2471a3",
        dashed: true,
        points: [
          { x: 1, y: 12 },
          { x: 16, y: 75 },
        ],
      },
    ],
  });

  it("is well-formed SVG with escaped text", () => {
    expect(svg.startsWith('<svg xmlns="http://www.w3.org/2000/svg"')).toBe(true);
    expect(wellFormed(svg)).toBe(true);
    expect(svg).toContain("TPS &lt;by&gt; threads &amp; more");
    expect(escapeXml('"a"')).toBe("&quot;a&quot;");
  });

  it("draws each series left to right in x order, higher values higher up", () => {
    const lines = [...svg.matchAll(/<polyline[^>]*points="([^"]+)"/g)].map((m) =>
      m[1]!.split(" ").map((p) => p.split(",").map(Number) as [number, number]),
    );
    expect(lines).toHaveLength(2);
    const [on, off] = lines as [[number, number][], [number, number][]];
    expect(on[0]![0]).toBeLessThan(on[1]![0]);
    // SVG y grows downwards: OFF at 16 threads (75) is above ON (20).
    expect(off[1]![1]).toBeLessThan(on[1]![1]);
    expect(svg).toMatch(/stroke-dasharray/);
    // The y axis reaches past the highest value: ticks up to 80.
    expect(svg).toContain(">80</text>");
  });
});
