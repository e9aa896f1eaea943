/**
 * The throwaway fleet the end-to-end tests run against: three real MariaDB servers, an untorn-exporter
 * each (and mysqld_exporter beside one), a real Prometheus scraping every second, and a sysbench write
 * load on two of them. Then a recording of it made with the fleet layer's recorder, for the console's
 * recorded-data mode.
 *
 * - db-on: doublewrite ON, 8 MiB buffer pool, sysbench oltp_write_only, datadir on the disk
 * - db-off: doublewrite OFF, same load, datadir on tmpfs
 * - db-idle: doublewrite ON, no load, datadir on tmpfs
 */
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { recordFleet } from "@untorn/fleet/record";
import { encodeReplay } from "@untorn/fleet/replay";
import { PromClient } from "@untorn/prom/client";
import { type RunningExporter, startMysqldExporter, startUntornExporter } from "@untorn/testkit/exporters";
import { type MariaDb, startMariaDb } from "@untorn/testkit/mariadb";
import type { ManagedProcess } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { prepareSysbench, startSysbenchLoad, targetOf } from "@untorn/testkit/sysbench";

/** Facts window of the live console and of the recording: the load runs for about this long. */
export const WINDOW = "30s";
const LOAD = { tables: 2, tableSize: 10_000, threads: 4 };
const SERVER = { bufferPoolSize: "8M", performanceSchema: true };
const LOAD_SECONDS = 32;

export const INSTANCES = ["db-idle", "db-off", "db-on"] as const;

export interface LiveStack {
  readonly prometheus: Prometheus;
  /** The recording of the stack (gzip JSON replay file). */
  readonly replayFile: string;
  /** Instances and the number of recorded evaluation times, for the report. */
  readonly recorded: { readonly instances: readonly string[]; readonly queries: number };
  stop(): Promise<void>;
}

/**
 * startMariaDb, tried up to three times: mariadb-install-db sometimes fails when the machine is
 * saturated by other servers starting at the same moment, and succeeds on a second try.
 */
async function startDb(
  opts: (attempt: number) => Parameters<typeof startMariaDb>[0],
  log: (line: string) => void,
): Promise<MariaDb> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await startMariaDb(opts(attempt));
    } catch (err) {
      if (attempt === 3) throw err;
      log(`MariaDB did not start (${(err as Error).message.split("\n")[0]}); trying again`);
      await new Promise((r) => setTimeout(r, 1000 * attempt));
    }
  }
}

async function startAll<T>(into: T[], starts: readonly Promise<T>[]): Promise<T[]> {
  const settled = await Promise.allSettled(starts);
  for (const s of settled) if (s.status === "fulfilled") into.push(s.value);
  const failed = settled.find((s) => s.status === "rejected");
  if (failed) throw (failed as PromiseRejectedResult).reason;
  return settled.map((s) => (s as PromiseFulfilledResult<T>).value);
}

export async function startLiveStack(workDir: string, log: (line: string) => void): Promise<LiveStack> {
  const shm = await mkdtemp("/dev/shm/untorn-e2e-");
  const dbs: MariaDb[] = [];
  const exporters: RunningExporter[] = [];
  const loads: ManagedProcess[] = [];
  let prometheus: Prometheus | undefined;
  const stop = async () => {
    const quietly = (p: Promise<unknown> | undefined) => p?.catch(() => undefined);
    await Promise.all(loads.map((l) => quietly(l.stop(5000))));
    await quietly(prometheus?.stop());
    await Promise.all(exporters.map((e) => quietly(e.stop())));
    await Promise.all(dbs.map((d) => quietly(d.destroy())));
    await rm(shm, { recursive: true, force: true });
  };
  try {
    log("starting 3 MariaDB servers");
    const [on, off, idle] = await startAll(dbs, [
      // A fresh datadir parent per attempt: a failed install may leave files behind.
      startDb(() => ({ ...SERVER, doublewrite: true }), log),
      startDb((n) => ({ ...SERVER, doublewrite: false, datadirParent: join(shm, `off-${n}`) }), log),
      startDb((n) => ({ ...SERVER, doublewrite: true, datadirParent: join(shm, `idle-${n}`) }), log),
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
    prometheus = await startPrometheus({
      scrapeInterval: "1s",
      jobs: [
        job("untorn-on", exOn!, "db-on"),
        job("untorn-off", exOff!, "db-off"),
        job("untorn-idle", exIdle!, "db-idle"),
        job("mysqld-off", mysqldOff!, "db-off"),
      ],
    });
    log(`prometheus on ${prometheus.url}; preparing sysbench`);
    await Promise.all([prepareSysbench(on!, LOAD), prepareSysbench(off!, LOAD)]);
    loads.push(
      startSysbenchLoad(targetOf(on!), workDir, { ...LOAD, time: 0 }),
      startSysbenchLoad(targetOf(off!), workDir, { ...LOAD, time: 0 }),
    );
    log(`write load for ${LOAD_SECONDS}s`);
    await new Promise((r) => setTimeout(r, LOAD_SECONDS * 1000));

    const client = new PromClient({ baseUrl: prometheus.url, timeoutMs: 20_000 });
    // Two scrape intervals back, so every target's last sample is in.
    const at = Math.floor(Date.now() / 1000) - 2;
    const rec = await recordFleet(client, {
      window: WINDOW,
      span: "20s",
      every: "10s",
      at,
      recordedFrom: prometheus.url,
      tool: "untorn e2e",
      note: "throwaway MariaDB fleet of the end-to-end tests",
    });
    // The specs need the CPU more than the fleet needs the load from here on (2 cores).
    await Promise.all(loads.splice(0).map((l) => l.stop(5000)));
    const replayFile = join(workDir, "recorded-fleet.json.gz");
    await writeFile(replayFile, encodeReplay(rec.file));
    log(`recorded ${rec.file.meta.instances.join(", ")} with ${rec.queries} queries`);
    return {
      prometheus,
      replayFile,
      recorded: { instances: rec.file.meta.instances, queries: rec.queries },
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}
