import { consoleMetrics } from "@untorn/catalog/console-metrics";
import { consoleSignals, isConsoleSignalId } from "@untorn/catalog/console-signals";
import { parsePromql } from "@untorn/catalog/promql-check";
import { recordingRuleNames } from "@untorn/catalog/rules";
import { signals } from "@untorn/catalog/signals";
import { describe, expect, it } from "vitest";
import { DASHBOARD_UIDS } from "./house.js";
import {
  expectsData,
  type LiveEnvironment,
  panelQueries,
  recordingRuleQueries,
  resolveQuery,
} from "./queries.js";
import { dashboards } from "./render.js";

/** The reference stack of the live check: Debian 12's MariaDB with performance_schema, exporters beside it. */
const mariadb: LiveEnvironment = {
  flavor: "mariadb",
  version: "10.11.6",
  performanceSchema: true,
  mutexInstrument: false,
  innodbMetricsDblwr: false,
  hostStorage: true,
  atomicWriteAttributes: true,
};

describe("panel queries", () => {
  const queries = panelQueries();

  it("list every target of every dashboard once, under a unique name", () => {
    let targets = 0;
    for (const d of dashboards().values()) {
      for (const p of d.panels ?? []) targets += "targets" in p ? (p.targets?.length ?? 0) : 0;
    }
    expect(queries.filter((q) => q.kind !== "annotation")).toHaveLength(targets);
    expect(new Set(queries.map((q) => q.name)).size).toBe(queries.length);
    expect(new Set(queries.map((q) => q.dashboard))).toEqual(new Set(Object.values(DASHBOARD_UIDS)));
  });

  it("name the catalog signal each query renders", () => {
    for (const q of queries) if (!isConsoleSignalId(q.signal)) expect(q.needs).toBe(signals[q.signal].needs);
    const fleet = queries.find(
      (q) => q.name === "untorn-fleet / Top 10 by doublewrite pages/s / doublewrite_pages_per_second",
    );
    expect(fleet?.expr).toBe('topk(10, instance:untorn_doublewrite_pages:rate5m{instance=~"$instance"})');
  });

  it("draw InnoDB's own doublewrite share beside the device's, the fallback on a shared device", () => {
    const panel = queries.filter((q) => q.panel === "Doublewrite share of device writes");
    expect(panel.map((q) => q.signal)).toEqual([
      "device_doublewrite_bytes_share",
      "device_doublewrite_write_ops_share",
      "doublewrite_write_bytes_share",
    ]);
    const json = [...dashboards().values()]
      .flatMap((d) => d.panels ?? [])
      .find((p) => "title" in p && p.title === "Doublewrite share of device writes");
    expect(json && "description" in json ? json.description : "").toMatch(
      /^A shared device: .* read "of InnoDB's write bytes" instead/,
    );
  });

  it("read the console's rollouts on the fleet dashboard from the console's own series only", () => {
    const rollouts = queries.filter((q) => q.kind === "console");
    expect(new Set(rollouts.map((q) => q.dashboard))).toEqual(new Set([DASHBOARD_UIDS.fleet]));
    // Rollouts by status, gate outcomes, bake verdicts, time to a verdict, waiting for a person.
    expect(new Set(rollouts.map((q) => q.signal))).toEqual(
      new Set([
        "console_rollouts_by_status",
        "console_gate_results",
        "console_bake_verdicts",
        "console_time_to_verdict_seconds",
        "console_rollouts_waiting",
        "console_longest_wait_seconds",
        "console_rollout_waiting_seconds",
        "console_store_up",
      ]),
    );
    const names = new Set(
      Object.values(consoleMetrics).flatMap((m) =>
        m.type === "histogram" ? [`${m.name}_bucket`, `${m.name}_sum`, `${m.name}_count`] : [m.name],
      ),
    );
    for (const q of rollouts) {
      const parsed = parsePromql(q.expr);
      expect(parsed.errors, q.name).toEqual([]);
      for (const n of parsed.metricNames) expect(names.has(n), `${q.name} reads ${n}`).toBe(true);
      expect(q.expr, q.name).not.toContain("$instance");
    }
    const verdict = rollouts.find((q) => q.refId === "console_time_to_verdict_seconds__p90");
    expect(verdict?.expr).toBe(consoleSignals.console_time_to_verdict_seconds.expr({ quantile: 0.9 }));
    // No data without the console scraped; data where it is.
    for (const q of rollouts) {
      expect(expectsData(q.needs, mariadb), q.name).toBe(false);
      expect(expectsData(q.needs, { ...mariadb, console: true }), q.name).toBe(true);
    }
  });

  it("resolve Grafana's variables like Grafana does", () => {
    const q = queries.find(
      (x) => x.dashboard === DASHBOARD_UIDS.instance && x.signal === "fsyncs_per_second",
    );
    if (!q) throw new Error("no fsync query");
    const resolved = resolveQuery(q.expr, { instance: ["db1", "db.2"], rateInterval: "2m" });
    expect(resolved).toContain('instance=~"(db1|db\\\\.2)"');
    expect(resolved).toContain("[2m]");
    expect(resolved).not.toContain("$");
    expect(parsePromql(resolved).errors).toEqual([]);
  });

  it("leave no panel without data on the reference MariaDB stack (a replica for the replication panels)", () => {
    // The replication signals are checked on live MariaDB replication in untorn-exporter's
    // test/replication.live.test.ts; the live stack here is a standalone server.
    const replica: LiveEnvironment = { ...mariadb, replica: true };
    const panels = new Map<string, boolean>();
    for (const q of queries.filter((x) => x.kind === "panel")) {
      const key = `${q.dashboard} / ${q.panel}`;
      const ok = expectsData(q.needs, mariadb) || expectsData(q.needs, replica);
      panels.set(key, (panels.get(key) ?? false) || ok);
    }
    expect([...panels].filter(([, ok]) => !ok).map(([name]) => name)).toEqual([]);
  });

  it("expect replication data only from a replica", () => {
    const lag = queries.find((q) => q.signal === "replication_lag_seconds");
    if (!lag) throw new Error("no replication lag query");
    expect(expectsData(lag.needs, mariadb)).toBe(false);
    expect(expectsData(lag.needs, { ...mariadb, replica: true })).toBe(true);
  });

  it("expect no data where a signal cannot have it", () => {
    const mysqlOnly = queries.find((q) => q.signal === "doublewrite_flush_wait_events_per_second");
    if (!mysqlOnly) throw new Error("no flush wait query");
    expect(expectsData(mysqlOnly.needs, mariadb)).toBe(false);
    expect(
      expectsData(mysqlOnly.needs, {
        ...mariadb,
        flavor: "mysql",
        version: "8.0.19",
        innodbMetricsDblwr: true,
      }),
    ).toBe(false);
    expect(
      expectsData(mysqlOnly.needs, {
        ...mariadb,
        flavor: "mysql",
        version: "8.4.3",
        innodbMetricsDblwr: true,
      }),
    ).toBe(true);
    expect(expectsData(signals.checkpoint_age_ratio.needs, { ...mariadb, version: "10.4.30" })).toBe(false);
    expect(
      expectsData(signals.file_misc_latency_seconds.needs, { ...mariadb, performanceSchema: false }),
    ).toBe(false);
    for (const q of queries.filter((x) => x.kind === "annotation"))
      expect(expectsData(q.needs, mariadb)).toBe(false);
  });
});

describe("recording rule queries", () => {
  it("select each rule for one instance", () => {
    const rules = recordingRuleQueries("db1");
    expect(rules.map((r) => r.name)).toEqual(recordingRuleNames);
    expect(rules[0]?.expr).toBe(`${recordingRuleNames[0]}{instance="db1"}`);
    expect(rules.filter((r) => r.minHistory === "7h")).toHaveLength(2);
    // INNODB_METRICS dblwr_flush_wait_events is MySQL 8.0.20+ only.
    expect(rules.filter((r) => !expectsData(r.needs, mariadb)).map((r) => r.name)).toEqual([
      "instance:untorn_doublewrite_flush_wait_events:rate5m",
      "instance:untorn_doublewrite_flush_wait_events:rate5m_avg_1h",
      "instance:untorn_doublewrite_flush_wait_events:rate5m_p95_1h",
    ]);
  });
});
