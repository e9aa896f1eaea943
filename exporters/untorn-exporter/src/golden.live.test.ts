// Golden files: the full exposition of every database collector against recorded server fixtures
// (testdata/servers/<case>/fixture.json → expected.prom), one case per flavor/version difference that
// docs/reference documents. UPDATE_GOLDEN=1 rewrites expected.prom; review the diff before committing it.
import { execFile } from "node:child_process";
import { existsSync, readdirSync } from "node:fs";
import { readFile, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { requireBinary } from "@untorn/testkit/process";
import { describe, expect, it } from "vitest";
import { mustValue, parseExposition, type Sample, sampleValue } from "../test/exposition.js";
import { type Fixture, loadFixture } from "./testing/fixture-source.js";
import { canonicalExposition, DB_COLLECTORS, scrapeFixture } from "./testing/scrape-fixture.js";
import { atLeast, detectFlavor, hasMdev31124, parseVersion } from "./version.js";

const run = promisify(execFile);
const SERVERS = join(dirname(fileURLToPath(import.meta.url)), "../testdata/servers");
const UPDATE = process.env["UPDATE_GOLDEN"] === "1";
const PAGE = 16384;

const CASES = readdirSync(SERVERS, { withFileTypes: true })
  .filter((d) => d.isDirectory() && existsSync(join(SERVERS, d.name, "fixture.json")))
  .map((d) => d.name)
  .sort();

interface Scraped {
  fixture: Fixture;
  text: string;
  samples: Sample[];
  statements: string[];
}

const cache = new Map<string, Promise<Scraped>>();
function scraped(name: string): Promise<Scraped> {
  let p = cache.get(name);
  if (!p) {
    p = (async () => {
      const fixture = await loadFixture(join(SERVERS, name, "fixture.json"));
      const { text, statements } = await scrapeFixture(fixture, name);
      const canonical = canonicalExposition(text);
      return { fixture, text: canonical, samples: parseExposition(canonical), statements };
    })();
    cache.set(name, p);
  }
  return p;
}

const v = (s: Sample[], name: string, labels: Record<string, string> = {}) => mustValue(s, name, labels);
const has = (s: Sample[], name: string, labels: Record<string, string> = {}) =>
  sampleValue(s, name, labels) !== undefined;
const status = (f: Fixture, name: string) => Number(f.status[name]);
const success = (s: Sample[], collector: string) => v(s, "untorn_exporter_collector_success", { collector });
const info = (s: Sample[], name: string) => {
  const hits = s.filter((x) => x.name === name);
  expect(hits).toHaveLength(1);
  return hits[0]!.labels;
};
const mode = (s: Sample[]) =>
  s.filter((x) => x.name === "untorn_innodb_doublewrite_mode" && x.value === 1).map((x) => x.labels["mode"]);
const role = (s: Sample[]) =>
  s.filter((x) => x.name === "untorn_replication_role" && x.value === 1).map((x) => x.labels["role"]);
const fileRow = (f: Fixture, event: string) => {
  const row = f.file_summary_by_event_name.find((r) => r.EVENT_NAME === event);
  if (!row) throw new Error(`fixture has no file_summary_by_event_name row for ${event}`);
  return row;
};

/** Equal within 0.5%: counters of one SHOW GLOBAL STATUS are not read atomically. */
const near = (actual: number, expected: number) =>
  expect(Math.abs(actual - expected), `${actual} vs ${expected}`).toBeLessThanOrEqual(expected * 0.005);

const DB_COLLECTOR_NAMES = DB_COLLECTORS.map((c) => c.name);
const PS_COLLECTORS = ["perf_schema.file_io", "perf_schema.waits"];

/** What each fixture proves, beyond the golden comparison (docs/reference section numbers in brackets). */
const CHECKS: Record<string, (s: Sample[], f: Fixture) => void> = {
  "mysql-5.7.44": (s, f) => {
    expect(info(s, "untorn_server_info")).toMatchObject({ flavor: "mysql", version: "5.7.44-log" });
    // [1.4] boolean before 8.0.30; the 8.0.20+ doublewrite variables do not exist.
    expect(info(s, "untorn_innodb_config_info")["doublewrite"]).toBe("ON");
    expect(mode(s)).toEqual(["on"]);
    expect(has(s, "untorn_innodb_doublewrite_pages")).toBe(false);
    expect(has(s, "untorn_innodb_doublewrite_files")).toBe(false);
    // [0, 1.2] no dblwr file instrument: the doublewrite writes land in ibdata1 (system_tablespace).
    expect(v(s, "untorn_perf_schema_file_io_instrumented", { class: "doublewrite" })).toBe(0);
    expect(has(s, "untorn_perf_schema_file_writes_total", { class: "doublewrite" })).toBe(false);
    expect(v(s, "untorn_perf_schema_file_write_bytes_total", { class: "system_tablespace" })).toBeGreaterThan(
      status(f, "Innodb_dblwr_pages_written") * PAGE,
    );
    // [5.1] buf_dblwr_mutex, here enabled at startup: waits and picoseconds → seconds.
    const waits = f.events_waits_summary_global_by_event_name[0]!;
    expect(v(s, "untorn_perf_schema_dblwr_mutex_instrumented", { mutex: "buf_dblwr_mutex" })).toBe(1);
    expect(v(s, "untorn_perf_schema_dblwr_mutex_waits_total", { mutex: "buf_dblwr_mutex" })).toBe(
      Number(waits["COUNT_STAR"]),
    );
    expect(
      v(s, "untorn_perf_schema_dblwr_mutex_wait_seconds_total", { mutex: "buf_dblwr_mutex" }),
    ).toBeCloseTo(Number(waits["SUM_TIMER_WAIT"]) / 1e12, 9);
    expect(v(s, "untorn_innodb_metrics_dblwr_enabled")).toBe(0);
    // [4] no checkpoint status in MySQL before 8.0.30; redo size = file size x files.
    expect(has(s, "untorn_innodb_checkpoint_age_bytes")).toBe(false);
    expect(v(s, "untorn_innodb_redo_log_capacity_bytes")).toBe(2 * 536870912);
    // A primary: SHOW SLAVE STATUS has no row, two binlog dump threads; gtid_mode OFF → no GTID series.
    expect(role(s)).toEqual(["primary"]);
    expect(v(s, "untorn_replication_connected_replicas")).toBe(f.processlist.length);
    expect(s.some((x) => x.name.startsWith("untorn_replication_gtid_"))).toBe(false);
    expect(has(s, "untorn_replication_lag_seconds")).toBe(false);
  },

  "mysql-8.0.19": (s) => {
    // [0] the last version with doublewrite in ibdata1 and the old mutex name.
    expect(has(s, "untorn_innodb_doublewrite_pages")).toBe(false);
    expect(v(s, "untorn_perf_schema_file_io_instrumented", { class: "doublewrite" })).toBe(0);
    expect(v(s, "untorn_perf_schema_dblwr_mutex_instrumented", { mutex: "buf_dblwr_mutex" })).toBe(0);
    expect(has(s, "untorn_perf_schema_dblwr_mutex_waits_total", { mutex: "dblwr_mutex" })).toBe(false);
    // [4] the dblwr INNODB_METRICS module arrived in 8.0.20.
    expect(v(s, "untorn_innodb_metrics_dblwr_enabled")).toBe(0);
    expect(has(s, "untorn_innodb_metrics_dblwr_events_total")).toBe(false);
    expect(info(s, "untorn_innodb_config_info")["flush_method"]).toBe("fsync");
  },

  "mysql-8.0.25": (s, f) => {
    // [1.3, 1.4] separate files, own instrument, pages default 4 (= innodb_write_io_threads), 2 files.
    expect(v(s, "untorn_innodb_doublewrite_pages")).toBe(4);
    expect(v(s, "untorn_innodb_doublewrite_files")).toBe(2);
    expect(v(s, "untorn_perf_schema_file_io_instrumented", { class: "doublewrite" })).toBe(1);
    const dblwr = fileRow(f, "wait/io/file/innodb/innodb_dblwr_file");
    expect(v(s, "untorn_perf_schema_file_write_bytes_total", { class: "doublewrite" })).toBe(
      Number(dblwr["SUM_NUMBER_OF_BYTES_WRITE"]),
    );
    // [1.6] a batch is at most innodb_doublewrite_pages pages.
    const batch = v(s, "untorn_innodb_dblwr_pages_written_total") / v(s, "untorn_innodb_dblwr_writes_total");
    expect(batch).toBeGreaterThan(3);
    expect(batch).toBeLessThanOrEqual(4);
    // [1.5] fsync flush method: every doublewrite batch is followed by an fsync (misc ≈ writes).
    expect(v(s, "untorn_perf_schema_file_misc_total", { class: "doublewrite" })).toBeGreaterThanOrEqual(
      v(s, "untorn_innodb_dblwr_writes_total"),
    );
    // [5.1] renamed mutex from 8.0.20; the dblwr module exists but is disabled by default.
    expect(v(s, "untorn_perf_schema_dblwr_mutex_instrumented", { mutex: "dblwr_mutex" })).toBe(0);
    expect(v(s, "untorn_innodb_metrics_dblwr_enabled")).toBe(0);
    expect(has(s, "untorn_innodb_metrics_dblwr_events_total")).toBe(false);
    expect(info(s, "untorn_innodb_config_info")["use_fdatasync"]).toBe("");
  },

  "mysql-8.0.35": (s, f) => {
    // [1.4] DETECT_ONLY writes metadata only: not a full-page doublewrite.
    expect(mode(s)).toEqual(["detect_only"]);
    expect(v(s, "untorn_innodb_doublewrite_mode", { mode: "detect_only" })).toBe(1);
    expect(v(s, "untorn_innodb_doublewrite_enabled")).toBe(0);
    expect(info(s, "untorn_innodb_config_info")).toMatchObject({
      doublewrite: "DETECT_ONLY",
      flush_method: "O_DIRECT",
    });
    // [4] checkpoint age from the 8.0.30+ LSNs, max age from the (resized) redo capacity.
    const age = status(f, "Innodb_redo_log_current_lsn") - status(f, "Innodb_redo_log_checkpoint_lsn");
    expect(v(s, "untorn_innodb_checkpoint_age_bytes")).toBe(age);
    expect(v(s, "untorn_innodb_checkpoint_max_age_bytes")).toBe(
      status(f, "Innodb_redo_log_capacity_resized"),
    );
    expect(v(s, "untorn_innodb_redo_log_capacity_bytes")).toBe(2147483648);
    // [1.5] with O_DIRECT the doublewrite file gets no fsync of its own: misc stays at a few opens.
    expect(v(s, "untorn_perf_schema_file_misc_total", { class: "doublewrite" })).toBeLessThan(10);
    expect(v(s, "untorn_perf_schema_file_writes_total", { class: "doublewrite" })).toBeGreaterThan(1e6);
    // A multi-source replica in the 8.0.22+ column names: lag only where the server reports it (the
    // stopped applier's NULL is absent, not 0), thread states and error numbers per channel.
    expect(role(s)).toEqual(["replica"]);
    expect(v(s, "untorn_replication_lag_seconds", { channel: "" })).toBe(12);
    expect(has(s, "untorn_replication_lag_seconds", { channel: "reporting" })).toBe(false);
    expect(v(s, "untorn_replication_sql_thread_running", { channel: "reporting" })).toBe(0);
    expect(v(s, "untorn_replication_io_thread_running", { channel: "reporting" })).toBe(1);
    expect(v(s, "untorn_replication_last_sql_errno", { channel: "reporting" })).toBe(1062);
    expect(v(s, "untorn_replication_source_server_id", { channel: "" })).toBe(11);
    // gtid_executed "uuid1:1-3412874, uuid2:1-120588:120590-120600" = 3412874 + 120588 + 11, no UUID label.
    expect(v(s, "untorn_replication_gtid_executed_transactions")).toBe(3533473);
    expect(v(s, "untorn_replication_gtid_retrieved_transactions", { channel: "" })).toBe(12880);
    expect(f.replica_status.every((r) => "Seconds_Behind_Source" in r)).toBe(true);
  },

  "mysql-8.4.3": (s, f) => {
    // [1.4, 1.5] 8.4 defaults: 128 pages per batch segment, fdatasync.
    expect(v(s, "untorn_innodb_doublewrite_pages")).toBe(128);
    expect(info(s, "untorn_innodb_config_info")).toMatchObject({
      use_fdatasync: "ON",
      doublewrite_dir: "/mnt/nvme1/dblwr",
      flush_method: "O_DIRECT",
    });
    // [4] module_dblwr enabled: the four counters, consistent with the status counters.
    const count = (name: string) => Number(f.innodb_metrics.find((r) => r.NAME === name)!["COUNT"]);
    expect(v(s, "untorn_innodb_metrics_dblwr_enabled")).toBe(1);
    expect(v(s, "untorn_innodb_metrics_dblwr_events_total", { event: "flush_wait_events" })).toBe(
      count("dblwr_flush_wait_events"),
    );
    expect(v(s, "untorn_innodb_metrics_dblwr_events_total", { event: "flush_requests" })).toBe(
      v(s, "untorn_innodb_dblwr_writes_total"),
    );
    expect(v(s, "untorn_innodb_metrics_dblwr_events_total", { event: "async_requests" })).toBe(
      v(s, "untorn_innodb_dblwr_pages_written_total"),
    );
    expect(v(s, "untorn_perf_schema_dblwr_mutex_instrumented", { mutex: "dblwr_mutex" })).toBe(1);
    expect(v(s, "untorn_perf_schema_dblwr_mutex_waits_total", { mutex: "dblwr_mutex" })).toBeGreaterThan(0);
    // 8.4 has no SHOW SLAVE STATUS (the fixture source refuses it, errno 1064); no replica, no dump thread.
    expect(success(s, "replication")).toBe(1);
    expect(role(s)).toEqual(["standalone"]);
    expect(v(s, "untorn_replication_connected_replicas")).toBe(0);
  },

  "mysql-9.1.0": (s) => {
    // [1.4] TRUE is an alias of ON: the raw string stays in the info label, the mode is normalised.
    expect(info(s, "untorn_innodb_config_info")["doublewrite"]).toBe("TRUE");
    expect(mode(s)).toEqual(["on"]);
    expect(v(s, "untorn_innodb_doublewrite_enabled")).toBe(1);
    expect(v(s, "untorn_innodb_doublewrite_pages")).toBe(128);
    expect(info(s, "untorn_server_info")).toMatchObject({ flavor: "mysql", version: "9.1.0" });
  },

  "percona-server-8.0.36": (s) => {
    // [0, 3] Percona from version_comment; 8.0.20+ uses the upstream doublewrite files and names.
    expect(info(s, "untorn_server_info")).toMatchObject({
      flavor: "percona",
      version: "8.0.36-28",
      version_comment: "Percona Server (GPL), Release 28, Revision 47601f19",
      managed: "none",
    });
    expect(v(s, "untorn_perf_schema_file_io_instrumented", { class: "doublewrite" })).toBe(1);
    expect(v(s, "untorn_perf_schema_file_writes_total", { class: "doublewrite" })).toBeGreaterThan(0);
    expect(has(s, "untorn_perf_schema_dblwr_mutex_instrumented", { mutex: "dblwr_mutex" })).toBe(true);
  },

  "percona-server-5.7.44": (s, f) => {
    expect(info(s, "untorn_server_info")).toMatchObject({ flavor: "percona", version: "5.7.44-48-log" });
    // Percona 5.x status variables take the MariaDB-style checkpoint path.
    expect(v(s, "untorn_innodb_checkpoint_age_bytes")).toBe(status(f, "Innodb_checkpoint_age"));
    expect(v(s, "untorn_innodb_checkpoint_max_age_bytes")).toBe(status(f, "Innodb_checkpoint_max_age"));
    expect(f.variables["innodb_parallel_doublewrite_path"]).toBe("xb_doublewrite");
    // [3] Known gap (README): batch flushes go to xb_doublewrite, whose instrument the exporter does not
    // map, so neither the doublewrite class nor ibdata1 carries them.
    expect(v(s, "untorn_perf_schema_file_io_instrumented", { class: "doublewrite" })).toBe(0);
    expect(v(s, "untorn_perf_schema_file_write_bytes_total", { class: "system_tablespace" })).toBeLessThan(
      status(f, "Innodb_dblwr_pages_written") * PAGE,
    );
  },

  "mariadb-10.6.12": (s, f) => {
    // [4] MDEV-31124: Innodb_data_written counts doublewrite pages as 1 byte. The exporter passes the
    // server's figure on as is (the advisor corrects it, for every source alike).
    const raw = status(f, "Innodb_data_written");
    const corrected = raw + (PAGE - 1) * status(f, "Innodb_dblwr_pages_written");
    expect(hasMdev31124("mariadb", [10, 6, 12])).toBe(true);
    expect(v(s, "untorn_innodb_data_written_bytes_total")).toBe(raw);
    // The corrected figure is what performance_schema measured on the data files.
    expect(corrected).toBe(
      Number(fileRow(f, "wait/io/file/innodb/innodb_data_file")["SUM_NUMBER_OF_BYTES_WRITE"]),
    );
    // [2.1] no dblwr instrument: doublewrite I/O is inside ibdata1 (system_tablespace).
    expect(has(s, "untorn_perf_schema_file_writes_total", { class: "doublewrite" })).toBe(false);
    expect(v(s, "untorn_perf_schema_file_write_bytes_total", { class: "system_tablespace" })).toBeGreaterThan(
      status(f, "Innodb_dblwr_pages_written") * PAGE,
    );
    expect(v(s, "untorn_perf_schema_file_io_instrumented", { class: "redo" })).toBe(1);
    // [4] Innodb_os_log_fsyncs still exists before 10.8.
    expect(has(s, "untorn_innodb_os_log_fsyncs_total")).toBe(true);
    expect(has(s, "untorn_innodb_buffer_pool_instances")).toBe(false);
    expect(v(s, "untorn_innodb_checkpoint_age_bytes")).toBe(status(f, "Innodb_checkpoint_age"));
  },

  "mariadb-11.4.4": (s, f) => {
    // [2.2] ENUM with `fast`: still a full-page doublewrite, data files not synced.
    expect(mode(s)).toEqual(["fast"]);
    expect(v(s, "untorn_innodb_doublewrite_enabled")).toBe(1);
    // [2.5] the 11.0 replacements of innodb_flush_method.
    expect(info(s, "untorn_innodb_config_info")).toMatchObject({
      doublewrite: "fast",
      data_file_buffering: "OFF",
      data_file_write_through: "OFF",
    });
    // [4] fixed releases need no correction; Innodb_os_log_fsyncs is gone since 10.8.
    const expected =
      (status(f, "Innodb_buffer_pool_pages_flushed") + status(f, "Innodb_dblwr_pages_written")) * PAGE;
    expect(v(s, "untorn_innodb_data_written_bytes_total")).toBe(expected);
    expect(has(s, "untorn_innodb_os_log_fsyncs_total")).toBe(false);
    expect(has(s, "untorn_perf_schema_file_writes_total", { class: "doublewrite" })).toBe(false);
    expect(v(s, "untorn_perf_schema_file_writes_total", { class: "undo" })).toBeGreaterThan(0);
  },

  "mariadb-10.11.19": (s, f) => {
    // Recorded on this machine: the counters agree the way README says they do.
    const flushed = status(f, "Innodb_buffer_pool_pages_flushed");
    const pages = status(f, "Innodb_dblwr_pages_written");
    expect(v(s, "untorn_innodb_data_writes_total")).toBe(flushed + status(f, "Innodb_dblwr_writes"));
    expect(v(s, "untorn_innodb_data_written_bytes_total")).toBe((flushed + pages) * PAGE);
    expect(v(s, "untorn_innodb_data_written_bytes_total")).toBe(
      Number(fileRow(f, "wait/io/file/innodb/innodb_data_file")["SUM_NUMBER_OF_BYTES_WRITE"]),
    );
    expect(info(s, "untorn_server_info")).toMatchObject({ flavor: "mariadb", managed: "none" });
    // No innodb_log_file instrument on this release (README: differs from docs/reference/performance-schema.md §5.1): no redo class.
    expect(f.setup_instruments.some((r) => r.NAME === "wait/io/file/innodb/innodb_log_file")).toBe(false);
    expect(v(s, "untorn_perf_schema_file_io_instrumented", { class: "redo" })).toBe(0);
    expect(has(s, "untorn_perf_schema_file_writes_total", { class: "redo" })).toBe(false);
    expect(v(s, "untorn_perf_schema_dblwr_mutex_instrumented", { mutex: "buf_dblwr_mutex" })).toBe(0);
  },

  "mariadb-10.11.19-ps-off": (s) => {
    // [5.1] MariaDB's default: P_S off. Reported as "not instrumented", not as a collector failure.
    expect(v(s, "untorn_perf_schema_enabled")).toBe(0);
    const instrumented = s.filter((x) => x.name === "untorn_perf_schema_file_io_instrumented");
    expect(instrumented).toHaveLength(8);
    expect(instrumented.every((x) => x.value === 0)).toBe(true);
    expect(v(s, "untorn_perf_schema_dblwr_mutex_instrumented", { mutex: "buf_dblwr_mutex" })).toBe(0);
    expect(s.some((x) => /^untorn_perf_schema_file_(reads|writes|misc)/.test(x.name))).toBe(false);
    for (const c of PS_COLLECTORS) expect(success(s, c)).toBe(1);
    expect(v(s, "untorn_innodb_dblwr_pages_written_total")).toBeGreaterThan(0);
  },

  "rds-mysql-8.0.36": (s) => {
    // [8.1] RDS (basedir under /rdsdbbin) with Optimized Writes: doublewrite off, counters flat.
    expect(info(s, "untorn_server_info")).toMatchObject({ flavor: "mysql", managed: "rds" });
    expect(mode(s)).toEqual(["off"]);
    expect(v(s, "untorn_innodb_doublewrite_enabled")).toBe(0);
    expect(v(s, "untorn_innodb_dblwr_pages_written_total")).toBe(0);
    expect(v(s, "untorn_innodb_dblwr_writes_total")).toBe(0);
    expect(v(s, "untorn_perf_schema_file_write_bytes_total", { class: "doublewrite" })).toBe(0);
    expect(v(s, "untorn_innodb_buffer_pool_pages_flushed_total")).toBeGreaterThan(0);
  },

  "aurora-mysql-3.05.2": (s) => {
    // aurora_version wins over the /rdsdbbin basedir that RDS and Aurora share.
    expect(info(s, "untorn_server_info")).toMatchObject({
      flavor: "mysql",
      version: "8.0.32",
      managed: "aurora",
    });
    expect(v(s, "untorn_perf_schema_enabled")).toBe(0);
    expect(v(s, "untorn_innodb_dblwr_pages_written_total")).toBe(0);
  },

  "mysql-8.0.36-no-ps-grant": (s) => {
    // [6] SELECT on performance_schema missing: those collectors fail alone, the rest still report.
    for (const c of PS_COLLECTORS) expect(success(s, c)).toBe(0);
    for (const c of ["config", "global_status", "innodb_metrics.dblwr"]) expect(success(s, c)).toBe(1);
    expect(s.some((x) => x.name.startsWith("untorn_perf_schema_file_"))).toBe(false);
    expect(s.some((x) => x.name.startsWith("untorn_perf_schema_dblwr_mutex"))).toBe(false);
    expect(v(s, "untorn_perf_schema_enabled")).toBe(1);
    expect(v(s, "untorn_innodb_dblwr_pages_written_total")).toBeGreaterThan(0);
    // [6] REPLICATION CLIENT missing as well: no replication series, the collector says it failed.
    expect(success(s, "replication")).toBe(0);
    expect(s.some((x) => x.name.startsWith("untorn_replication_"))).toBe(false);
  },
};

describe.each(CASES)("%s", (name) => {
  const dir = join(SERVERS, name);

  it("renders expected.prom", async () => {
    const { text } = await scraped(name);
    const file = join(dir, "expected.prom");
    if (UPDATE) await writeFile(file, text);
    expect(existsSync(file), `${file} is missing: run with UPDATE_GOLDEN=1`).toBe(true);
    expect(text).toBe(await readFile(file, "utf8"));
  });

  it("passes promtool check metrics", async () => {
    // promtool is in Debian's `prometheus` package; requireBinary names it when missing.
    const promtool = requireBinary("promtool", "prometheus");
    const { stdout, stderr } = await run("sh", [
      "-c",
      `"${promtool}" check metrics < "${join(dir, "expected.prom")}"`,
    ]);
    expect(`${stdout}${stderr}`).toBe("");
  });

  it("is up, and every collector succeeded unless the fixture denies it a table", async () => {
    const { fixture, samples } = await scraped(name);
    expect(v(samples, "untorn_mysql_up")).toBe(1);
    const denied = Object.keys(fixture.errors ?? {});
    for (const c of DB_COLLECTOR_NAMES) {
      const psDenied = PS_COLLECTORS.includes(c) && denied.some((t) => t.startsWith("performance_schema."));
      const replicationDenied = c === "replication" && denied.includes("SHOW REPLICA STATUS");
      const expected = psDenied || replicationDenied ? 0 : 1;
      expect(success(samples, c), c).toBe(expected);
    }
  });

  it("reads no performance_schema table when performance_schema is OFF", async () => {
    const { fixture, statements } = await scraped(name);
    const psQueries = statements.filter((s) => /performance_schema\./i.test(s));
    if (fixture.server.performance_schema) expect(psQueries.length).toBeGreaterThan(0);
    else expect(psQueries).toEqual([]);
  });

  it("has counters that agree with each other the way the server computes them", async () => {
    const { fixture: f } = await scraped(name);
    const flavor = detectFlavor(f.server.version, f.server.version_comment);
    const version = parseVersion(f.server.version);
    const ps = f.server.page_size;
    const flushed = status(f, "Innodb_buffer_pool_pages_flushed");
    const pages = status(f, "Innodb_dblwr_pages_written");
    const writes = status(f, "Innodb_dblwr_writes");
    // Only flushed pages go through the doublewrite buffer.
    expect(pages).toBeLessThanOrEqual(flushed);
    if (writes > 0) {
      // [1.6] a MySQL 8.0.20+ batch is capped by innodb_doublewrite_pages; [1.2, 2.1] the legacy area is 128 pages.
      const cap =
        flavor !== "mariadb" && atLeast(version, [8, 0, 20])
          ? Number(f.variables["innodb_doublewrite_pages"])
          : 128;
      expect(pages / writes).toBeLessThanOrEqual(cap);
    }
    if (flavor === "mariadb") {
      // [2.1, 4] one data-file write per flushed page and per doublewrite I/O; bytes exclude redo. SHOW
      // GLOBAL STATUS reads the counters one after another, so a batch in flight can skew them a little.
      near(status(f, "Innodb_data_writes"), flushed + writes);
      const bytes = (flushed + pages) * ps;
      const reported = hasMdev31124(flavor, version) ? flushed * ps + pages : bytes;
      near(status(f, "Innodb_data_written"), reported);
      expect(status(f, "Innodb_checkpoint_age")).toBe(
        status(f, "Innodb_lsn_current") - status(f, "Innodb_lsn_last_checkpoint"),
      );
      if (f.server.performance_schema) {
        const dataFile = fileRow(f, "wait/io/file/innodb/innodb_data_file");
        near(Number(dataFile["SUM_NUMBER_OF_BYTES_WRITE"]), bytes);
        near(Number(dataFile["COUNT_WRITE"]), flushed + writes);
      }
    }
    if (f.status["Innodb_redo_log_capacity_resized"] !== undefined) {
      expect(f.status["Innodb_redo_log_capacity_resized"]).toBe(f.variables["innodb_redo_log_capacity"]);
      const age = status(f, "Innodb_redo_log_current_lsn") - status(f, "Innodb_redo_log_checkpoint_lsn");
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThan(status(f, "Innodb_redo_log_capacity_resized"));
    }
    const dblwrFile = f.file_summary_by_event_name.find(
      (r) => r.EVENT_NAME === "wait/io/file/innodb/innodb_dblwr_file",
    );
    if (dblwrFile && f.variables["innodb_doublewrite"] !== "DETECT_ONLY") {
      expect(Number(dblwrFile["SUM_NUMBER_OF_BYTES_WRITE"])).toBeGreaterThanOrEqual(pages * ps);
    }
    // Per-file rows add up to no more than their event's totals.
    for (const ev of f.file_summary_by_event_name) {
      const files = f.file_summary_by_instance.filter((r) => r.EVENT_NAME === ev.EVENT_NAME);
      for (const col of ["COUNT_WRITE", "SUM_NUMBER_OF_BYTES_WRITE", "COUNT_READ", "COUNT_MISC"]) {
        const sum = files.reduce((a, r) => a + Number(r[col]), 0);
        expect(sum, `${ev.EVENT_NAME} ${col}`).toBeLessThanOrEqual(Number(ev[col]));
      }
    }
  });

  it("has targeted assertions", () => {
    expect(Object.keys(CHECKS), `add CHECKS["${name}"] saying what this fixture proves`).toContain(name);
  });
});

describe("targeted assertions", () => {
  it.each(Object.keys(CHECKS))("%s", async (name) => {
    expect(CASES).toContain(name);
    const { samples, fixture } = await scraped(name);
    CHECKS[name]!(samples, fixture);
  });
});
