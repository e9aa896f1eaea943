// untorn-exporter against real throwaway MariaDB servers under a real sysbench load.
import { spawnSync } from "node:child_process";
import { type RunningExporter, startUntornExporter } from "@untorn/testkit/exporters";
import { type MariaDb, type MariaDbOptions, startMariaDb } from "@untorn/testkit/mariadb";
import { requireBinary } from "@untorn/testkit/process";
import { startPrometheus } from "@untorn/testkit/prometheus";
import { prepareSysbench, runSysbench, startSysbenchLoad, targetOf } from "@untorn/testkit/sysbench";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mustValue, parseExposition, sampleValue } from "./exposition.js";

// Small buffer pool and no dirty-page allowance: the page cleaner flushes continuously, so a few
// seconds of oltp_write_only produce thousands of doublewrite pages (docs/reference/iops-metering.md §11).
const FLUSHY: MariaDbOptions["extra"] = {
  innodb_max_dirty_pages_pct: 0,
  innodb_max_dirty_pages_pct_lwm: 0,
  innodb_io_capacity: 5000,
};
const LOAD = { tables: 2, tableSize: 5000 };

interface Rig {
  db: MariaDb;
  exporter: RunningExporter;
}

async function rig(opts: MariaDbOptions): Promise<Rig> {
  const db = await startMariaDb({ bufferPoolSize: "8M", ...opts, extra: { ...FLUSHY, ...opts.extra } });
  try {
    const exporter = await startUntornExporter({ db });
    return { db, exporter };
  } catch (err) {
    await db.destroy();
    throw err;
  }
}

async function scrape(r: Rig): Promise<string> {
  const res = await r.exporter.get("/metrics");
  expect(res.status).toBe(200);
  expect(res.headers.get("content-type")).toMatch(/text\/plain/);
  return res.body;
}

/**
 * A scrape taken once InnoDB has stopped writing: SHOW GLOBAL STATUS reads its counters one after the
 * other, so the identities only hold exactly when the page cleaner is idle.
 */
async function quietScrape(r: Rig): Promise<string> {
  const key = (t: string) =>
    [
      "untorn_innodb_data_writes_total",
      "untorn_innodb_buffer_pool_pages_flushed_total",
      "untorn_innodb_dblwr_pages_written_total",
      // Counted when a write completes: once one lagged a page behind the others for a whole 500 ms.
      "untorn_innodb_data_written_bytes_total",
    ]
      .map((n) => mustValue(t, n))
      .join("/");
  let prev = await scrape(r);
  for (let i = 0; i < 60; i++) {
    await new Promise((resolve) => setTimeout(resolve, 500));
    const next = await scrape(r);
    if (key(next) === key(prev)) return next;
    prev = next;
  }
  throw new Error("InnoDB kept writing for 30 s after the load stopped");
}

describe("doublewrite ON vs OFF under sysbench oltp_write_only", () => {
  let on: Rig;
  let off: Rig;
  beforeAll(async () => {
    on = await rig({ doublewrite: true, performanceSchema: true });
    off = await rig({ doublewrite: false, performanceSchema: true });
    await Promise.all([prepareSysbench(on.db, LOAD), prepareSysbench(off.db, LOAD)]);
  });
  afterAll(async () => {
    for (const r of [on, off]) {
      await r?.exporter.stop();
      await r?.db.destroy();
    }
  });

  it("counts doublewrite pages with ON and none with OFF", async () => {
    const [on0, off0] = await Promise.all([scrape(on), scrape(off)]);
    await runSysbench(targetOf(on.db), { ...LOAD, threads: 4, time: 3 });
    await runSysbench(targetOf(off.db), { ...LOAD, threads: 4, time: 3 });
    // Quiet scrapes: the page cleaner has finished, so status and performance_schema agree.
    const [on1, off1] = await Promise.all([quietScrape(on), quietScrape(off)]);
    const delta = (a: string, b: string, name: string) => mustValue(b, name) - mustValue(a, name);

    expect(mustValue(on1, "untorn_mysql_up")).toBe(1);
    expect(delta(on0, on1, "untorn_innodb_dblwr_pages_written_total")).toBeGreaterThan(500);
    expect(delta(on0, on1, "untorn_innodb_dblwr_writes_total")).toBeGreaterThan(5);
    expect(delta(on0, on1, "untorn_mysql_commits_total")).toBeGreaterThan(100);
    expect(mustValue(on1, "untorn_innodb_doublewrite_enabled")).toBe(1);
    expect(mustValue(on1, "untorn_innodb_doublewrite_mode", { mode: "on" })).toBe(1);

    expect(delta(off0, off1, "untorn_innodb_buffer_pool_pages_flushed_total")).toBeGreaterThan(500);
    expect(mustValue(off1, "untorn_innodb_dblwr_pages_written_total")).toBe(0);
    expect(mustValue(off1, "untorn_innodb_dblwr_writes_total")).toBe(0);
    expect(mustValue(off1, "untorn_innodb_doublewrite_enabled")).toBe(0);
    expect(mustValue(off1, "untorn_innodb_doublewrite_mode", { mode: "off" })).toBe(1);

    // Doublewrite shares ibdata1 on MariaDB: it shows in the system tablespace class (docs/reference/mariadb.md §2.1),
    // at least one write per batch on top of the undo and system pages both servers write there. (A
    // comparison with the OFF server's count is no test: its own undo writes follow its own throughput.)
    const sysWrites = (t: string) =>
      mustValue(t, "untorn_perf_schema_file_writes_total", { class: "system_tablespace" });
    expect(sysWrites(on1) - sysWrites(on0)).toBeGreaterThanOrEqual(
      delta(on0, on1, "untorn_innodb_dblwr_writes_total"),
    );
    expect(
      sampleValue(on1, "untorn_perf_schema_file_writes_total", { class: "doublewrite" }),
    ).toBeUndefined();
    expect(mustValue(on1, "untorn_perf_schema_file_io_instrumented", { class: "doublewrite" })).toBe(0);
    expect(mustValue(on1, "untorn_perf_schema_file_io_instrumented", { class: "data" })).toBe(1);
  });

  it("keeps docs/reference/iops-metering.md §11's identities within one scrape", async () => {
    await runSysbench(targetOf(on.db), { ...LOAD, threads: 4, time: 2 });
    const t = await quietScrape(on);
    const flushed = mustValue(t, "untorn_innodb_buffer_pool_pages_flushed_total");
    const dblwrPages = mustValue(t, "untorn_innodb_dblwr_pages_written_total");
    expect(flushed).toBeGreaterThan(0);
    expect(mustValue(t, "untorn_innodb_data_writes_total")).toBe(
      flushed + mustValue(t, "untorn_innodb_dblwr_writes_total"),
    );
    expect(mustValue(t, "untorn_innodb_data_written_bytes_total")).toBe((flushed + dblwrPages) * 16384);
  });

  it("reports every collector as successful, with a duration", async () => {
    const samples = parseExposition(await scrape(on));
    const success = samples.filter((s) => s.name === "untorn_exporter_collector_success");
    expect(success.map((s) => s.labels["collector"]).sort()).toEqual([
      "config",
      "global_status",
      "host.storage",
      "innodb_metrics.dblwr",
      "perf_schema.file_io",
      "perf_schema.waits",
      "replication",
    ]);
    for (const s of success) expect(s.value, s.labels["collector"]).toBe(1);
    for (const s of samples.filter((x) => x.name === "untorn_exporter_collector_duration_seconds")) {
      expect(s.value).toBeGreaterThanOrEqual(0);
      expect(s.value).toBeLessThan(10);
    }
  });

  it("serves a full /metrics response (host storage included, no Node.js internals) that promtool accepts", async () => {
    // The golden files cover the SQL collectors; this is the whole live exposition of a real server.
    const text = await scrape(on);
    expect(text).toContain("untorn_host_storage_datadir_visible");
    // process metrics are off unless --exporter.process-metrics (test/web.test.ts turns them on)
    expect(text).not.toMatch(/^untorn_exporter_(process|nodejs)_/m);
    const promtool = requireBinary("promtool", "prometheus");
    const checked = spawnSync(promtool, ["check", "metrics"], { input: text, encoding: "utf8" });
    expect(`${checked.stdout}${checked.stderr}`).toBe("");
    expect(checked.status).toBe(0);
  });

  it("describes the server and its storage", async () => {
    const t = await scrape(on);
    const info = parseExposition(t).find((s) => s.name === "untorn_server_info");
    expect(info?.labels).toMatchObject({ flavor: "mariadb", managed: "none" });
    expect(info?.labels["version"]).toMatch(/^10\.11\./);
    const cfg = parseExposition(t).find((s) => s.name === "untorn_innodb_config_info");
    expect(cfg?.labels).toMatchObject({ doublewrite: "ON", flush_method: "O_DIRECT", page_size: "16384" });
    expect(mustValue(t, "untorn_innodb_page_size_bytes")).toBe(16384);
    expect(mustValue(t, "untorn_innodb_buffer_pool_size_bytes")).toBe(8 * 1024 * 1024);
    expect(mustValue(t, "untorn_perf_schema_enabled")).toBe(1);
    expect(mustValue(t, "untorn_innodb_checkpoint_max_age_bytes")).toBeGreaterThan(0);
    expect(mustValue(t, "untorn_innodb_metrics_dblwr_enabled")).toBe(0);
    expect(mustValue(t, "untorn_host_storage_datadir_visible")).toBe(1);
    expect(mustValue(t, "untorn_host_storage_writes_completed_total")).toBeGreaterThan(0);
  });

  it("is seen by a real Prometheus: rate() of doublewrite pages > 0 under load", async () => {
    const prom = await startPrometheus({
      jobs: [
        { jobName: "untorn", targets: [on.exporter.address, off.exporter.address], scrapeInterval: "1s" },
      ],
    });
    const load = startSysbenchLoad(targetOf(on.db), on.db.dir, { ...LOAD, threads: 4, time: 20 });
    try {
      const series = await prom.waitForSeries(
        `rate(untorn_innodb_dblwr_pages_written_total{instance="${on.exporter.address}"}[5s]) > 0`,
        25_000,
      );
      expect(Number(series[0]?.value[1])).toBeGreaterThan(0);
      const off0 = await prom.query(
        `untorn_innodb_dblwr_pages_written_total{instance="${off.exporter.address}"}`,
      );
      expect(off0[0]?.value[1]).toBe("0");
      const up = await prom.query("up");
      expect(up.map((s) => s.value[1])).toEqual(["1", "1"]);
    } finally {
      await load.stop();
      await prom.stop();
    }
  });
});

describe.each([
  ["4k", 4096],
  ["64k", 65536],
] as const)("innodb_page_size=%s", (pageSize, bytes) => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig({ pageSize, bufferPoolSize: "24M" });
    await prepareSysbench(r.db, LOAD);
  });
  afterAll(async () => {
    await r?.exporter.stop();
    await r?.db.destroy();
  });

  it("reports the page size and data_written = (flushed + doublewrite pages) x page size", async () => {
    await runSysbench(targetOf(r.db), { ...LOAD, threads: 2, time: 2 });
    const t = await quietScrape(r);
    expect(mustValue(t, "untorn_innodb_page_size_bytes")).toBe(bytes);
    const flushed = mustValue(t, "untorn_innodb_buffer_pool_pages_flushed_total");
    const dblwr = mustValue(t, "untorn_innodb_dblwr_pages_written_total");
    expect(dblwr).toBeGreaterThan(0);
    expect(mustValue(t, "untorn_innodb_data_written_bytes_total")).toBe((flushed + dblwr) * bytes);
  });
});

describe("performance_schema OFF (MariaDB's default)", () => {
  let r: Rig;
  beforeAll(async () => {
    r = await rig({ performanceSchema: false });
  });
  afterAll(async () => {
    await r?.exporter.stop();
    await r?.db.destroy();
  });

  it("says so as metrics, not errors", async () => {
    const t = await scrape(r);
    expect(mustValue(t, "untorn_perf_schema_enabled")).toBe(0);
    expect(mustValue(t, "untorn_exporter_collector_success", { collector: "perf_schema.file_io" })).toBe(1);
    expect(mustValue(t, "untorn_exporter_collector_success", { collector: "perf_schema.waits" })).toBe(1);
    for (const cls of ["doublewrite", "data", "system_tablespace", "redo"]) {
      expect(mustValue(t, "untorn_perf_schema_file_io_instrumented", { class: cls })).toBe(0);
    }
    expect(sampleValue(t, "untorn_perf_schema_file_writes_total", { class: "data" })).toBeUndefined();
    expect(mustValue(t, "untorn_perf_schema_dblwr_mutex_instrumented", { mutex: "buf_dblwr_mutex" })).toBe(0);
    expect(r.exporter.process.tail()).not.toMatch(/level=(warn|error)/);
  });
});
