import { recordingRuleNames } from "@untorn/catalog/rules";
import { describe, expect, it } from "vitest";
import { factQueries, planOptions, RECORDED_SPEC_IDS, WINDOWED } from "./plan.js";

describe("the recorded plan", () => {
  const recorded = factQueries(planOptions({ window: "1h", recorded: true }));
  const raw = factQueries(planOptions({ window: "1h" }));
  const windowed = recorded.filter((q) => q.kind === "windowed");

  it("reads every window statistic from the recording rules' series", () => {
    expect(RECORDED_SPEC_IDS).toEqual(WINDOWED.map((s) => s.id));
    for (const q of windowed) {
      expect(q.expr, q.id).not.toMatch(/\brate\(/);
      expect(q.expr, q.id).not.toMatch(/\[[0-9a-z]+:[0-9a-z]+\]/); // no subquery
      const names = q.expr.match(/instance:untorn_[a-z0-9_]+:[a-z0-9]+/g) ?? [];
      expect(names.length, q.id).toBeGreaterThan(0);
      for (const n of names) expect(recordingRuleNames, q.id).toContain(n);
    }
  });

  it("averages recorded rates over the window less the rule's rate window, gauges over the whole window", () => {
    const commits = windowed.find((q) => q.id === "rates.commits")!;
    expect(commits.expr).toContain("avg_over_time(instance:untorn_transactions:rate5m[3300s])");
    expect(commits.expr).toContain("quantile_over_time(0.95, instance:untorn_transactions:rate5m[1h])");
    const dirty = windowed.find((q) => q.id === "gauges.dirtyPages")!;
    expect(dirty.expr).toContain("avg_over_time(instance:untorn_buffer_pool_dirty_pages:max[1h])");
  });

  it("keeps the raw plan's request count and order", () => {
    expect(recorded.map((q) => q.id)).toEqual(raw.map((q) => q.id));
    for (const q of raw.filter((x) => x.kind === "windowed")) expect(q.expr).toMatch(/\brate\(|\[1h:/);
  });
});
