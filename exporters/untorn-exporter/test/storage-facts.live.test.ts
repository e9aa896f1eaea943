// The central deployment: one exporter scrapes the server over SQL (/probe), `storage-facts` writes the
// host facts for node_exporter's textfile collector, and the catalog's signals (which the dashboards,
// rules and advisor read) join the two forms by `instance`.
import { spawnSync } from "node:child_process";
import { mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { signal } from "@untorn/catalog/signals";
import { startUntornExporter, untornExporterMain } from "@untorn/testkit/exporters";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import {
  freePort,
  makeTempDir,
  removeDir,
  requireBinary,
  spawnManaged,
  waitFor,
} from "@untorn/testkit/process";
import { startPrometheus } from "@untorn/testkit/prometheus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mustValue, sampleValue } from "./exposition.js";

function storageFacts(args: string[]) {
  return spawnSync(process.execPath, [untornExporterMain(), "storage-facts", ...args], { encoding: "utf8" });
}

describe("untorn-exporter storage-facts", () => {
  let db: MariaDb;
  let dir: string;
  beforeAll(async () => {
    db = await startMariaDb();
    dir = await makeTempDir("textfile");
  });
  afterAll(async () => {
    await db?.destroy();
    await removeDir(dir);
  });

  it("asks the server for its datadir and writes the storage gauges, no counters, by rename", () => {
    const out = join(dir, "untorn.prom");
    const r = storageFacts([
      `--output=${out}`,
      `--mysqld.address=${db.socket}`,
      `--mysqld.username=${db.user}`,
    ]);
    expect(r.stderr).toBe("");
    expect(r.status).toBe(0);
    const text = readFileSync(out, "utf8");
    expect(mustValue(text, "untorn_host_storage_datadir_visible")).toBe(1);
    expect(mustValue(text, "untorn_host_storage_fs_block_size_bytes")).toBeGreaterThan(0);
    expect(text).toMatch(/^untorn_host_storage_info\{device="[^"]+",/m);
    expect(text).not.toMatch(/^# TYPE \S+ counter$/m);
    expect(sampleValue(text, "untorn_host_storage_io_in_progress")).toBeUndefined();
    expect(statSync(out).mode & 0o777).toBe(0o644);
    expect(readdirSync(dir).filter((f) => f !== "untorn.prom")).toEqual([]);
  });

  it.each([
    [["--mysqld.address=/nonexistent.sock"], 2, /needs --output/],
    [["--output=/tmp/x.txt"], 2, /must end in \.prom/],
    [["--output"], 2, /--output needs a value/],
    [["--output=/tmp/untorn-x.prom", "--bogus"], 2, /unknown flag --bogus/],
    [["--output=/tmp/untorn-x.prom", "--mysqld.address=/nonexistent.sock"], 1, /give --host.datadir instead/],
  ])("refuses %j with exit %i", (args, code, message) => {
    const r = storageFacts(args);
    expect(r.status).toBe(code);
    expect(r.stderr).toMatch(message);
  });

  it("exits 1, and still writes the file, when the datadir is not visible", () => {
    const out = join(dir, "invisible.prom");
    const r = storageFacts([`--output=${out}`, "--host.datadir=/nonexistent/datadir"]);
    expect(r.status).toBe(1);
    expect(r.stderr).toMatch(/not visible/);
    expect(mustValue(readFileSync(out, "utf8"), "untorn_host_storage_datadir_visible")).toBe(0);
  });

  it("feeds node_exporter's textfile collector; the catalog's signals join it with /probe by instance", async () => {
    const textDir = join(dir, "textfile");
    const out = join(textDir, "untorn.prom");
    mkdirSync(textDir);
    expect(storageFacts([`--output=${out}`, `--host.datadir=${db.datadir}`]).status).toBe(0);

    const probe = join(dir, "probe.yml");
    writeFileSync(
      probe,
      `auth_modules:\n  fleet:\n    user: ${db.user}\n    password: "${db.password}"\n    targets: ["${db.socket}"]\n`,
    );
    const central = await startUntornExporter({ args: [`--probe.config.file=${probe}`] });
    const nodePort = await freePort();
    const node = spawnManaged(
      requireBinary("prometheus-node-exporter", "prometheus-node-exporter"),
      [
        `--web.listen-address=127.0.0.1:${nodePort}`,
        "--collector.disable-defaults",
        "--collector.textfile",
        `--collector.textfile.directory=${textDir}`,
      ],
      { logFile: join(dir, "node.log") },
    );
    const prom = await startPrometheus({
      jobs: [
        {
          jobName: "untorn-probe",
          targets: [central.address],
          metricsPath: "/probe",
          params: { target: [db.socket], auth_module: ["fleet"] },
          labels: { instance: "db1" },
        },
        { jobName: "node", targets: [`127.0.0.1:${nodePort}`], labels: { instance: "db1" } },
      ],
    });
    try {
      await waitFor("node_exporter", async () => (await fetch(`http://127.0.0.1:${nodePort}/metrics`)).ok, {
        detail: () => node.tail(),
      });
      const selector = { instance: "db1" };
      // A host fact from the textfile, a server fact from /probe, and one signal that needs both.
      const info = await prom.waitForSeries(signal("storage_info").expr({ selector }), 30_000);
      expect(info[0]?.metric["fstype"]).toBeTruthy();
      const block = await prom.waitForSeries(signal("fs_block_size_bytes").expr({ selector }), 30_000);
      expect(Number(block[0]?.value[1])).toBeGreaterThan(0);
      const visible = await prom.waitForSeries(signal("datadir_visible").expr({ selector }), 30_000);
      expect(Number(visible[0]?.value[1])).toBe(1);
      const joined = await prom.waitForSeries(
        `max by (instance) (untorn_host_storage_datadir_visible{instance="db1"}) * on (instance) max by (instance) (untorn_innodb_page_size_bytes{instance="db1"})`,
        30_000,
      );
      expect(Number(joined[0]?.value[1])).toBe(16384);
      // The composite signal compares the device's atomic unit (textfile) with innodb_page_size (/probe).
      if (mustValue(readFileSync(out, "utf8"), "untorn_host_storage_atomic_write_attributes_present") === 1) {
        const capable = await prom.waitForSeries(signal("atomic_write_capable").expr({ selector }), 30_000);
        const unitMax = mustValue(
          readFileSync(out, "utf8"),
          "untorn_host_storage_atomic_write_unit_max_bytes",
        );
        expect(Number(capable[0]?.value[1])).toBe(unitMax >= 16384 ? 1 : 0);
      }
      // the textfile's series really come through node_exporter's job
      const jobs = await prom.query(`count by (job) (untorn_host_storage_fs_block_size_bytes)`);
      expect(jobs.map((s) => s.metric["job"])).toEqual(["node"]);
    } finally {
      await prom.stop();
      await node.stop();
      await central.stop();
    }
  });
});
