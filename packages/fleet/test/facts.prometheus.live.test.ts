// The facts plan against a real prometheus: synthetic untorn-exporter history with exact constant rates
// (src/testing/synthetic.ts) backfilled with promtool, so every number the PromQL computes is known.
import { rm } from "node:fs/promises";
import { PromClient } from "@untorn/prom/client";
import { makeTempDir } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { instanceCharts } from "../src/charts.js";
import { buildFleetFacts, instanceFacts } from "../src/facts.js";
import { type SyntheticInstance, syntheticFleet } from "../src/testing/synthetic.js";
import { backfill } from "../tools/backfill.js";

const END = Math.floor(Date.now() / 1000 / 60) * 60 - 120;
const START = END - 20 * 60;
const base = syntheticFleet(3, 11);
const steady: SyntheticInstance = {
  ...base[0]!,
  instance: "steady:9105",
  flavor: "mariadb",
  version: "10.11.19-MariaDB",
  doublewrite: true,
  flushedPerSecond: 800,
  transactionsPerSecond: 200,
};
const restarted: SyntheticInstance = { ...steady, instance: "restarted:9105", restartAt: END - 300 };
const gappy: SyntheticInstance = { ...steady, instance: "gappy:9105", gap: [END - 420, END - 180] };
const mysql: SyntheticInstance = { ...base[1]!, instance: "mysql:9105", flavor: "mysql", version: "8.0.35" };

let dir = "";
let prom: Prometheus | undefined;
let client: PromClient;

beforeAll(async () => {
  dir = await makeTempDir("fleet-backfill");
  const b = await backfill(
    [steady, restarted, gappy, mysql],
    { start: START, end: END, stepSeconds: 15 },
    dir,
  );
  prom = await startPrometheus({ jobs: [], storagePath: b.dir });
  client = new PromClient({ baseUrl: prom.url });
}, 120_000);

afterAll(async () => {
  await prom?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

const close = (a: number | null | undefined, b: number) => expect(a! / b).toBeCloseTo(1, 4); // counters are written with 3 decimals

describe("facts from a real prometheus", () => {
  it("computes window averages and per-step statistics of known rates", async () => {
    const r = await buildFleetFacts(client, {
      window: "10m",
      at: END,
      stats: ["avg", "p50", "p95", "p99", "max"],
    });
    expect(r.facts.map((f) => f.identity.instance)).toEqual([
      "gappy:9105",
      "mysql:9105",
      "restarted:9105",
      "steady:9105",
    ]);
    const f = r.facts.find((x) => x.identity.instance === "steady:9105")!;
    const rates = f.workload!.rates!;
    for (const s of [rates.dblwrPagesWritten!, rates.bufferPoolPagesFlushed!]) {
      close(s.avg, 800);
      close(s.p50, 800);
      close(s.p95, 800);
      close(s.p99, 800);
      close(s.max, 800);
    }
    close(rates.dblwrWrites!.avg, 800 / 120);
    close(rates.dataWrittenBytes!.avg, 1600 * 16384);
    close(rates.handlerCommits!.avg, 1000);
    close(rates.commits!.avg, 200); // Com_commit + Com_rollback (0)
    close(rates.rowsRead!.avg, 4000);
    close(rates.rowsUpdated!.avg, 400);
    close(f.workload!.device!.utilisationRatio!.avg, steady.utilisation);
    close(
      f.workload!.device!.writeSecondsPerSecond!.avg,
      (800 + 800 / 120 + 100) * steady.writeLatencySeconds,
    );
    // MariaDB: doublewrite I/O under system_tablespace; the doublewrite and redo classes are not instrumented.
    expect(Object.keys(f.workload!.fileIo!).sort()).toEqual(["data", "system_tablespace"]);
    close(f.workload!.fileIo!.system_tablespace!.writesPerSecond!.avg, 801);
    expect(f.workload!.gauges!.bufferPoolPages!.avg).toBe(steady.bufferPoolBytes / 16384);
    expect(f.workload).toMatchObject({ windowSeconds: 600, stepSeconds: 20, restarts: 0, gapRatio: 0 });
    expect(f.config).toMatchObject({
      doublewrite: "on",
      doublewriteRaw: "ON",
      pageSizeBytes: 16384,
      flushLogAtTrxCommit: 1,
      bufferPoolSizeBytes: steady.bufferPoolBytes,
      perfSchemaEnabled: true,
    });
    expect(f.storage).toMatchObject({ device: "nvme1n1", layers: [], fsType: "ext4", datadirVisible: true });
    expect(f.server).toEqual({ flavor: "mariadb", version: "10.11.19-MariaDB" });
    expect(r.skipped).toEqual([]);
    expect(r.warnings).toEqual([]);
  });

  it("sees restarts and gaps", async () => {
    const r = await buildFleetFacts(client, { window: "10m", at: END });
    const restart = r.facts.find((x) => x.identity.instance === "restarted:9105")!;
    expect(restart.workload!.restarts).toBe(1);
    const gap = r.facts.find((x) => x.identity.instance === "gappy:9105")!;
    // 4 min without samples; gaps are seen once the 1 min per-step window has no sample: about 3 of 10 min.
    expect(gap.workload!.gapRatio).toBeGreaterThan(0.2);
    expect(gap.workload!.gapRatio).toBeLessThan(0.45);
    expect(gap.workload!.restarts).toBe(0);
  });

  it("narrows to one instance with the same number of requests", async () => {
    const fleet = await buildFleetFacts(client, { window: "10m", at: END });
    const one = await instanceFacts(client, "mysql:9105", { window: "10m", at: END });
    expect(one.queries).toBe(fleet.queries);
    expect(one.instance).toEqual(fleet.facts.find((f) => f.identity.instance === "mysql:9105"));
    expect(one.instance?.config.doublewritePages).toBe(4);
    expect(Object.keys(one.instance?.workload?.fileIo ?? {}).sort()).toEqual(["data", "doublewrite"]);
  });

  it("returns chart series for one instance", async () => {
    const c = await instanceCharts(client, "steady:9105", { start: END - 600, end: END, step: 30 });
    const write = c.charts.find((x) => x.id === "write-path")!;
    expect(write.series.map((s) => s.name)).toEqual(["doublewrite pages", "data pages flushed"]);
    for (const [, v] of write.series[0]!.points) expect(v).toBeCloseTo(800, 6);
    expect(write.series[0]!.points.length).toBe(21);
    const fsync = c.charts.find((x) => x.id === "fsync-latency")!;
    expect(fsync.series.map((s) => s.name)).toEqual(["data", "system_tablespace"]);
    expect(c.queries).toBe(7);
  });
});
