import { describe, expect, it } from "vitest";
import { vec } from "./promql.js";
import { parsePromql } from "./promql-check.js";
import { signals } from "./signals.js";
import {
  recordedWindowStats,
  STAT_LABEL,
  sampledSteps,
  stepCount,
  union,
  windowStats,
} from "./window-stats.js";

const rate = (w: string) =>
  signals.doublewrite_pages_per_second.vec({ selector: { instance: "db1" }, window: w });

describe("window statistics", () => {
  it("takes a counter's average over the whole window and its quantiles over per-step rates", () => {
    const q = windowStats("rate", rate("1h"), rate("1m"), ["avg", "p95", "max"], "1h", "2m").q;
    expect(parsePromql(q).errors).toEqual([]);
    expect(q).toContain(`label_replace(sum by (instance) (rate(`);
    expect(q).toContain("quantile_over_time(0.95, (");
    expect(q).toContain(")[1h:2m])");
    expect(q).toContain(`"${STAT_LABEL}", "max"`);
    expect(q).not.toContain("avg_over_time");
  });

  it("reads a recorded series with a plain range, a subquery only around an expression", () => {
    const plain = recordedWindowStats(
      vec('instance:x:rate5m{instance="db1"}'),
      ["avg", "p95"],
      "1h",
      "55m",
      "2m",
    ).q;
    expect(plain).toContain('avg_over_time(instance:x:rate5m{instance="db1"}[55m])');
    expect(plain).toContain('quantile_over_time(0.95, instance:x:rate5m{instance="db1"}[1h])');
    const expr = recordedWindowStats(vec("a / b", [], false), ["avg"], "1h", "55m", "2m").q;
    expect(expr).toContain("avg_over_time((a / b)[55m:2m])");
  });

  it("counts sampled steps from either exporter's uptime, and the steps themselves", () => {
    const any = sampledSteps({ selector: { instance: "db1" }, source: "any" }, "1m", "1h", "2m").q;
    expect(parsePromql(any).errors).toEqual([]);
    expect(any).toContain("untorn_mysql_uptime_seconds");
    expect(any).toContain(" or ");
    const untorn = sampledSteps({ selector: {}, source: "untorn" }, "1m", "1h", "2m").q;
    expect(untorn).not.toContain(" or ");
    expect(stepCount("1h", "2m").q).toBe("count_over_time((vector(1))[1h:2m])");
  });

  it("refuses a union of nothing", () => {
    expect(() => union([])).toThrow(/union of nothing/);
  });
});
