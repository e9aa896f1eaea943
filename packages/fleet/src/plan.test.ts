import { recordingRuleNames, windowRuleNames } from "@untorn/catalog/rules";
import { describe, expect, it } from "vitest";
import {
  factQueries,
  planOptions,
  RECORDED_SPEC_IDS,
  recordingRulesUsable,
  WINDOWED,
  windowRulesUsable,
} from "./plan.js";

describe("the recorded plan", () => {
  const recorded = factQueries(planOptions({ window: "1h", recorded: true }));
  const raw = factQueries(planOptions({ window: "1h" }));
  const windowed = recorded.filter((q) => q.kind === "windowed");

  it("reads every window statistic from the recording rules' series", () => {
    expect(RECORDED_SPEC_IDS).toEqual(WINDOWED.map((s) => s.id));
    for (const q of windowed) {
      expect(q.expr, q.id).not.toMatch(/\brate\(/);
      expect(q.expr, q.id).not.toMatch(/\[[0-9a-z]+:[0-9a-z]+\]/); // no subquery
      const names = q.expr.match(/instance:untorn_[a-z0-9_]+:[a-z0-9_]+/g) ?? [];
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

describe("the plan over untorn.window's statistics", () => {
  const windowPlan = (o: Partial<Parameters<typeof planOptions>[0]> = {}) =>
    factQueries(planOptions({ window: "1h", recorded: true, recordedWindow: true, ...o }));
  const tier1 = factQueries(planOptions({ window: "1h", recorded: true }));
  const windowedOf = (qs: ReturnType<typeof factQueries>) => qs.filter((q) => q.kind === "windowed");

  it("reads each statistic as a plain selector of its recorded series, with the instance selector", () => {
    const qs = windowPlan({ selector: { instance: "db-1:9105" } });
    expect(qs.map((q) => q.id)).toEqual(tier1.map((q) => q.id));
    for (const q of windowedOf(qs)) {
      expect(q.expr, q.id).not.toMatch(/_over_time|\[/);
      const names = q.expr.match(/instance:untorn_[a-z0-9_]+:[a-z0-9_]+/g) ?? [];
      expect(names, q.id).toHaveLength(2);
      for (const n of names) expect(windowRuleNames.has(n), n).toBe(true);
      expect(q.expr.match(/\{instance="db-1:9105"\}/g), q.id).toHaveLength(2);
    }
    const rows = windowedOf(qs).find((q) => q.id === "rates.rows")!;
    expect(rows.expr).toBe(
      'label_replace(instance:untorn_row_operations:rate5m_avg_1h{instance="db-1:9105"}, "untorn_stat", "avg", "", "") or label_replace(instance:untorn_row_operations:rate5m_p95_1h{instance="db-1:9105"}, "untorn_stat", "p95", "", "")',
    );
    // The instant facts and the quality query do not change.
    const others = (xs: ReturnType<typeof factQueries>) => xs.filter((q) => q.kind !== "windowed");
    expect(others(windowPlan())).toEqual(others(tier1));
  });

  it("reads the per-instance rates instead for another window or a statistic not recorded", () => {
    expect(windowedOf(windowPlan({ window: "30m" }))).toEqual(
      windowedOf(factQueries(planOptions({ window: "30m", recorded: true }))),
    );
    const p99 = windowPlan({ stats: ["avg", "p95", "p99"] });
    expect(windowedOf(p99)).toEqual(
      windowedOf(factQueries(planOptions({ window: "1h", recorded: true, stats: ["avg", "p95", "p99"] }))),
    );
    expect(windowedOf(p99)[0]!.expr).toContain("quantile_over_time(0.99, instance:untorn_");
    // avg alone is recorded too.
    expect(windowedOf(windowPlan({ stats: ["avg"] }))[0]!.expr).toBe(
      'label_replace(instance:untorn_doublewrite_pages:rate5m_avg_1h, "untorn_stat", "avg", "", "")',
    );
    expect(windowRulesUsable({ window: "30m", stats: ["avg"] })).toMatch(
      /a 30m window \(untorn.window records 1h\)/,
    );
    expect(windowRulesUsable({ window: "1h", stats: ["avg", "p99"] })).toMatch(/p99 asked/);
    expect(windowRulesUsable({ window: "1h", stats: ["avg", "p95"] })).toBeNull();
  });

  it("needs the per-instance rates to be read at all: never on its own, never with other selectors", () => {
    expect(factQueries(planOptions({ window: "1h", recordedWindow: true }))).toEqual(
      factQueries(planOptions({ window: "1h" })),
    );
    expect(recordingRulesUsable({ selector: { cluster: "prod" }, source: "any" })).toMatch(
      /selector on cluster/,
    );
    expect(recordingRulesUsable({ selector: {}, source: "untorn" })).toMatch(/untorn-exporter-only/);
  });
});
