import { describe, expect, it } from "vitest";
import { consoleMetrics } from "./console-metrics.js";
import { consoleSignalList, consoleSignals, isConsoleSignalId } from "./console-signals.js";
import { parsePromql } from "./promql-check.js";
import { signals } from "./signals.js";

/** The series names a console metric exposes: a histogram's three, a gauge's one. */
const seriesOf = (m: { name: string; type: string }) =>
  m.type === "histogram" ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name];

describe("console signals", () => {
  it.each(consoleSignalList.map((s) => [s.id, s] as const))(
    "%s parses and reads only its console metrics",
    (_id, s) => {
      const parsed = parsePromql(s.expr());
      expect(parsed.errors).toEqual([]);
      const declared = s.metrics.flatMap(seriesOf);
      expect(parsed.metricNames.length).toBeGreaterThan(0);
      for (const name of parsed.metricNames) expect(declared, name).toContain(name);
      // Never the database signals' instance grouping: these series are the console's, not a database's.
      expect(s.expr()).not.toMatch(/by \([^)]*instance/);
    },
  );

  it("read every series the console exposes", () => {
    const read = new Set(consoleSignalList.flatMap((s) => parsePromql(s.expr()).metricNames));
    for (const m of Object.values(consoleMetrics))
      expect(
        seriesOf(m).some((n) => read.has(n)),
        m.name,
      ).toBe(true);
  });

  it("never add up consoles: two consoles on one store report the same rollouts", () => {
    for (const s of consoleSignalList) expect(s.expr(), s.id).not.toMatch(/\bsum\b/);
  });

  it("AND a selector into every series selector", () => {
    for (const s of consoleSignalList) {
      const parsed = parsePromql(s.expr({ selector: { job: "untorn-console" } }));
      expect(parsed.selectors.length, s.id).toBeGreaterThan(0);
      for (const sel of parsed.selectors) expect(sel.matchers, s.id).toEqual(['job="untorn-console"']);
    }
  });

  it("read the time to a verdict as a quantile of the histogram's buckets, and refuse a quantile outside (0, 1)", () => {
    const s = consoleSignals.console_time_to_verdict_seconds;
    expect(s.expr({ quantile: 0.9 })).toBe(
      `histogram_quantile(0.9, max by (le) (${consoleMetrics.timeToVerdict.name}_bucket))`,
    );
    expect(() => s.expr({ quantile: 1 })).toThrow(/quantile/);
    expect(() => s.expr({ quantile: 0 })).toThrow(/quantile/);
  });

  it("count a waiting rollout once, 0 only when the store was read", () => {
    const q = consoleSignals.console_rollouts_waiting.expr();
    expect(q).toContain(`count(max by (rollout) (${consoleMetrics.waitingSince.name}))`);
    expect(q).toContain(`max(${consoleMetrics.scrapeSuccess.name} == 1) * 0`);
  });

  it("have ids apart from the database signals'", () => {
    for (const s of consoleSignalList) {
      expect(isConsoleSignalId(s.id)).toBe(true);
      expect(s.id in signals, s.id).toBe(false);
    }
    expect(isConsoleSignalId("doublewrite_pages_per_second")).toBe(false);
    expect(isConsoleSignalId("toString")).toBe(false);
  });
});
