// The replication collector against real MariaDB GTID replication (a primary and two replicas from
// @untorn/testkit/replication), and its catalog signals through a real Prometheus, untorn-exporter side
// by side with Debian's mysqld_exporter (the fallback series of the slave_status collector).
import { signal } from "@untorn/catalog/signals";
import { type RunningExporter, startMysqldExporter, startUntornExporter } from "@untorn/testkit/exporters";
import type { MariaDb } from "@untorn/testkit/mariadb";
import { freePort } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { type ReplicaSet, startReplicaSet } from "@untorn/testkit/replication";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mustValue, parseExposition, type Sample, sampleValue } from "./exposition.js";

let set: ReplicaSet;
let primary: MariaDb;
let replica: MariaDb;
let multi: MariaDb;
const exporters: RunningExporter[] = [];
let onPrimary: RunningExporter;
let onReplica: RunningExporter;
let onMulti: RunningExporter;

async function scrape(e: RunningExporter): Promise<Sample[]> {
  const res = await e.get("/metrics");
  expect(res.status).toBe(200);
  return parseExposition(res.body);
}

const role = (s: Sample[]) =>
  s.filter((x) => x.name === "untorn_replication_role" && x.value === 1).map((x) => x.labels["role"]);

const seq = async (db: MariaDb, variable: string): Promise<number> => {
  const [row] = await db.query<{ pos: string }>(`SELECT @@global.${variable} AS pos`);
  const part = String(row?.pos ?? "")
    .split(",")
    .find((p) => p.startsWith("0-"));
  return Number(part?.split("-")[2] ?? Number.NaN);
};

beforeAll(async () => {
  set = await startReplicaSet({ replicas: 2, common: { bufferPoolSize: "16M" } });
  primary = set.primary;
  replica = set.replicas[0]!;
  multi = set.replicas[1]!;
  // A second, named connection (multi-source) to a port nothing listens on: its receiver keeps
  // connecting, which is what SHOW ALL SLAVES STATUS must show under connection_name 'aux'.
  const deadPort = await freePort();
  await multi.query(
    "CHANGE MASTER 'aux' TO MASTER_HOST = '127.0.0.1', MASTER_PORT = ?, MASTER_USER = 'repl', " +
      "MASTER_PASSWORD = 'repl', MASTER_CONNECT_RETRY = 1, MASTER_USE_GTID = slave_pos",
    [deadPort],
  );
  await multi.query("START SLAVE 'aux'");
  await primary.query("CREATE DATABASE shop");
  await primary.query("CREATE TABLE shop.orders (id INT PRIMARY KEY, total INT) ENGINE=InnoDB");
  await primary.query("INSERT INTO shop.orders VALUES (1, 10), (2, 20), (3, 30)");
  await set.waitForCatchUp({ timeoutMs: 60_000 });
  for (const db of [primary, replica, multi]) exporters.push(await startUntornExporter({ db }));
  [onPrimary, onReplica, onMulti] = exporters as [RunningExporter, RunningExporter, RunningExporter];
}, 180_000);

afterAll(async () => {
  for (const e of exporters.splice(0)) await e.stop();
  await set?.destroy();
});

describe("replication collector on live MariaDB GTID replication", () => {
  it("calls the primary a primary with two replicas connected, and reports its GTID position per domain", async () => {
    const s = await scrape(onPrimary);
    expect(mustValue(s, "untorn_exporter_collector_success", { collector: "replication" })).toBe(1);
    expect(role(s)).toEqual(["primary"]);
    expect(mustValue(s, "untorn_replication_connected_replicas")).toBe(2);
    const binlog = await seq(primary, "gtid_binlog_pos");
    expect(binlog).toBeGreaterThan(3);
    expect(mustValue(s, "untorn_replication_gtid_sequence", { domain_id: "0", position: "binlog" })).toBe(
      binlog,
    );
    expect(mustValue(s, "untorn_replication_gtid_sequence", { domain_id: "0", position: "current" })).toBe(
      binlog,
    );
    expect(s.some((x) => x.name === "untorn_replication_lag_seconds")).toBe(false);
    // GTIDs carry no server_id label: a switchover would otherwise make new series.
    for (const x of s.filter((y) => y.name === "untorn_replication_gtid_sequence")) {
      expect(Object.keys(x.labels).sort()).toEqual(["domain_id", "position"]);
    }
  });

  it("reports a caught-up replica: threads running, lag 0, source server_id, the primary's sequence applied", async () => {
    const s = await scrape(onReplica);
    expect(role(s)).toEqual(["replica"]);
    const ch = { channel: "" };
    expect(mustValue(s, "untorn_replication_io_thread_running", ch)).toBe(1);
    expect(mustValue(s, "untorn_replication_io_thread_connecting", ch)).toBe(0);
    expect(mustValue(s, "untorn_replication_sql_thread_running", ch)).toBe(1);
    expect(mustValue(s, "untorn_replication_lag_seconds", ch)).toBe(0);
    expect(mustValue(s, "untorn_replication_last_io_errno", ch)).toBe(0);
    expect(mustValue(s, "untorn_replication_last_sql_errno", ch)).toBe(0);
    expect(mustValue(s, "untorn_replication_source_server_id", ch)).toBe(1);
    expect(mustValue(s, "untorn_replication_gtid_sequence", { domain_id: "0", position: "slave" })).toBe(
      await seq(primary, "gtid_binlog_pos"),
    );
  });

  it("shows a multi-source connection that cannot reach its source as connecting, with its error number", async () => {
    const aux = { channel: "aux" };
    // The receiver retries every second; the first failure sets Last_IO_Errno.
    let s = await scrape(onMulti);
    for (let i = 0; i < 40 && !(sampleValue(s, "untorn_replication_last_io_errno", aux)! > 0); i++) {
      await new Promise((r) => setTimeout(r, 250));
      s = await scrape(onMulti);
    }
    expect(role(s)).toEqual(["replica"]);
    expect(mustValue(s, "untorn_replication_io_thread_running", aux)).toBe(0);
    expect(mustValue(s, "untorn_replication_io_thread_connecting", aux)).toBe(1);
    // 2003: CR_CONN_HOST_ERROR, can't connect to the server.
    expect(mustValue(s, "untorn_replication_last_io_errno", aux)).toBe(2003);
    expect(mustValue(s, "untorn_replication_io_thread_running", { channel: "" })).toBe(1);
    expect(mustValue(s, "untorn_replication_lag_seconds", { channel: "" })).toBe(0);
  });

  it("leaves the lag out while the SQL thread is stopped, and brings it back once it runs", async () => {
    await replica.query("STOP SLAVE SQL_THREAD");
    try {
      await primary.query("UPDATE shop.orders SET total = total + 1");
      const s = await scrape(onReplica);
      expect(mustValue(s, "untorn_replication_sql_thread_running", { channel: "" })).toBe(0);
      expect(sampleValue(s, "untorn_replication_lag_seconds", { channel: "" })).toBeUndefined();
      expect(
        mustValue(s, "untorn_replication_gtid_sequence", { domain_id: "0", position: "slave" }),
      ).toBeLessThan(await seq(primary, "gtid_binlog_pos"));
    } finally {
      await replica.query("START SLAVE SQL_THREAD");
    }
    await set.waitForCatchUp({ replicas: [replica], timeoutMs: 60_000 });
    const s = await scrape(onReplica);
    expect(mustValue(s, "untorn_replication_sql_thread_running", { channel: "" })).toBe(1);
    expect(mustValue(s, "untorn_replication_lag_seconds", { channel: "" })).toBe(0);
  });
});

describe("replication signals through Prometheus, untorn-exporter and mysqld_exporter side by side", () => {
  let prom: Prometheus;
  let mysqld: RunningExporter;

  beforeAll(async () => {
    mysqld = await startMysqldExporter(replica);
    prom = await startPrometheus({
      jobs: [
        { jobName: "untorn-primary", targets: [onPrimary.address], labels: { instance: "primary" } },
        { jobName: "untorn-replica", targets: [onReplica.address], labels: { instance: "replica" } },
        { jobName: "untorn-multi", targets: [onMulti.address], labels: { instance: "multi" } },
        { jobName: "mysqld-replica", targets: [mysqld.address], labels: { instance: "replica" } },
      ],
    });
  }, 60_000);

  afterAll(async () => {
    await prom?.stop();
    await mysqld?.stop();
  });

  const value = (rows: { value: [number, string] }[]) => Number(rows[0]!.value[1]);

  it("reads the same lag and thread state from either exporter", async () => {
    for (const source of ["untorn", "fallback"] as const) {
      const sel = { selector: { instance: "replica" }, source };
      const lag = await prom.waitForSeries(signal("replication_lag_seconds").expr(sel), 30_000);
      expect(lag).toHaveLength(1);
      expect(value(lag), source).toBe(0);
      const threads = await prom.waitForSeries(signal("replication_threads_running").expr(sel), 30_000);
      expect(value(threads), source).toBe(1);
      const errno = await prom.waitForSeries(signal("replication_last_errno").expr(sel), 30_000);
      expect(value(errno), source).toBe(0);
      for (const id of ["replication_io_thread_running", "replication_sql_thread_running"] as const) {
        expect(value(await prom.waitForSeries(signal(id).expr(sel), 30_000)), `${source} ${id}`).toBe(1);
      }
    }
  });

  it("says the multi-source replica is not healthy, with the failing connection's error", async () => {
    const sel = { selector: { instance: "multi" }, source: "untorn" as const };
    expect(value(await prom.waitForSeries(signal("replication_threads_running").expr(sel), 30_000))).toBe(0);
    expect(value(await prom.waitForSeries(signal("replication_last_errno").expr(sel), 30_000))).toBe(2003);
    // The receiver of 'aux' is the one down; every applier runs.
    const io = await prom.waitForSeries(signal("replication_io_thread_running").expr(sel), 30_000);
    expect(value(io)).toBe(0);
    const sql = await prom.waitForSeries(signal("replication_sql_thread_running").expr(sel), 30_000);
    expect(value(sql)).toBe(1);
  });

  it("names each server's role and has no lag for the primary", async () => {
    // The three targets are scraped independently: wait until each has reported its role.
    let roles = await prom.waitForSeries(signal("replication_role").expr(), 30_000);
    for (const deadline = Date.now() + 30_000; roles.length < 3 && Date.now() < deadline; ) {
      await new Promise((r) => setTimeout(r, 1000));
      roles = await prom.query(signal("replication_role").expr());
    }
    const byInstance = Object.fromEntries(roles.map((r) => [r.metric["instance"], r.metric["role"]]));
    expect(byInstance).toEqual({ primary: "primary", replica: "replica", multi: "replica" });
    expect(
      await prom.query(signal("replication_lag_seconds").expr({ selector: { instance: "primary" } })),
    ).toEqual([]);
  });
});
