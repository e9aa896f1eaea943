import { describe, expect, it } from "vitest";
import { fallbackMetricList } from "./fallback-metrics.js";
import { metricList } from "./metrics.js";
import { vec } from "./promql.js";
import { parsePromql } from "./promql-check.js";
import {
  DEFAULT_FLEET_WINDOW,
  DOUBLEWRITE_WAIT_BASELINE_AVG,
  DOUBLEWRITE_WAIT_RECORD,
  RECORDED_WINDOW,
  recordingRuleGroups,
  recordingRuleNames,
  recordingRules,
  recordingRulesProbe,
  WINDOW_PROBE_RECORD,
  windowRecord,
  windowRecorded,
  windowRecordedStats,
} from "./rules.js";
import { componentList, signalList } from "./signals.js";
import { recordedWindowStats } from "./window-stats.js";

const raw = new Set([...metricList, ...fallbackMetricList].map((m) => m.name));

describe("recording rules", () => {
  it("follow level:metric:operations and are unique", () => {
    for (const name of recordingRuleNames)
      expect(name).toMatch(/^instance:untorn_[a-z0-9_]+:(rate5m|max)(_[a-z]+[0-9]+[a-z]|_(avg|p95)_1h)?$/);
    expect(new Set(recordingRuleNames).size).toBe(recordingRuleNames.length);
  });

  it("record every component and signal that names a rule", () => {
    for (const c of componentList) if (c.record) expect(recordingRuleNames).toContain(c.record);
    for (const s of signalList) if (s.record) expect(recordingRuleNames).toContain(s.record);
  });

  it("parse, and read raw series or rules evaluated before them", () => {
    const seen = new Set<string>();
    for (const group of recordingRuleGroups) {
      for (const rule of group.rules) {
        const parsed = parsePromql(rule.expr);
        expect(parsed.errors, rule.record).toEqual([]);
        for (const name of parsed.metricNames)
          expect(raw.has(name) || seen.has(name), `${rule.record} reads ${name}`).toBe(true);
        expect(parsed.metricNames).not.toContain(rule.record);
        expect(rule.help.length).toBeGreaterThan(10);
        seen.add(rule.record);
      }
    }
  });

  it("store component rules at the 5m window on either exporter", () => {
    const pages = recordingRules.find((r) => r.record === "instance:untorn_doublewrite_pages:rate5m");
    expect(pages?.expr).toBe(
      "sum by (instance) (rate(untorn_innodb_dblwr_pages_written_total[5m])) or on(instance) sum by (instance) (rate(mysql_global_status_innodb_dblwr_pages_written[5m]))",
    );
  });

  it("record gauges as their latest value per instance, and untorn-only counters without a fallback", () => {
    const age = recordingRules.find((r) => r.record === "instance:untorn_checkpoint_age_bytes:max");
    expect(age?.expr).toMatch(
      /^max by \(instance\) \(untorn_innodb_checkpoint_age_bytes\) or on\(instance\) /,
    );
    expect(age?.help).toContain("latest value");
    const rows = recordingRules.find((r) => r.record === "instance:untorn_row_operations:rate5m");
    expect(rows?.expr).toBe("sum by (instance, operation) (rate(untorn_innodb_row_operations_total[5m]))");
    expect(rows?.help).toContain("untorn-exporter only");
    const cls = recordingRules.find((r) => r.record === "instance:untorn_file_writes:rate5m");
    expect(cls?.expr).toMatch(/^sum by \(instance, class\) /);
  });

  it("say where they have data and how much history they need", () => {
    const io = recordingRules.find((r) => r.record === "instance:untorn_doublewrite_io_wait_seconds:rate5m");
    expect(io?.needs).toEqual({ performanceSchema: true });
    const device = recordingRules.find((r) => r.record === "instance:untorn_device_writes:rate5m");
    expect(device?.needs).toEqual({ hostStorage: true });
    expect(recordingRules.filter((r) => r.minHistory).map((r) => r.record)).toEqual([
      DOUBLEWRITE_WAIT_BASELINE_AVG,
      "instance:untorn_doublewrite_wait_seconds:rate5m_stddev1d",
    ]);
  });

  it("take the spike baseline over a day that ends an hour ago, only with enough history", () => {
    const avg = recordingRules.find((r) => r.record === DOUBLEWRITE_WAIT_BASELINE_AVG);
    expect(avg?.expr).toBe(
      `avg_over_time(${DOUBLEWRITE_WAIT_RECORD}[1d] offset 1h) and on(instance) present_over_time(${DOUBLEWRITE_WAIT_RECORD}[1d] offset 7h)`,
    );
  });
});

describe("untorn.window: the per-instance series' statistics over the default window", () => {
  const group = recordingRuleGroups.find((g) => g.name === "untorn.window");
  const rates = recordingRuleGroups.find((g) => g.name === "untorn.rates");

  it("comes right after untorn.rates, every minute, two statistics of each of its series", () => {
    expect(recordingRuleGroups.map((g) => g.name)).toEqual([
      "untorn.rates",
      "untorn.window",
      "untorn.baselines",
    ]);
    expect(group?.interval).toBe("1m");
    expect(RECORDED_WINDOW.window).toBe(DEFAULT_FLEET_WINDOW);
    expect(group?.rules.map((r) => r.record)).toEqual(
      rates?.rules.flatMap((r) => [`${r.record}_avg_1h`, `${r.record}_p95_1h`]),
    );
  });

  it("stores the expressions the fleet profile sends over the per-instance series", () => {
    const find = (name: string) => group?.rules.find((r) => r.record === name);
    const pages = "instance:untorn_doublewrite_pages:rate5m";
    // A rate at t covers (t - 5m, t]: the rates of the last 55m cover the hour.
    expect(find(windowRecord(pages, "avg"))?.expr).toBe(`avg_over_time(${pages}[3300s])`);
    expect(find(windowRecord(pages, "p95"))?.expr).toBe(`quantile_over_time(0.95, ${pages}[1h])`);
    const age = "instance:untorn_checkpoint_age_bytes:max";
    expect(find(windowRecord(age, "avg"))?.expr).toBe(`avg_over_time(${age}[1h])`);
    expect(find(windowRecord(age, "avg"))?.help).toMatch(/^Average over the last 1h of /);
    for (const r of group?.rules ?? []) {
      const stat = r.record.endsWith("_avg_1h") ? "avg" : "p95";
      const tier1 = r.record.replace(/_(avg|p95)_1h$/, "");
      const avgRange = tier1.endsWith(":max") ? "1h" : "3300s";
      // The same text as one statistic of the plan's own query, less its tag.
      expect(recordedWindowStats(vec(tier1, []), [stat], "1h", avgRange, "5m").q).toContain(r.expr);
    }
  });

  it("is read as tagged plain selectors, for the recorded window and statistics only", () => {
    const v = vec('instance:untorn_file_writes:rate5m{instance="db-1"}', ["class"]);
    expect(windowRecordedStats(v, ["avg", "p95"], "1h")?.q).toBe(
      'label_replace(instance:untorn_file_writes:rate5m_avg_1h{instance="db-1"}, "untorn_stat", "avg", "", "") or label_replace(instance:untorn_file_writes:rate5m_p95_1h{instance="db-1"}, "untorn_stat", "p95", "", "")',
    );
    expect(windowRecordedStats(v, ["avg", "p95"], "1h")?.labels).toEqual(["class", "untorn_stat"]);
    expect(windowRecordedStats(v, ["avg", "p95"], "30m")).toBeNull();
    expect(windowRecordedStats(v, ["avg", "p99"], "1h")).toBeNull();
    expect(windowRecordedStats(vec("rate(x[5m])", []), ["avg"], "1h")).toBeNull();
    expect(windowRecordedStats(vec("instance:untorn_nothing:rate5m", []), ["avg"], "1h")).toBeNull();
    expect(windowRecorded("1h", ["avg"])).toBe(true);
    expect(windowRecorded("1h", ["avg", "max"])).toBe(false);
    expect(windowRecorded("60m", ["avg"])).toBe(false);
  });

  it("is part of the one probe request: a third count, of its last rule's series now", () => {
    const q = recordingRulesProbe("1h", "db-1");
    expect(q).toBe(
      [
        'label_replace(count(instance:untorn_redo_written_bytes:rate5m{instance="db-1"}), "untorn_probe", "now", "", "")',
        'label_replace(count(instance:untorn_redo_written_bytes:rate5m{instance="db-1"} offset 1h), "untorn_probe", "start", "", "")',
        'label_replace(count(instance:untorn_redo_written_bytes:rate5m_p95_1h{instance="db-1"}), "untorn_probe", "window", "", "")',
      ].join(" or "),
    );
    expect(group?.rules.at(-1)?.record).not.toBe(undefined);
    expect(group?.rules.map((r) => r.record)).toContain(WINDOW_PROBE_RECORD);
    expect(parsePromql(q).errors).toEqual([]);
  });
});
