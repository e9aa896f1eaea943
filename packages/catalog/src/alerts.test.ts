import { describe, expect, it } from "vitest";
import { alertNames, alertRuleGroups, alertRules, prometheusAlertingRule, runbookUrl } from "./alerts.js";
import { consoleMetrics } from "./console-metrics.js";
import { fallbackMetricList } from "./fallback-metrics.js";
import { metricList } from "./metrics.js";
import { isWindow } from "./promql.js";
import { parsePromql } from "./promql-check.js";
import { recordingRuleNames, recordingRules } from "./rules.js";
import { signals } from "./signals.js";

const known = new Set(
  [...metricList, ...fallbackMetricList, ...Object.values(consoleMetrics)]
    .map((m) => m.name)
    .concat(recordingRuleNames, ["up"]),
);

describe("alert rules", () => {
  it("are named UntornPascalCase, once each", () => {
    for (const name of alertNames) expect(name).toMatch(/^Untorn([A-Z][a-z0-9]*)+$/);
    expect(new Set(alertNames).size).toBe(alertNames.length);
    expect(alertNames).toEqual(
      expect.arrayContaining([
        "UntornDoublewriteWaitSpike",
        "UntornDoublewriteOffUnverifiedStorage",
        "UntornFsyncLatencyHigh",
        "UntornExporterDown",
        "UntornCollectorFailing",
      ]),
    );
  });

  describe.each(alertRules.map((a) => [a.name, a] as const))("%s", (_name, a) => {
    it("parses and reads only known series", () => {
      const parsed = parsePromql(a.expr);
      expect(parsed.errors).toEqual([]);
      for (const name of parsed.metricNames) expect(known.has(name), name).toBe(true);
      for (const r of a.recordingRules) expect(parsed.metricNames).toContain(r);
      for (const id of a.signals) expect(signals[id]).toBeDefined();
    });

    it("has a summary, a description with the value, and a runbook link", () => {
      expect(a.summary).toContain("{{ $labels.instance }}");
      expect(a.description).toMatch(/\{\{ \$value( \| humanize[A-Za-z0-9]*)? \}\}/);
      expect(a.runbook).toBe(a.name.toLowerCase());
      expect(runbookUrl(a)).toMatch(/^https:\/\/.+\/docs\/runbook\.md#untorn[a-z]+$/);
      expect(["critical", "warning"]).toContain(a.severity);
    });

    it("gives every threshold and its `for` a reason, and uses the threshold's value", () => {
      expect(isWindow(a.for)).toBe(true);
      expect(a.forReason.length).toBeGreaterThan(30);
      for (const [key, t] of Object.entries(a.thresholds)) {
        expect(t.reason.length, key).toBeGreaterThan(40);
        if (t.range) {
          // A lookback: in the expression, or in the recording rules it reads (the baseline's).
          const exprs = [
            a.expr,
            ...recordingRules.filter((r) => a.recordingRules.includes(r.record)).map((r) => r.expr),
          ];
          expect(exprs.join("\n"), key).toMatch(new RegExp(`(\\[|offset )${t.range}\\]?`));
        } else expect(a.expr).toMatch(new RegExp(`[ (]${String(t.value).replace(".", "\\.")}(\\)|$| )`));
      }
    });

    it("renders as a Prometheus alerting rule", () => {
      const r = prometheusAlertingRule(a);
      expect(r).toEqual({
        alert: a.name,
        expr: a.expr,
        for: a.for,
        labels: { severity: a.severity },
        annotations: { summary: a.summary, description: a.description, runbook_url: runbookUrl(a) },
      });
    });
  });

  it("keeps the spike alert on the recorded wait, its baseline and uptime", () => {
    const spike = alertRules.find((a) => a.name === "UntornDoublewriteWaitSpike");
    expect(spike?.expr).toContain("instance:untorn_doublewrite_wait_seconds:rate5m > 0.1");
    expect(spike?.expr).toContain("instance:untorn_doublewrite_wait_seconds:rate5m_avg1d * 3");
    expect(spike?.expr).toContain("instance:untorn_doublewrite_wait_seconds:rate5m_stddev1d * 3");
    expect(spike?.expr).toContain("> 1800");
  });

  it("exempts managed, copy-on-write and human-verified storage from the doublewrite-off alert", () => {
    const off = alertRules.find((a) => a.name === "UntornDoublewriteOffUnverifiedStorage")?.expr ?? "";
    expect(off).toContain('managed=~"rds|aurora"');
    expect(off).toContain('fstype="zfs"');
    expect(off).toContain('untorn_atomic_storage="verified"');
  });

  it("flags a rollout paused past four hours, from the console's own metric", () => {
    const waiting = alertRules.find((a) => a.name === "UntornRolloutWaitingTooLong");
    expect(waiting?.expr).toBe("time() - untorn_console_rollout_waiting_since_timestamp_seconds > 14400");
  });

  it("ships as one Prometheus rule group", () => {
    expect(alertRuleGroups[0].rules.map((r) => r.alert)).toEqual(alertNames);
  });
});
