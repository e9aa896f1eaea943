import { describe, expect, it } from "vitest";
import { fallbackMetricList } from "./fallback-metrics.js";
import { metricList } from "./metrics.js";
import { parsePromql } from "./promql-check.js";
import {
  DOUBLEWRITE_WAIT_BASELINE_AVG,
  DOUBLEWRITE_WAIT_RECORD,
  recordingRuleGroups,
  recordingRuleNames,
  recordingRules,
} from "./rules.js";
import { componentList, signalList } from "./signals.js";

const raw = new Set([...metricList, ...fallbackMetricList].map((m) => m.name));

describe("recording rules", () => {
  it("follow level:metric:operations and are unique", () => {
    for (const name of recordingRuleNames)
      expect(name).toMatch(/^instance:untorn_[a-z0-9_]+:(rate5m(_[a-z]+[0-9]+[a-z])?|max)$/);
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
