import { describe, expect, it } from "vitest";
import { prepareWindow } from "./prepare-window.js";

const base = { window: "before" as const, counter: false, events: [], warmupSeconds: 600 };
const grid = (n: number, start = 1_767_225_600, step = 15) =>
  Array.from({ length: n }, (_, i) => start + i * step);
const codes = (p: { flags: { code: string }[] }) => p.flags.map((f) => f.code);

describe("prepareWindow", () => {
  it("keeps clean data as it is", () => {
    const t = grid(100);
    const p = prepareWindow({ t, v: t.map(() => 5) }, base);
    expect(p.v.length).toBe(100);
    expect(p.step).toBe(15);
    expect(p.coverage).toBe(1);
    expect(p.flags).toEqual([]);
  });

  it("drops null and non-finite values, sorts and de-duplicates timestamps", () => {
    const t = [30, 0, 15, 15, 45, 60].map((x) => x + 1_767_225_600);
    const v = [3, 1, 2, 2.5, null, 6];
    const p = prepareWindow({ t, v }, base);
    expect(Array.from(p.t, (x) => x - 1_767_225_600)).toEqual([0, 15, 30, 60]);
    expect(Array.from(p.v)).toEqual([1, 2.5, 3, 6]);
    expect(codes(p)).toEqual(expect.arrayContaining(["non_finite", "unsorted", "duplicate_timestamps"]));
  });

  it("refuses millisecond timestamps instead of guessing", () => {
    const t = grid(50, 1_767_225_600_000, 15_000);
    const p = prepareWindow({ t, v: t.map(() => 1) }, base);
    expect(p.v.length).toBe(0);
    expect(p.flags[0]).toMatchObject({ code: "bad_timestamps", severity: "error" });
  });

  it("drops negative values of rates and gauges", () => {
    const t = grid(10);
    const p = prepareWindow({ t, v: [1, 2, -1, 3, 4, 5, 6, 7, 8, 9] }, base);
    expect(p.v.length).toBe(9);
    expect(codes(p)).toContain("negative_values");
  });

  it("turns counters into rates, drops the reset interval and excludes the warm-up after it", () => {
    const t = grid(200);
    // 10/s, restart at sample 100 (counter back to 5), then 10/s again.
    const v = t.map((_, i) => (i < 100 ? 1000 + i * 150 : 5 + (i - 100) * 150));
    const p = prepareWindow({ t, v }, { ...base, counter: true, warmupSeconds: 300 });
    expect(p.resets).toEqual([t[100]]);
    expect(Array.from(p.v).every((x) => x === 10)).toBe(true);
    // 99 intervals before the reset; 99 after it, of which the 19 within 300 s of the reset are warm-up.
    expect(p.v.length).toBe(99 + (99 - 19));
    expect(Array.from(p.t).some((x) => x >= t[100]! && x < t[100]! + 300)).toBe(false);
    expect(codes(p)).toEqual(expect.arrayContaining(["counter_reset", "warmup_excluded"]));
  });

  it("excludes warm-up after a known restart in gauges too", () => {
    const t = grid(120);
    const p = prepareWindow({ t, v: t.map(() => 1) }, { ...base, events: [t[40]!], warmupSeconds: 150 });
    expect(p.v.length).toBe(110);
    expect(codes(p)).toContain("warmup_excluded");
  });

  it("measures gaps, including missing data at the window edges", () => {
    const t = grid(240).filter((_, i) => i < 100 || i >= 140);
    const p = prepareWindow({ t, v: t.map(() => 1) }, base);
    const gap = p.flags.find((f) => f.code === "gaps")!;
    expect(gap.severity).toBe("info");
    expect(p.coverage).toBeCloseTo(1 - 600 / 3600, 2);
    const late = prepareWindow(
      { t, v: t.map(() => 1) },
      { ...base, bounds: { start: t[0]! - 3 * 3600, end: t[t.length - 1]! + 15 } },
    );
    expect(late.coverage).toBeLessThan(0.3);
    expect(late.flags.find((f) => f.code === "gaps")!.severity).toBe("warning");
  });

  it("returns an empty window for empty input", () => {
    const p = prepareWindow({ t: [], v: [] }, base);
    expect(p.v.length).toBe(0);
    expect(p.step).toBeNaN();
    expect(p.coverage).toBe(0);
  });
});
