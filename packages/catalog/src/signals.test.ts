import { describe, expect, it } from "vitest";
import { fallbackMetricList } from "./fallback-metrics.js";
import { metricList } from "./metrics.js";
import { re } from "./promql.js";
import { parsePromql } from "./promql-check.js";
import { recordingRuleNames } from "./rules.js";
import {
  describeNeeds,
  type ExprOptions,
  presenceSelector,
  type Signal,
  type Source,
  signalList,
  signals,
} from "./signals.js";

const untornNames = new Set(metricList.map((m) => m.name));
const fallbackNames = new Set(fallbackMetricList.map((m) => m.name));
const recordNames = new Set(recordingRuleNames);

function sourcesOf(s: Signal): Source[] {
  return s.fallback ? ["untorn", "fallback", "any"] : ["untorn", "any"];
}

/** Every way a caller can render a signal: sources × recorded × (fleet | one instance, other window, offset). */
function variants(s: Signal): [string, ExprOptions][] {
  const out: [string, ExprOptions][] = [];
  for (const source of sourcesOf(s)) {
    for (const recorded of [false, true]) {
      out.push([`${source}${recorded ? " recorded" : ""} fleet`, { source, recorded }]);
      out.push([
        `${source}${recorded ? " recorded" : ""} one instance`,
        { source, recorded, selector: { instance: "db1" }, window: "7m", offset: "1d" },
      ]);
    }
  }
  return out;
}

describe("signal catalog", () => {
  it("covers the signals the dashboards, alerts and advisor are specified against", () => {
    const required = [
      "doublewrite_pages_per_second",
      "doublewrite_batches_per_second",
      "doublewrite_pages_per_batch",
      "doublewrite_batch_fill",
      "doublewrite_amplification",
      "doublewrite_write_bytes_share",
      "doublewrite_write_ops_share",
      "doublewrite_io_wait_share",
      "file_misc_latency_seconds",
      "fsyncs_per_second",
      "fsyncs_per_transaction",
      "innodb_write_ops_per_second",
      "write_ops_per_transaction",
      "write_bytes_per_transaction",
      "device_write_iops",
      "device_utilisation",
      "device_doublewrite_bytes_share",
      "device_doublewrite_write_ops_share",
      "free_page_waits_per_second",
      "checkpoint_age_ratio",
      "transactions_per_second",
      "row_changes_per_second",
      "doublewrite_mutex_waits_per_second",
    ];
    for (const id of required) expect(Object.keys(signals)).toContain(id);
  });

  it("has snake_case ids that clash with no metric or rule name, and documented units", () => {
    for (const s of signalList) {
      expect(s.id).toMatch(/^[a-z][a-z0-9]*(_[a-z0-9]+)*$/);
      expect(untornNames.has(s.id) || recordNames.has(s.id)).toBe(false);
      expect(s.title.length).toBeGreaterThan(3);
      expect(s.description.length).toBeGreaterThan(15);
    }
    expect(new Set(signalList.map((s) => s.id)).size).toBe(signalList.length);
    expect(new Set(signalList.map((s) => s.title)).size).toBe(signalList.length);
  });

  describe.each(signalList.map((s) => [s.id, s] as const))("%s", (_id, s) => {
    it.each(variants(s))("parses with the PromQL grammar: %s", (_name, opts) => {
      const expr = s.expr(opts);
      const parsed = parsePromql(expr);
      expect(parsed.errors).toEqual([]);
      expect(parsed.selectors.length).toBeGreaterThan(0);
      for (const name of parsed.metricNames) {
        const known =
          (opts.source !== "fallback" && untornNames.has(name)) ||
          (opts.source !== "untorn" && fallbackNames.has(name)) ||
          (opts.recorded === true && recordNames.has(name));
        expect(known, `${name} in ${expr}`).toBe(true);
      }
    });

    it("narrows every series selector to one instance with a selector", () => {
      for (const [, opts] of variants(s).filter(([name]) => name.endsWith("one instance"))) {
        for (const sel of parsePromql(s.expr(opts)).selectors)
          expect(sel.matchers).toContain('instance="db1"');
      }
    });

    it("uses the window on every range and the offset on every selector", () => {
      const expr = s.expr({ window: "7m", offset: "1d", source: "untorn" });
      const parsed = parsePromql(expr);
      if (s.windowed) expect(parsed.ranges.length).toBeGreaterThan(0);
      else expect(parsed.ranges).toEqual([]);
      for (const r of parsed.ranges) expect(r).toBe("7m");
      expect(expr.split(" offset 1d").length - 1).toBe(parsed.selectors.length);
    });

    it("groups by instance (plus its declared labels) in every form", () => {
      const expr = s.expr();
      const groupings = [...expr.matchAll(/(?:sum|max|min) by \(([^)]*)\)/g)].map((m) => m[1]);
      expect(groupings.length).toBeGreaterThan(0);
      for (const g of groupings) expect(g?.split(", ")[0]).toBe("instance");
      for (const label of s.labels) expect(groupings.some((g) => g?.split(", ").includes(label))).toBe(true);
    });

    it("has a fallback form on other exporters' series only, or says it has none", () => {
      if (s.fallback) {
        const names = parsePromql(s.expr({ source: "fallback" })).metricNames;
        for (const name of names) expect(fallbackNames.has(name), name).toBe(true);
        expect(s.expr({ source: "any" })).toContain(" or on(instance) ");
      } else {
        expect(() => s.expr({ source: "fallback" })).toThrow(/no fallback form/);
      }
    });
  });

  it("reads recording rules only where the window is the rules' window", () => {
    const dblwr = signals.doublewrite_pages_per_second;
    expect(dblwr.expr({ recorded: true })).toBe("instance:untorn_doublewrite_pages:rate5m");
    expect(dblwr.expr({ recorded: true, selector: { instance: re("$instance") } })).toBe(
      'instance:untorn_doublewrite_pages:rate5m{instance=~"$instance"}',
    );
    expect(dblwr.expr({ recorded: true, window: "$__rate_interval" })).toContain("rate(");
    expect(dblwr.expr({ recorded: true, source: "untorn" })).toContain(
      "rate(untorn_innodb_dblwr_pages_written_total",
    );
    expect(signals.doublewrite_wait_seconds_per_second.expr({ recorded: true })).toBe(
      "instance:untorn_doublewrite_wait_seconds:rate5m",
    );
  });

  it("restricts per-class signals to the classes asked for, on both exporters", () => {
    const expr = signals.file_misc_latency_seconds.expr({ classes: ["redo"] });
    expect(expr).toContain('class=~"redo"');
    expect(expr).toContain("innodb_log_file");
    expect(expr).not.toContain("innodb_data_file");
    expect(() => signals.file_misc_latency_seconds.expr({ classes: ["nope" as "redo"] })).toThrow(
      /unknown file class/,
    );
  });

  it("falls back from the doublewrite file class to ibdata1 only where the class is not instrumented", () => {
    const expr = signals.doublewrite_io_wait_seconds_per_second.expr({ source: "untorn" });
    expect(expr).toContain('class="doublewrite"');
    expect(expr).toContain('class="system_tablespace"');
    expect(expr).toContain(
      'unless on(instance) (max by (instance) (untorn_perf_schema_file_io_instrumented{class="doublewrite"}) == 1)',
    );
  });

  it("says where each signal has data, in words and for machines", () => {
    expect(signals.doublewrite_flush_wait_events_per_second.needs).toEqual({
      flavors: ["mysql", "percona"],
      minVersion: { mysql: "8.0.20", percona: "8.0.20" },
      innodbMetricsDblwr: true,
    });
    expect(signals.doublewrite_flush_wait_events_per_second.requires).toBe(
      "MySQL 8.0.20+, Percona Server 8.0.20+; innodb_monitor_enable='module_dblwr'",
    );
    expect(describeNeeds(signals.checkpoint_age_ratio.needs)).toBe(
      "MySQL 8.0.30+, MariaDB 10.5+, Percona Server 8.0.30+",
    );
    expect(signals.transactions_per_second.requires).toBe("");
    for (const s of signalList.filter((x) => x.group === "device" || x.group === "file_io")) {
      expect(Object.keys(s.needs).length, s.id).toBeGreaterThan(0);
    }
  });

  it("selects every instance's presence series from either exporter", () => {
    const sel = presenceSelector({ cluster: re("$cluster") });
    expect(sel).toBe('{__name__=~"untorn_mysql_up|mysql_up", cluster=~"$cluster"}');
    expect(parsePromql(sel).errors).toEqual([]);
  });

  it("rejects windows that are not durations or variables", () => {
    expect(() => signals.fsyncs_per_second.expr({ window: "5 minutes" })).toThrow(/invalid window/);
  });

  it("lists the untorn-exporter metrics each signal reads", () => {
    expect(signals.doublewrite_batch_fill.metrics).toEqual(
      expect.arrayContaining(["dblwrPagesWritten", "dblwrWrites", "doublewritePages", "pageSizeBytes"]),
    );
    for (const s of signalList) expect(s.metrics.length).toBeGreaterThan(0);
  });
});

describe("doublewrite mode change annotation", () => {
  it("uses max_over_time - min_over_time, not changes() (MetricsQL counts a first sample as a change)", () => {
    for (const source of ["untorn", "fallback", "any"] as const) {
      const q = signals.doublewrite_mode_changes.expr({ source, window: "5m" });
      expect(q).not.toMatch(/\bchanges\(/);
      expect(q).toMatch(/max_over_time\(\w+\[5m\]\) - min_over_time\(\w+\[5m\]\)/);
    }
  });
});
