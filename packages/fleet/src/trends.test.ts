import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Point } from "@untorn/prom/result";
import { describe, expect, it } from "vitest";
import { CountingApi, type PromQueryApi } from "./api.js";
import { instanceCharts } from "./charts.js";
import { recordFleet } from "./record.js";
import { decodeReplay, decodeReplayApi, encodeReplay, ReplayApi, ReplayMissError } from "./replay.js";
import { fakeReplay } from "./testing/fake-api.js";
import { FIXTURE_FLEET } from "./testing/fixtures.js";
import { downsample, fleetTrends, TREND_POINTS, TREND_SIGNAL, trendOf, trendQuery } from "./trends.js";

const AT = 1_790_000_000;
const LAB = fileURLToPath(new URL("../../../lab/recordings/mariadb-10.11-fleet.json.gz", import.meta.url));

const series = (values: readonly number[], start = 0, step = 1): Point[] =>
  values.map((v, i) => [start + i * step, v] as const);

describe("downsample (largest triangle, three buckets)", () => {
  it("keeps a series that already fits, and refuses to cut below 3 points", () => {
    const s = series([1, 2, 3]);
    expect(downsample(s, 3)).toEqual(s);
    expect(downsample(s, 10)).toEqual(s);
    expect(downsample(series([1, 2, 3, 4, 5]), 2)).toHaveLength(5);
    expect(downsample([], 5)).toEqual([]);
  });

  it("keeps the first and last points, one point per bucket, in time order", () => {
    const s = series(Array.from({ length: 500 }, (_, i) => Math.sin(i / 20) + 2));
    const d = downsample(s, 40);
    expect(d).toHaveLength(40);
    expect(d[0]).toEqual(s[0]);
    expect(d.at(-1)).toEqual(s.at(-1));
    for (let i = 1; i < d.length; i++) expect(d[i]![0]).toBeGreaterThan(d[i - 1]![0]);
    for (const p of d) expect(s).toContainEqual(p);
  });

  it("keeps a one-point spike that the bucket's triangle alone could drop", () => {
    // The documented example, and a flat line with one spike among 1,000 points.
    expect(downsample(series([1, 5, 2, 2, 1]), 3)).toEqual([
      [0, 1],
      [1, 5],
      [4, 1],
    ]);
    const flat = series(Array.from({ length: 1000 }, (_, i) => (i === 613 ? 90 : 10)));
    const d = downsample(flat, 20);
    expect(Math.max(...d.map((p) => p[1]))).toBe(90);
    expect(d).toContainEqual([613, 90]);
  });

  it("picks the point that bends the line most in a bucket", () => {
    // Between 0 and the next bucket's mean (~0), the bucket's outlier at index 2 makes the largest triangle.
    const s = series([0, 0, -8, 0, 0, 0, 0]);
    expect(downsample(s, 4)).toContainEqual([2, -8]);
  });
});

describe("trendOf", () => {
  it("reads first, last, peak and min over every point, not only the kept ones", () => {
    const values = Array.from({ length: 300 }, (_, i) => (i === 151 ? 400 : 100 + (i % 7)));
    const t = trendOf(series(values, 1000, 15), 15, 30)!;
    expect(t.points).toBe(300);
    expect(t.first).toEqual([1000, 100]);
    expect(t.last).toEqual([1000 + 299 * 15, 100 + (299 % 7)]);
    expect(t.peak).toEqual([1000 + 151 * 15, 400]);
    expect(t.min).toBe(100);
    expect(t.segments).toHaveLength(1);
    expect(t.segments[0]!.length).toBeLessThanOrEqual(30);
  });

  it("draws a gap of more than two steps as a gap and skips values that are not numbers", () => {
    const pts: Point[] = [
      [0, 1],
      [10, 2],
      [20, Number.NaN],
      [30, 3],
      [40, 4],
      // 3 steps missing
      [80, 5],
      [90, Number.POSITIVE_INFINITY],
      [100, 6],
    ];
    const t = trendOf(pts, 10)!;
    expect(t.segments.map((s) => s.map((p) => p[0]))).toEqual([
      [0, 10, 30, 40],
      [80, 100],
    ]);
    expect(t.points).toBe(6);
    expect(t.peak).toEqual([100, 6]);
  });

  it("is null, not a flat zero, when no value is a number", () => {
    expect(trendOf([], 15)).toBeNull();
    expect(trendOf([[0, Number.NaN]], 15)).toBeNull();
  });
});

describe("fleetTrends", () => {
  const source = () =>
    new ReplayApi(
      fakeReplay(FIXTURE_FLEET, {
        window: "30m",
        times: [AT - 600, AT - 300, AT],
        chart: { start: AT - 600, end: AT, step: 3 },
      }),
    );

  it("asks for the whole fleet in one range query whatever its size", async () => {
    const counting = new CountingApi(source());
    const t = await fleetTrends(counting, { start: AT - 600, end: AT, step: 3 });
    expect(counting.count).toBe(1);
    expect(t.signal).toBe(TREND_SIGNAL);
    expect(t.unit).toBe("pages/s");
    expect(t.query).toBe(trendQuery({}, { start: AT - 600, end: AT, step: 3 }));
    expect(t.query).not.toContain("instance=");
    expect(t.byInstance.size).toBeGreaterThan(1);
  });

  it("answers a recording from the instance charts' fleet-wide series, with the numbers the instance page charts", async () => {
    const rec = await recordFleet(source(), {
      window: "30m",
      span: "10m",
      every: "5m",
      at: AT,
      chartStep: 3,
      recordedFrom: "http://prom:9090",
      tool: "untorn test",
    });
    const file = decodeReplay(encodeReplay(rec.file));
    const replay = new ReplayApi(file);
    const range = file.meta.charts!;
    const t = await fleetTrends(replay, range);
    // The recorder's own fleet-wide entry (not one it derived per instance) is what answers.
    const entry = file.range.find((e) => e.query === t.query);
    expect(entry?.derived).toBeFalsy();
    for (const instance of file.meta.instances) {
      const chart = (await instanceCharts(replay, instance, range)).charts.find(
        (c) => c.id === "write-path",
      )!;
      const dw = chart.series.find((s) => s.name === "doublewrite pages");
      const trend = t.byInstance.get(instance);
      if (!dw) {
        expect(trend, instance).toBeUndefined();
        continue;
      }
      const values = dw.points.map((p) => p[1]);
      expect(trend?.first, instance).toEqual(dw.points[0]);
      expect(trend?.last, instance).toEqual(dw.points.at(-1));
      expect(trend?.peak[1], instance).toBe(Math.max(...values));
    }
  });

  it("reads the shipped lab recording's fleet as its instance charts do", async () => {
    const lab = decodeReplayApi(readFileSync(LAB));
    const range = lab.meta.charts!;
    const t = await fleetTrends(lab, range);
    expect(t.byInstance.size).toBe(lab.meta.instances.length);
    for (const instance of ["db-shop-replica-1", "db-dw-off-large-bp-1"]) {
      const chart = (await instanceCharts(lab, instance, range)).charts.find((c) => c.id === "write-path")!;
      const dw = chart.series.find((s) => s.name === "doublewrite pages")!;
      const trend = t.byInstance.get(instance)!;
      expect(trend.points).toBe(dw.points.length);
      expect(trend.last).toEqual(dw.points.at(-1));
      expect(trend.peak[1]).toBe(Math.max(...dw.points.map((p) => p[1])));
      expect(trend.segments.flat().length).toBeLessThanOrEqual(TREND_POINTS + 3);
    }
    // A sub-range of the recording, at its recorded step, is answered from the same entry.
    const last5 = await fleetTrends(lab, { ...range, start: range.end - 300 });
    expect(last5.query).toBe(t.query);
    expect(last5.byInstance.get("db-shop-replica-1")!.first[0]).toBeGreaterThanOrEqual(range.end - 300);
  });

  it("says the recording holds no series rather than drawing one, when it has none for the range", async () => {
    const noCharts = new ReplayApi(fakeReplay(FIXTURE_FLEET, { window: "30m", times: [AT] }));
    await expect(fleetTrends(noCharts, { start: AT - 600, end: AT, step: 3 })).rejects.toBeInstanceOf(
      ReplayMissError,
    );
    await expect(fleetTrends(source(), { start: AT - 600, end: AT, step: 5 })).rejects.toThrow(/step/);
  });

  it("refuses an empty range and passes the source's failure on", async () => {
    await expect(fleetTrends(source(), { start: AT, end: AT, step: 3 })).rejects.toThrow(/start < end/);
    await expect(fleetTrends(source(), { start: AT - 60, end: AT, step: 0 })).rejects.toThrow(/step/);
    const down: PromQueryApi = {
      queryVector: () => Promise.reject(new Error("connection refused")),
      queryRange: () => Promise.reject(new Error("connection refused")),
    };
    await expect(fleetTrends(down, { start: AT - 60, end: AT, step: 3 })).rejects.toThrow(
      "connection refused",
    );
  });
});
