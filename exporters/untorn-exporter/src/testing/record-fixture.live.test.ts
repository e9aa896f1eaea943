// The fixture source checked against the one flavor that runs here: a fixture recorded from a live
// MariaDB 10.11 must make the collectors emit the same series as the live server. RECORD_FIXTURES=1 also
// rewrites the recorded cases in testdata/servers (mariadb-10.11.19 and mariadb-10.11.19-ps-off).
import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import { prepareSysbench, runSysbench, targetOf } from "@untorn/testkit/sysbench";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { parseExposition, type Sample } from "../../test/exposition.js";
import { TargetPool } from "../db.js";
import type { Fixture } from "./fixture-source.js";
import { recordFixture } from "./record-fixture.js";
import { scrapeFixture, scrapeSource } from "./scrape-fixture.js";

const SERVERS = join(dirname(fileURLToPath(import.meta.url)), "../../testdata/servers");
const RECORD = process.env["RECORD_FIXTURES"] === "1";

// Small buffer pool and no dirty-page allowance, so a short oltp_write_only run flushes through the
// doublewrite buffer (the same settings as test/exporter.live.test.ts).
const FLUSHY = { innodb_max_dirty_pages_pct: 0, innodb_max_dirty_pages_pct_lwm: 0, innodb_io_capacity: 5000 };
const LOAD = { tables: 2, tableSize: 5000 };

const seriesKey = (s: Sample) => `${s.name}${JSON.stringify(Object.entries(s.labels).sort())}`;

/** Gauges and info series that a few seconds of idle time cannot change. */
const STABLE = [
  "untorn_server_info",
  "untorn_innodb_config_info",
  "untorn_innodb_doublewrite_mode",
  "untorn_innodb_doublewrite_enabled",
  "untorn_innodb_page_size_bytes",
  "untorn_innodb_buffer_pool_size_bytes",
  "untorn_innodb_redo_log_capacity_bytes",
  "untorn_perf_schema_enabled",
  "untorn_perf_schema_file_io_instrumented",
  "untorn_perf_schema_dblwr_mutex_instrumented",
  "untorn_innodb_metrics_dblwr_enabled",
  "untorn_exporter_collector_success",
  "untorn_mysql_up",
];

/**
 * Waits until InnoDB stops writing (the page cleaner and purge finish after the load), so the recorded
 * counters and a later live scrape describe the same state and no subtraction can go backwards.
 */
async function quiesce(db: MariaDb): Promise<void> {
  let last = "";
  const until = Date.now() + 30_000;
  while (Date.now() < until) {
    const s = await db.globalStatus();
    const now = ["Innodb_data_writes", "Innodb_dblwr_writes", "Innodb_buffer_pool_pages_dirty"]
      .map((k) => s.get(k))
      .join("/");
    if (now === last && s.get("Innodb_buffer_pool_pages_dirty") === "0") return;
    last = now;
    await new Promise((resolve) => setTimeout(resolve, 500));
  }
  throw new Error(`InnoDB kept writing for 30 s after the load (last ${last})`);
}

async function record(db: MariaDb, description: string): Promise<Fixture> {
  await quiesce(db);
  const pool = new TargetPool({ address: db.socket, user: db.user, password: db.password }, 2);
  try {
    return await recordFixture(pool.queryable(Date.now() + 20_000), {
      description,
      datadirAs: "/var/lib/mysql/",
    });
  } finally {
    await pool.close();
  }
}

async function save(name: string, fixture: Fixture): Promise<void> {
  await mkdir(join(SERVERS, name), { recursive: true });
  await writeFile(join(SERVERS, name, "fixture.json"), `${JSON.stringify(fixture, null, 2)}\n`);
}

describe("fixture recorded from a live MariaDB 10.11", () => {
  let db: MariaDb;
  beforeAll(async () => {
    db = await startMariaDb({ bufferPoolSize: "8M", performanceSchema: true, extra: FLUSHY });
    await prepareSysbench(db, LOAD);
    await runSysbench(targetOf(db), { ...LOAD, threads: 4, time: 3 });
  }, 120_000);
  afterAll(async () => {
    await db?.destroy();
  });

  it("makes the collectors emit the same series as the live server, with counters no higher", async () => {
    const fixture = await record(db, "MariaDB 10.11 recorded after 3 s of sysbench oltp_write_only, P_S ON.");
    const pool = new TargetPool({ address: db.socket, user: db.user, password: db.password }, 2);
    let liveText: string;
    try {
      liveText = (await scrapeSource(pool, "live")).text;
    } finally {
      await pool.close();
    }
    const fromFixture = parseExposition((await scrapeFixture(fixture)).text);
    const live = parseExposition(liveText);

    expect(fromFixture.map(seriesKey).sort()).toEqual(live.map(seriesKey).sort());
    const liveByKey = new Map(live.map((s) => [seriesKey(s), s.value]));
    for (const s of fromFixture) {
      const liveValue = liveByKey.get(seriesKey(s))!;
      if (STABLE.includes(s.name)) expect(s.value, seriesKey(s)).toBe(liveValue);
      // The fixture was recorded first, so no counter in it may be ahead of the live server.
      if (s.name.endsWith("_total")) expect(s.value, seriesKey(s)).toBeLessThanOrEqual(liveValue);
    }
    // The load went through the doublewrite buffer, so the comparison above covered real numbers.
    expect(Number(fixture.status["Innodb_dblwr_pages_written"])).toBeGreaterThan(0);

    if (RECORD) {
      await save("mariadb-10.11.19", fixture);
      await db.restart({ performanceSchema: false });
      await runSysbench(targetOf(db), { ...LOAD, threads: 4, time: 3 });
      await save(
        "mariadb-10.11.19-ps-off",
        await record(
          db,
          "MariaDB 10.11 as Debian ships it (performance_schema OFF), recorded after sysbench.",
        ),
      );
    }
  }, 120_000);
});
