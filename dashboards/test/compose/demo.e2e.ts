// The docker-compose demo, checked from outside while it runs (`npm run test:compose`: scripts/compose-test.sh
// builds and starts it from nothing, then runs this file, then tears it down). Everything is read over the
// two ports the stack publishes on 127.0.0.1: Prometheus' HTTP API and the console's read API.
import { alertNames } from "@untorn/catalog/alerts";
import { consoleMetrics } from "@untorn/catalog/console-metrics";
import { type ConsoleSignalId, consoleSignals } from "@untorn/catalog/console-signals";
import { recordingRuleNames } from "@untorn/catalog/rules";
import { describe, expect, it } from "vitest";
import { composeDemo } from "./env.ts";

const demo = composeDemo();

/** The four servers of docker-compose.yml, by the instance label prometheus.yml gives all their exporters. */
const SERVERS = ["mariadb-primary", "mariadb-replica1", "mariadb-replica2", "mariadb-standalone"];
const REPLICAS = ["mariadb-replica1", "mariadb-replica2"];
/** Recording rules whose inputs every MariaDB 10.11 server under (or replicating) a write load has. */
const CORE_RECORDS = [
  "instance:untorn_doublewrite_pages:rate5m",
  "instance:untorn_pages_flushed:rate5m",
  "instance:untorn_innodb_data_writes:rate5m",
  "instance:untorn_innodb_data_written_bytes:rate5m",
  "instance:untorn_innodb_data_fsyncs:rate5m",
  "instance:untorn_transactions:rate5m",
];

/** Retries `check` until it stops throwing or the time is up (the stack keeps converging after healthy). */
async function eventually<T>(what: string, check: () => Promise<T>, seconds = 150): Promise<T> {
  const until = Date.now() + seconds * 1000;
  for (;;) {
    try {
      return await check();
    } catch (e) {
      if (Date.now() > until) throw new Error(`${what}: still failing after ${seconds}s: ${String(e)}`);
      await new Promise((r) => setTimeout(r, 3000));
    }
  }
}

async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const res = await fetch(url, { headers, signal: AbortSignal.timeout(30_000) });
  const text = await res.text();
  if (!res.ok) throw new Error(`${url}: HTTP ${res.status}: ${text.slice(0, 300)}`);
  return JSON.parse(text);
}

interface PromEnvelope<T> {
  status: string;
  data: T;
}

const prom = <T>(path: string) =>
  getJson(`${demo.prometheusUrl}${path}`).then((b) => (b as PromEnvelope<T>).data);

/** Series of one metric name, by `/api/v1/series` (a bare name, no query language). */
async function seriesOf(name: string): Promise<Record<string, string>[]> {
  return prom<Record<string, string>[]>(`/api/v1/series?match[]=${encodeURIComponent(name)}`);
}

const instancesOf = (series: Record<string, string>[]) => [...new Set(series.map((s) => s.instance))].sort();

describe("the docker-compose demo, from outside", () => {
  it("has every Prometheus target up: untorn-exporter, mysqld_exporter and node_exporter for each server, and the console", async () => {
    const targets = await eventually("targets up", async () => {
      const data = await prom<{
        activeTargets: { labels: Record<string, string>; health: string; lastError: string }[];
      }>("/api/v1/targets?state=active");
      const down = data.activeTargets.filter((t) => t.health !== "up");
      if (down.length > 0)
        throw new Error(
          down.map((t) => `${t.labels.job}/${t.labels.instance}: ${t.health} ${t.lastError}`).join("; "),
        );
      return data.activeTargets;
    });
    for (const job of ["untorn", "mysqld", "node"]) {
      expect(instancesOf(targets.filter((t) => t.labels.job === job).map((t) => t.labels)), job).toEqual(
        SERVERS,
      );
    }
    expect(targets.filter((t) => t.labels.job === "untorn-console").map((t) => t.labels.instance)).toEqual([
      "web:3000",
    ]);
    expect(targets).toHaveLength(13);
  });

  it("reads the console's rollout metrics with its viewer token, for the fleet dashboard's Rollouts row and its alert", async () => {
    const query = (q: string) =>
      prom<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `/api/v1/query?query=${encodeURIComponent(q)}`,
      ).then((d) => d.result);
    await eventually("console store read", async () => {
      const up = await query(consoleMetrics.scrapeSuccess.name);
      expect(up.map((r) => [r.metric.job, r.value[1]])).toEqual([["untorn-console", "1"]]);
    });
    // A fresh demo has no rollout: these still answer (every status and verdict at 0, none waiting).
    const answering: ConsoleSignalId[] = [
      "console_rollouts_by_status",
      "console_bake_verdicts",
      "console_rollouts_waiting",
      "console_store_up",
    ];
    for (const id of answering) {
      const result = await query(consoleSignals[id].expr());
      expect(result.length, id).toBeGreaterThan(0);
    }
    const waiting = await query(consoleSignals.console_rollouts_waiting.expr());
    expect(waiting.map((r) => r.value[1])).toEqual(["0"]);
    expect(alertNames).toContain("UntornRolloutWaitingTooLong");
    await eventually("the rollout alert evaluated", async () => {
      const rules = await prom<{ groups: { rules: { name: string; health: string }[] }[] }>(
        "/api/v1/rules?type=alert",
      );
      const alert = rules.groups
        .flatMap((g) => g.rules)
        .find((r) => r.name === "UntornRolloutWaitingTooLong");
      expect(alert?.health).toBe("ok");
    });
  });

  it("reaches every server through untorn-exporter", async () => {
    await eventually("untorn_mysql_up", async () => {
      const data = await prom<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `/api/v1/query?query=${encodeURIComponent("untorn_mysql_up")}`,
      );
      const up = data.result.filter((r) => r.value[1] === "1").map((r) => r.metric);
      expect(instancesOf(up)).toEqual(SERVERS);
    });
  });

  it("evaluates every recording rule without error, and the core ones produce a series for every server", async () => {
    const groups = await prom<{
      groups: { name: string; rules: { name: string; health: string; lastError?: string }[] }[];
    }>("/api/v1/rules?type=record");
    const rules = groups.groups.flatMap((g) => g.rules);
    expect(rules.map((r) => r.name).sort()).toEqual([...recordingRuleNames].sort());
    expect(rules.filter((r) => r.health === "err").map((r) => `${r.name}: ${r.lastError}`)).toEqual([]);
    for (const name of CORE_RECORDS) {
      expect(recordingRuleNames).toContain(name);
      await eventually(name, async () => expect(instancesOf(await seriesOf(name))).toEqual(SERVERS));
    }
  });

  it("lists the 4 servers in /api/v1/fleet from live Prometheus data, each with a verdict", async () => {
    interface Fleet {
      source: { kind: string };
      status: { state: string };
      total: number;
      instances: {
        instance: string;
        flavor: string;
        version: string;
        verdict: string;
        confidence: number;
        gate: { status: string; demoOnly: boolean };
      }[];
    }
    const fleet = await eventually("fleet", async () => {
      const body = (await getJson(`${demo.webUrl}/api/v1/fleet`, {
        authorization: `Bearer ${demo.viewerToken}`,
      })) as Fleet;
      expect(body.source.kind).toBe("live");
      expect(body.status.state).toBe("ok");
      expect(body.instances.map((i) => i.instance).sort()).toEqual(SERVERS);
      // The gate of mariadb-replica1 verifies once its exporter's storage facts are in a fleet read (the
      // first reads after start can precede them): wait for it rather than judge the first read.
      expect(body.instances.filter((r) => r.gate.demoOnly).map((r) => r.instance)).toEqual([
        "mariadb-replica1",
      ]);
      return body;
    });
    expect(fleet.total).toBe(4);
    for (const row of fleet.instances) {
      expect(row.flavor, row.instance).toBe("mariadb");
      expect(row.version, row.instance).toMatch(/^10\.11\./);
      expect(["write-bound", "likely", "not-write-bound", "unknown"], row.instance).toContain(row.verdict);
      expect(row.confidence, row.instance).toBeGreaterThanOrEqual(0);
      expect(["verified", "unverified", "unsafe"], row.instance).toContain(row.gate.status);
    }
    // compose/web/metadata.json declares torn-write protection for mariadb-replica1, for the demo only:
    // its gate verifies on that declaration and says so; no other server rests on one.
    const demoOnly = fleet.instances.filter((r) => r.gate.demoOnly).map((r) => r.instance);
    expect(demoOnly).toEqual(["mariadb-replica1"]);
    expect(fleet.instances.find((r) => r.instance === "mariadb-replica1")?.gate.status).toBe("verified");
  });

  it("reads each server's role from its replication status and its cluster from the scrape labels", async () => {
    type Rows = { instances: { instance: string; cluster: string | null; role: string | null }[] };
    // Polled: the primary reads "primary" only once a replica is connected, and the console caches 30 s.
    await eventually("topology", async () => {
      const body = (await getJson(`${demo.webUrl}/api/v1/fleet`, {
        authorization: `Bearer ${demo.viewerToken}`,
      })) as Rows;
      const topology = Object.fromEntries(body.instances.map((r) => [r.instance, [r.cluster, r.role]]));
      expect(topology).toEqual({
        "mariadb-primary": ["demo", "primary"],
        "mariadb-replica1": ["demo", "replica"],
        "mariadb-replica2": ["demo", "replica"],
        "mariadb-standalone": ["demo-standalone", "standalone"],
      });
    });
  });

  // mysqld_exporter's slave_status collector until untorn-exporter reports replication itself.
  it("reports replication lag for both replicas, and none for the primary or the standalone server", async () => {
    await eventually("replication lag", async () => {
      const data = await prom<{ result: { metric: Record<string, string>; value: [number, string] }[] }>(
        `/api/v1/query?query=${encodeURIComponent("mysql_slave_status_seconds_behind_master")}`,
      );
      expect(instancesOf(data.result.map((r) => r.metric))).toEqual(REPLICAS);
      for (const r of data.result) {
        const lag = Number(r.value[1]);
        expect(Number.isFinite(lag) && lag >= 0, `${r.metric.instance} lag ${r.value[1]}`).toBe(true);
        expect(r.metric.master_host).toBe("mariadb-primary");
      }
    });
    const running = await seriesOf("mysql_slave_status_slave_sql_running");
    expect(instancesOf(running)).toEqual(REPLICAS);
  });
});
