import { describe, expect, it } from "vitest";
import { assertPromql, parsePromql } from "./promql-check.js";

describe("parsePromql", () => {
  it("reports syntax errors", () => {
    expect(parsePromql("sum by (instance (rate(x[5m]))").errors.length).toBeGreaterThan(0);
    expect(() => assertPromql("rate(x[5m]")).toThrow(/syntax error/);
  });

  it("lists selectors, matchers and ranges", () => {
    const p = parsePromql('rate(a{instance="db1", mode=~"w"}[2m]) / on(instance) b');
    expect(p.errors).toEqual([]);
    expect(p.metricNames).toEqual(["a", "b"]);
    expect(p.selectors[0]?.matchers).toEqual(['instance="db1"', 'mode=~"w"']);
    expect(p.ranges).toEqual(["2m"]);
  });
});
