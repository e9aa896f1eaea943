import { describe, expect, it } from "vitest";
import type { MatrixSeries, VectorSample } from "./result.js";
import {
  DuplicateSeriesError,
  MissingLabelError,
  rangeToSeries,
  rangeToSeriesMap,
  toSeriesMap,
} from "./series.js";

const sample = (labels: Record<string, string>, value: number): VectorSample => ({
  labels,
  timestamp: 1,
  value,
});

describe("toSeriesMap", () => {
  it("keys values by instance", () => {
    const m = toSeriesMap([
      sample({ instance: "db1:9104" }, 0.5),
      sample({ instance: "db2:9104" }, Number.NaN),
    ]);
    expect([...m.keys()]).toEqual(["db1:9104", "db2:9104"]);
    expect(m.get("db1:9104")).toBe(0.5);
    expect(m.get("db2:9104")).toBeNaN();
  });

  it("keys by another label", () => {
    expect(toSeriesMap([sample({ cluster: "c1", instance: "x" }, 2)], "cluster").get("c1")).toBe(2);
  });

  it("refuses two samples with the same key", () => {
    const v = [sample({ instance: "db1", mode: "read" }, 1), sample({ instance: "db1", mode: "write" }, 2)];
    expect(() => toSeriesMap(v)).toThrow(DuplicateSeriesError);
    expect(() => toSeriesMap(v)).toThrow(
      'two series have instance="db1": {instance="db1", mode="read"} and {instance="db1", mode="write"}; aggregate the query by (instance)',
    );
  });

  it("refuses a sample without the label", () => {
    expect(() => toSeriesMap([sample({ job: "x" }, 1)])).toThrow(MissingLabelError);
    expect(() => toSeriesMap([sample({ job: "x" }, 1)])).toThrow(/no "instance" label/);
  });
});

describe("rangeToSeries", () => {
  const matrix: MatrixSeries[] = [
    {
      labels: { instance: "a" },
      points: [
        [10, 1],
        [20, Number.NaN],
        [30, 3],
      ],
    },
    { labels: { instance: "b" }, points: [] },
  ];

  it("splits points into parallel arrays in order", () => {
    const [a, b] = rangeToSeries(matrix);
    expect(a?.t).toEqual([10, 20, 30]);
    expect(a?.v[0]).toBe(1);
    expect(a?.v[1]).toBeNaN();
    expect(a?.v[2]).toBe(3);
    expect(b).toEqual({ labels: { instance: "b" }, t: [], v: [] });
  });

  it("keys by a label and refuses duplicates", () => {
    expect(rangeToSeriesMap(matrix).get("a")?.t).toEqual([10, 20, 30]);
    const dup: MatrixSeries[] = [
      { labels: { instance: "a", x: "1" }, points: [] },
      { labels: { instance: "a", x: "2" }, points: [] },
    ];
    expect(() => rangeToSeriesMap(dup)).toThrow(DuplicateSeriesError);
  });
});
