import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { type MariaDb, startMariaDb } from "./mariadb.js";
import { MissingBinaryError, requireBinary } from "./process.js";
import { renderPrometheusConfig, startPrometheus } from "./prometheus.js";
import { parseSysbenchOutput, prepareSysbench, runSysbench, targetOf } from "./sysbench.js";

describe("requireBinary", () => {
  it("names the Debian package when a binary is missing", () => {
    expect(() => requireBinary("untorn-no-such-binary", "untorn-pkg")).toThrow(MissingBinaryError);
    expect(() => requireBinary("untorn-no-such-binary", "untorn-pkg")).toThrow(/apt-get install untorn-pkg/);
  });
  it("finds mariadbd in /usr/sbin", () => {
    expect(requireBinary("mariadbd", "mariadb-server")).toMatch(/mariadbd$/);
  });
});

describe("parseSysbenchOutput", () => {
  it("rejects output without a summary", () => {
    expect(() => parseSysbenchOutput("FATAL: connection refused")).toThrow(/no transactions/);
  });
});

describe("renderPrometheusConfig", () => {
  it("quotes every value and lists rule files", () => {
    const yml = renderPrometheusConfig({ jobs: [{ jobName: "a:b", targets: ["127.0.0.1:1"] }] }, ["r.yml"]);
    expect(yml).toContain('job_name: "a:b"');
    expect(yml).toContain('- "r.yml"');
  });
});

describe("throwaway MariaDB", () => {
  let db: MariaDb;
  beforeAll(async () => {
    db = await startMariaDb({ doublewrite: false, performanceSchema: true, bufferPoolSize: "16M" });
  });
  afterAll(async () => {
    await db?.destroy();
  });

  it("starts with the chosen options", async () => {
    const [row] = await db.query<{ dw: string; ps: number; bp: number }>(
      "SELECT @@innodb_doublewrite AS dw, @@performance_schema AS ps, @@innodb_buffer_pool_size AS bp",
    );
    expect(String(row?.dw)).toMatch(/^(0|OFF)$/);
    expect(Number(row?.ps)).toBe(1);
    expect(Number(row?.bp)).toBe(16 * 1024 * 1024);
  });

  it("runs a sysbench load and restarts with another setting", async () => {
    await prepareSysbench(db, { tables: 2, tableSize: 2000 });
    const r = await runSysbench(targetOf(db), { tables: 2, tableSize: 2000, threads: 2, time: 2 });
    expect(r.transactions).toBeGreaterThan(10);
    expect(r.tps).toBeGreaterThan(0);
    const pid = db.pid;
    await db.restart({ doublewrite: true });
    expect(db.pid).not.toBe(pid);
    const [row] = await db.query<{ dw: string }>("SELECT @@innodb_doublewrite AS dw");
    expect(String(row?.dw)).toMatch(/^(1|ON)$/);
  });
});

describe("prometheus", () => {
  it("starts, scrapes itself and answers queries", async () => {
    const prom = await startPrometheus({ jobs: [] });
    try {
      const port = new URL(prom.url).port;
      expect(Number(port)).toBeGreaterThan(0);
      const res = await prom.query("vector(42)");
      expect(res[0]?.value[1]).toBe("42");
      await expect(prom.query("rate(")).rejects.toThrow(/failed/);
    } finally {
      await prom.stop();
    }
  });
});
