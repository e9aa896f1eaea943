// End to end: three throwaway MariaDB servers, each with its own untorn-exporter (and mysqld_exporter
// beside one), scraped every second by a real prometheus; `untorn fleet` must rank the write-bound
// doublewrite-ON server first and call the idle one not write-bound, and a recording must replay to the
// same answer.
//
// - db-on: doublewrite ON, 8 MiB buffer pool, sysbench oltp_write_only at 8 threads, datadir on an
//   emulated 16 KiB-metered volume capped at WRITE_IOPS (docs/reference/iops-metering.md §11), declared with --metadata as a
//   DBA declares a cloud volume's provisioned IOPS (no probe sees a provider's cap). On the machine's own
//   disk the same load is not write-bound (a fast local SSD takes thousands of IOPS at under half
//   utilisation), so without the cap there is nothing to rank first: where the machine cannot emulate the
//   volume, db-on runs on the disk and the ranking assertion is skipped with a warning; the rest runs.
// - db-off: doublewrite OFF, same settings and load, datadir on tmpfs (also scraped by mysqld_exporter
//   under the same instance label: the catalog's untorn-first fallbacks must not double it)
// - db-idle: doublewrite ON, no load, datadir on tmpfs
// In a fleet every server has its own disk; here db-on's exporter follows its datadir to the loop device,
// whose counters are db-on's writes alone (or, unthrottled, the machine's disk: its writes plus the
// machine's background), not db-off's.
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { type RunningExporter, startMysqldExporter, startUntornExporter } from "@untorn/testkit/exporters";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import type { ManagedProcess } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { prepareSysbench, startSysbenchLoad, targetOf } from "@untorn/testkit/sysbench";
import { createThrottledVolume, type ThrottledVolume, throttleAvailable } from "@untorn/testkit/throttle";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { EXIT } from "../src/errors.js";
import { run } from "../src/program.js";
import { bufferIo } from "../src/testing/buffer-io.js";

const LOAD = { tables: 4, tableSize: 20_000, threads: 8 };
const SERVER = { bufferPoolSize: "8M", performanceSchema: true };
const LOAD_SECONDS = 34;
/** Low enough that 8 writing threads queue on it, as the lab fleet's 300-IOPS volumes do (lab/src/fleet.ts). */
const WRITE_IOPS = 200;

const unthrottled = await throttleAvailable();
if (unthrottled)
  console.warn(
    `SKIPPING the fleet ranking assertion: cannot emulate an IOPS-limited volume here (${unthrottled}); db-on runs on the disk`,
  );

let dir = "";
let shm = "";
const dbs: MariaDb[] = [];
const exporters: RunningExporter[] = [];
const loads: ManagedProcess[] = [];
let prom: Prometheus | undefined;
let volume: ThrottledVolume | undefined;
let at = 0;

/** Awaits every start, keeps what started (so afterAll stops it) and rethrows the first failure. */
async function startAll<T>(into: T[], starts: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starts);
  for (const s of settled) if (s.status === "fulfilled") into.push(s.value);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), "untorn-fleet-it-"));
  shm = await mkdtemp("/dev/shm/untorn-fleet-it-");
  // Uncapped while sysbench prepares; capped once the load starts.
  if (!unthrottled) volume = await createThrottledVolume({ writeIops: 0, meterKiB: 16, sizeMiB: 1024 });
  const onVolume = volume ? { datadirParent: volume.mountPoint, spawnPrefix: volume.spawnPrefix } : {};
  const [on, off, idle] = await startAll(dbs, [
    startMariaDb({ ...SERVER, doublewrite: true, ...onVolume }),
    startMariaDb({ ...SERVER, doublewrite: false, datadirParent: join(shm, "off") }),
    startMariaDb({ ...SERVER, doublewrite: true, datadirParent: join(shm, "idle") }),
  ]);
  const [exOn, exOff, exIdle, mysqldOff] = await startAll(exporters, [
    startUntornExporter({ db: on! }),
    startUntornExporter({ db: off! }),
    startUntornExporter({ db: idle! }),
    startMysqldExporter(off!),
  ]);
  const job = (name: string, ex: RunningExporter, instance: string) => ({
    jobName: name,
    targets: [ex.address],
    labels: { instance },
  });
  prom = await startPrometheus({
    scrapeInterval: "1s",
    jobs: [
      job("untorn-on", exOn!, "db-on"),
      job("untorn-off", exOff!, "db-off"),
      job("untorn-idle", exIdle!, "db-idle"),
      job("mysqld-off", mysqldOff!, "db-off"),
    ],
  });
  await Promise.all([prepareSysbench(on!, LOAD), prepareSysbench(off!, LOAD)]);
  await volume?.setLimits({ writeIops: WRITE_IOPS });
  loads.push(
    startSysbenchLoad(targetOf(on!), dir, { ...LOAD, time: 0 }),
    startSysbenchLoad(targetOf(off!), dir, { ...LOAD, time: 0 }),
  );
  await new Promise((r) => setTimeout(r, LOAD_SECONDS * 1000));
  // Two scrape intervals back, so every target's last sample is in.
  at = Math.floor(Date.now() / 1000) - 2;
}, 120_000);

afterAll(async () => {
  const quietly = (p: Promise<unknown> | undefined) => p?.catch(() => undefined);
  await Promise.all(loads.map((l) => quietly(l.stop(5000))));
  await quietly(prom?.stop());
  await Promise.all(exporters.map((e) => quietly(e.stop())));
  await Promise.all(dbs.map((d) => quietly(d.destroy())));
  await quietly(volume?.destroy());
  await rm(dir, { recursive: true, force: true });
  await rm(shm, { recursive: true, force: true });
}, 60_000);

interface Row {
  rank: number;
  instance: string;
  verdict: string;
  amplification: number | null;
  score: number;
}

async function fleetJson(extra: string[] = []) {
  const io = bufferIo({ PROMETHEUS_URL: prom!.url });
  const code = await run(["fleet", "--json", "--window", "30s", "--at", String(at), ...extra], io);
  expect(code, io.stderr()).toBe(EXIT.ok);
  return JSON.parse(io.stdout());
}

describe("untorn fleet against real servers", () => {
  it.skipIf(unthrottled)("ranks the doublewrite-ON server on the capped volume first", async () => {
    const metadata = join(dir, "metadata.json");
    const volume = { limits: { writeIops: WRITE_IOPS, ioUnitBytes: 16384 } };
    await writeFile(metadata, JSON.stringify({ instances: { "db-on": { storageFacts: volume } } }));
    const j = await fleetJson(["--metadata", metadata]);
    const rows = j.rows as Row[];
    const dump = JSON.stringify(rows, null, 1);
    expect(j.declared, dump).toEqual({ "db-on": ["storage.limits.writeIops", "storage.limits.ioUnitBytes"] });
    expect(rows[0]!.instance, dump).toBe("db-on");
    expect(["write-bound", "likely"], dump).toContain(rows[0]!.verdict);
    expect(rows[0]!.score, dump).toBeGreaterThan(0);

    // The verdict rests on the volume running at its cap: the loop device's own write counters.
    const one = bufferIo({ PROMETHEUS_URL: prom!.url });
    const argv = ["instance", "db-on", "--json", "--window", "30s", "--at", String(at)];
    expect(await run([...argv, "--metadata", metadata], one), one.stderr()).toBe(EXIT.ok);
    const evidence = JSON.parse(one.stdout()).advice.verdict.evidence as { signal: string; state: string }[];
    const iops = evidence.find((e) => e.signal === "iops-limit")!;
    expect(["strong", "partial"], JSON.stringify(iops)).toContain(iops.state);
  });

  it("profiles every server, calls the idle one not write-bound and the OFF one at risk", async () => {
    const j = await fleetJson();
    const rows = j.rows as Row[];
    const byName = Object.fromEntries(rows.map((r) => [r.instance, r]));
    expect(rows.map((r) => r.instance).sort()).toEqual(["db-idle", "db-off", "db-on"]);
    expect(byName["db-idle"]!.verdict).toBe("not-write-bound");
    // Every flushed page goes through the doublewrite buffer on db-on, none on db-off. Two counters'
    // rates over a 30 s window on a loaded machine read 0.77 once (each counter's last scrape falls at
    // another moment of a bursty flush), hence the band; db-off's 0 is exact.
    expect(byName["db-on"]!.amplification).toBeGreaterThan(0.6);
    expect(byName["db-on"]!.amplification).toBeLessThan(1.4);
    expect(byName["db-off"]!.amplification).toBe(0);
    expect(j.atRisk.map((r: { instance: string }) => r.instance)).toEqual(["db-off"]);
    expect(j.exporters["db-off"]).toEqual({ untorn: true, mysqldExporter: true });
    expect(j.exporters["db-on"]).toEqual({ untorn: true, mysqldExporter: false });
    expect(j.skipped).toEqual([]);

    // One instance costs as many requests as the fleet.
    const one = bufferIo({ PROMETHEUS_URL: prom!.url });
    expect(await run(["instance", "db-on", "--json", "--window", "30s", "--at", String(at)], one)).toBe(
      EXIT.ok,
    );
    const inst = JSON.parse(one.stdout());
    expect(inst.queries).toBe(j.queries);
    expect(inst.facts.config).toMatchObject({
      doublewrite: "on",
      pageSizeBytes: 16384,
      bufferPoolSizeBytes: 8 << 20,
    });
    expect(inst.facts.workload.rates.dblwrPagesWritten.avg).toBeGreaterThan(10);
    expect(Object.keys(inst.facts.workload.fileIo)).toContain("system_tablespace");
  });

  it("records the fleet and replays the same ranking", async () => {
    const out = join(dir, "fleet.replay.json.gz");
    const rec = bufferIo({ PROMETHEUS_URL: prom!.url });
    const argv = [
      "record",
      "--out",
      out,
      "--span",
      "10s",
      "--every",
      "5s",
      "--window",
      "30s",
      "--at",
      String(at),
    ];
    expect(await run(argv, rec), rec.stderr()).toBe(EXIT.ok);
    expect(rec.stdout()).toMatch(/3 instances, 3 evaluation times/);

    const live = bufferIo({ PROMETHEUS_URL: prom!.url });
    await run(["fleet", "--json", "--window", "30s", "--at", String(at)], live);
    const replayed = bufferIo();
    expect(await run(["fleet", "--json", "--replay", out], replayed)).toBe(EXIT.ok);
    expect(JSON.parse(replayed.stdout()).rows).toEqual(JSON.parse(live.stdout()).rows);
    const text = bufferIo();
    expect(await run(["--replay", out, "instance", "db-idle"], text)).toBe(EXIT.ok);
    expect(text.stdout()).toMatch(/^RECORDED DATA/);
    expect(text.stdout()).toMatch(/^Verdict: not-write-bound/m);
  });
});
