import { describe, expect, it } from "vitest";
import type { BenchRun } from "./result.js";
import { change, median, summarise } from "./summary.js";

const r = (median: number, min = median, max = median) => ({ median, min, max });

describe("median", () => {
  it("takes the middle value or the mean of the two middle ones", () => {
    expect(median([3, 1, 2])).toBe(2);
    expect(median([4, 1, 3, 2])).toBe(2.5);
  });
});

describe("change", () => {
  it.each([
    ["clear gain", r(20, 18, 22), r(70, 65, 80), 2, "up"],
    ["clear loss", r(100, 95, 105), r(50, 45, 52), 2, "down"],
    ["ranges overlap", r(100, 90, 110), r(105, 95, 115), 2, "within noise"],
    // Separated, but the 6% change is smaller than ON's 10% spread between repeats.
    ["smaller than the spread", r(100, 95, 105), r(106, 106, 106.5), 2, "within noise"],
    ["one run each", r(100), r(150), 1, "single run"],
  ] as const)("%s", (_name, on, off, runs, call) => {
    expect(change(on, off, runs)!.call).toBe(call);
  });

  it("gives OFF ÷ ON − 1 of the medians and the widest range the repeats allow", () => {
    const c = change(r(20, 10, 25), r(60, 50, 80), 2)!;
    expect(c.estimate).toBeCloseTo(2);
    expect(c.low).toBeCloseTo(50 / 25 - 1);
    expect(c.high).toBeCloseTo(80 / 10 - 1);
  });

  it("has nothing to say without both settings or with a zero baseline", () => {
    expect(change(null, r(1), 2)).toBeNull();
    expect(change(r(0), r(1), 2)).toBeNull();
  });
});

function run(
  doublewrite: "on" | "off",
  threads: number,
  repeat: number,
  tps: number,
  device: number | null,
): BenchRun {
  return {
    doublewrite,
    repeat,
    threads,
    start: "2026-01-01T00:00:00.000Z",
    end: "2026-01-01T00:00:45.000Z",
    metrics: {
      transactions: tps * 45,
      seconds: 45,
      tps,
      latencyAvgMs: 10,
      latencyP95Ms: 20,
      errors: 0,
      writeOpsPerTrx: 5,
      writeBytesPerTrx: doublewrite === "on" ? 160_000 : 80_000,
      fsyncsPerTrx: 0.5,
      dblwrPagesPerTrx: doublewrite === "on" ? 5 : 0,
      pagesFlushedPerTrx: 5,
      redoBytesPerTrx: 2000,
      innodbWriteOpsPerSec: 100,
      freePageWaitsPerSec: 0,
      deviceWritesPerTrx: device,
      deviceWriteIops: device === null ? null : device * tps,
      deviceFlushesPerSec: null,
    },
  };
}

describe("summarise", () => {
  it("groups by thread count and setting, and leaves out metrics some runs lack", () => {
    const rows = summarise([
      run("on", 16, 1, 20, 14),
      run("off", 16, 1, 70, 4),
      run("off", 16, 2, 80, 4),
      run("on", 16, 2, 22, null),
      run("on", 4, 1, 15, 10),
    ]);
    expect(rows.map((x) => x.threads)).toEqual([4, 16]);
    const [four, sixteen] = rows;
    expect(four!.off).toBeNull();
    expect(four!.changes.tps).toBeNull();
    expect(sixteen!.on!.runs).toBe(2);
    expect(sixteen!.on!.metrics.tps).toEqual({ median: 21, min: 20, max: 22 });
    expect(sixteen!.on!.metrics.deviceWritesPerTrx).toBeNull();
    expect(sixteen!.changes.tps!.call).toBe("up");
    expect(sixteen!.changes.writeBytesPerTrx!.estimate).toBeCloseTo(-0.5);
    expect(sixteen!.changes.dblwrPagesPerTrx!.call).toBe("down");
  });
});
