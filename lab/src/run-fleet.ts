/**
 * Records the demo fleet (the README's embedded default): throwaway MariaDB servers with different
 * doublewrite, buffer pool, flush and performance_schema settings, some on emulated IOPS-limited volumes
 * (docs/reference/iops-metering.md §11), each under its own sysbench load with its own untorn-exporter, scraped every 15 s by one
 * real Prometheus with the catalog's recording rules; then `untorn record` into lab/recordings/, a check
 * of the result, and everything stopped again (also on Ctrl-C or failure).
 *
 *   node --conditions=@untorn/source --import tsx lab/src/run-fleet.ts [--load-minutes 20] [--only a,b]
 *
 * The replicated cluster (lab/src/shop.ts) runs beside the standalone servers, and the rollouts recorded
 * on it run during the load; their stored state is written beside the replay (*.rollouts.json).
 *
 * Needs root for the volumes (loop devices, mounts, cgroup v1 blkio); without them the throttled
 * instances are skipped and the rest run on the host's disk.
 */
import { mkdir, readFile, stat, writeFile } from "node:fs/promises";
import { basename, join, relative, resolve } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { run as untorn } from "@untorn/cli/program";
import { sidecarMetadataPath } from "@untorn/fleet/metadata";
import { profileFleet } from "@untorn/fleet/profile";
import { decodeReplayApi, replayFactsOptions } from "@untorn/fleet/replay";
import { type RecordedRolloutsFile, sidecarRolloutsPath } from "@untorn/rollout-runner/recorded";
import {
  type RunningExporter,
  startMysqldExporter,
  startUntornExporter,
  untornExporterMain,
} from "@untorn/testkit/exporters";
import { type MariaDb, type MariaDbOptions, startMariaDb } from "@untorn/testkit/mariadb";
import {
  type ManagedProcess,
  makeTempDir,
  removeDir,
  repoRoot,
  requireBinary,
  spawnManaged,
  waitFor,
} from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { parseSysbenchOutput, prepareSysbench, type SysbenchResult } from "@untorn/testkit/sysbench";
import {
  createThrottledVolume,
  type ThrottledVolume,
  throttleAvailable,
  zramAvailable,
} from "@untorn/testkit/throttle";
import { checkFleet, checkRollouts } from "./expectations.js";
import {
  declaredMetadata,
  describeSpec,
  FLEET,
  type InstanceSpec,
  type LoadSpec,
  sysbenchArgs,
  TABLES,
  UNCAPPED_METER_KIB,
} from "./fleet.js";
import { Scope } from "./scope.js";
import { type RolloutRun, runShopRollouts, type Shop, startShop } from "./shop.js";

const LAB = resolve(fileURLToPath(new URL("..", import.meta.url)));
const DEFAULT_OUT = join(LAB, "recordings", "mariadb-10.11-fleet.json.gz");

/** Cleanup order: loads first, volumes last (a volume unmounts only once its server is gone). */
const LAYER = { volume: 0, db: 1, exporter: 2, prometheus: 3, load: 4 } as const;

const { values: args } = parseArgs({
  options: {
    "load-minutes": { type: "string", default: "20" },
    window: { type: "string", default: "15m" },
    span: { type: "string", default: "15m" },
    every: { type: "string", default: "5m" },
    out: { type: "string", default: DEFAULT_OUT },
    only: { type: "string" },
    concurrency: { type: "string", default: "3" },
    help: { type: "boolean", default: false },
  },
});

if (args.help) {
  process.stdout.write(
    [
      "usage: run-fleet [--load-minutes 20] [--window 15m] [--span 15m] [--every 5m] [--out file.json.gz]",
      "                 [--only name,name] [--concurrency 3]",
      "Starts the lab fleet (lab/src/fleet.ts), loads it, records it with `untorn record`, stops it.",
      "",
    ].join("\n"),
  );
  process.exit(0);
}

const seconds = (d: string, flag: string): number => {
  const m = /^(\d+)([smh])$/.exec(d);
  if (!m) throw new Error(`${flag} ${d}: expected a duration like 15m`);
  return Number(m[1]) * { s: 1, m: 60, h: 3600 }[m[2] as "s" | "m" | "h"];
};

const t0 = Date.now();
const log = (line: string) => {
  const s = Math.round((Date.now() - t0) / 1000);
  process.stdout.write(
    `[${String(Math.floor(s / 60)).padStart(2, "0")}:${String(s % 60).padStart(2, "0")}] ${line}\n`,
  );
};

const controller = new AbortController();
const { signal } = controller;
let interrupts = 0;
const onSignal = (name: NodeJS.Signals) => {
  interrupts++;
  if (interrupts === 1) {
    log(`${name}: stopping everything (press Ctrl-C again to exit without a clean shutdown)`);
    controller.abort(new Error(`interrupted by ${name}`));
    return;
  }
  // testkit's exit hooks still SIGKILL the processes and lazily unmount and detach the volumes.
  log("exiting without a clean shutdown");
  process.exit(130);
};
for (const s of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.on(s, onSignal);

/** Rejects as soon as the run is interrupted; the promise itself is left to fail when things stop. */
function abortable<T>(p: Promise<T>): Promise<T> {
  signal.throwIfAborted();
  return new Promise<T>((res, rej) => {
    const onAbort = () => rej(signal.reason);
    signal.addEventListener("abort", onAbort, { once: true });
    p.then(res, rej).finally(() => signal.removeEventListener("abort", onAbort));
  });
}

/** At most `limit` in flight; after a failure or an interrupt no new item starts; the first error is thrown. */
async function pool<T, R>(items: readonly T[], limit: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  let next = 0;
  let failed = false;
  const worker = async () => {
    while (next < items.length && !failed && !signal.aborted) {
      const i = next++;
      try {
        out[i] = await fn(items[i]!);
      } catch (err) {
        failed = true;
        throw err;
      }
    }
  };
  const settled = await Promise.allSettled(Array.from({ length: limit }, worker));
  signal.throwIfAborted();
  const bad = settled.find((s) => s.status === "rejected");
  if (bad) throw (bad as PromiseRejectedResult).reason;
  return out;
}

interface Member {
  readonly spec: InstanceSpec;
  readonly db: MariaDb;
  readonly volume: ThrottledVolume | undefined;
  exporter?: RunningExporter;
  mysqldExporter?: RunningExporter;
  readonly loads: { load: LoadSpec; proc: ManagedProcess }[];
}

const scope = new Scope();

let volumeQueue: Promise<unknown> = Promise.resolve();
/**
 * testkit names a volume's cgroup after the PID and Date.now(): two volumes created in the same
 * millisecond collide (EEXIST), so volumes are created one at a time, a few milliseconds apart.
 */
function oneAtATime<T>(create: () => Promise<T>): Promise<T> {
  const next = volumeQueue.then(async () => {
    try {
      return await create();
    } finally {
      await sleep(5);
    }
  });
  volumeQueue = next.catch(() => undefined);
  return next;
}

async function setUp(spec: InstanceSpec, withVolume: boolean): Promise<Member> {
  const volume = withVolume
    ? await scope.use(
        LAYER.volume,
        `volume of ${spec.name}`,
        // Created uncapped: the cap goes on after sysbench prepare (bulk inserts would crawl under it).
        () =>
          oneAtATime(() =>
            createThrottledVolume({
              writeIops: 0,
              meterKiB: spec.throttle?.meterKiB ?? UNCAPPED_METER_KIB,
              sizeMiB: 1024,
            }),
          ),
        (v) => v.destroy(),
      )
    : undefined;
  signal.throwIfAborted();
  // A tmpdir of its own: with the shared /tmp, concurrent mariadb-install-db runs failed now and then
  // ("Error on delete of '/tmp/#sql-temptable-...MAI'", "Unknown table 'mysql.tmp_proxies_priv'").
  const tmpdir = volume
    ? join(volume.mountPoint, "tmp")
    : await scope.use(LAYER.volume, `tmpdir of ${spec.name}`, () => makeTempDir("lab-tmpdir"), removeDir);
  await mkdir(tmpdir, { recursive: true });
  const options: MariaDbOptions = {
    doublewrite: spec.doublewrite,
    bufferPoolSize: spec.bufferPoolSize,
    flushLogAtTrxCommit: spec.flushLogAtTrxCommit,
    performanceSchema: spec.performanceSchema,
    extra: { tmpdir },
    ...(volume ? { datadirParent: volume.mountPoint, spawnPrefix: volume.spawnPrefix } : {}),
  };
  const db = await scope.use(
    LAYER.db,
    spec.name,
    async () => {
      try {
        return await startMariaDb(options);
      } catch (err) {
        // mariadb-install-db's log goes to the temp dir testkit removes on failure, so only the first line
        // is known here. One retry on a clean datadir costs seconds; a lost run costs 20 minutes.
        log(`${spec.name}: ${(err as Error).message.split("\n")[0]}; retrying once`);
        if (volume) await removeDir(join(volume.mountPoint, "data"));
        return await startMariaDb(options);
      }
    },
    async (d) => {
      // Shutdown flushes the buffer pool: not through a 300 IOPS cap.
      if (volume?.limits.writeIops) await volume.setLimits({ writeIops: 0 });
      await d.destroy();
    },
  );
  signal.throwIfAborted();
  await prepareSysbench(db, spec.tables ?? TABLES);
  log(`${spec.name}: up (${volume ? `${volume.device}, ` : ""}${describeSpec(spec)})`);
  return { spec, db, volume, loads: [] };
}

function startLoad(m: Member, load: LoadSpec, index: number, runSeconds: number, logDir: string) {
  const sysbench = requireBinary("sysbench", "sysbench");
  const argv = [
    ...sysbenchArgs(load, runSeconds, m.spec.tables),
    "--db-driver=mysql",
    `--mysql-socket=${m.db.socket}`,
    `--mysql-user=${m.db.user}`,
    "--mysql-db=sbtest",
    "--db-ps-mode=disable",
    "--mysql-ignore-errors=1213,1205,1020",
    "run",
  ];
  const proc = spawnManaged(sysbench, argv, {
    logFile: join(logDir, `${m.spec.name}-${index}-${load.test}.log`),
  });
  scope.add(LAYER.load, `sysbench on ${m.spec.name}`, () => proc.stop(5000));
  m.loads.push({ load, proc });
}

async function waitForTargets(prom: Prometheus, expected: number): Promise<void> {
  await waitFor(
    `${expected} Prometheus targets up`,
    async () => {
      signal.throwIfAborted();
      const res = await fetch(`${prom.url}/api/v1/targets?state=active`);
      const body = (await res.json()) as { data: { activeTargets: { health: string }[] } };
      return body.data.activeTargets.filter((t) => t.health === "up").length === expected;
    },
    { timeoutMs: 90_000, intervalMs: 1000 },
  );
}

/** sysbench logs; kept when the run fails. */
let logDir = "";

async function main(): Promise<number> {
  const { loadSeconds, windowSeconds, spanSeconds } = durations();
  const out = resolve(args.out);
  const rules = await checkPrerequisites();
  const { specs, noVolumes } = await chooseSpecs();
  log(`starting ${specs.length} MariaDB servers, ${args.concurrency} at a time`);

  logDir = await makeTempDir("lab-fleet");
  const { members, shop } = await startServers(specs, noVolumes);
  const version = String(
    (await members[0]!.db.query<{ v: string }>("SELECT VERSION() AS v"))[0]?.v ?? "unknown",
  ).replace(/-.*$/, "");
  await capVolumes(members, shop);
  await startExporters(members);
  const prom = await startScraping(members, rules);

  const { results, rollouts, end } = await runLoads(members, specs, shop, prom, loadSeconds);
  await recordFleet({ prom, out, members, version, shop, loadSeconds, end });
  if (spanSeconds + windowSeconds > loadSeconds + 60)
    log("note: the first evaluation times' windows start before the load did (their facts have gaps)");

  const { declared, sidecar, exported } = await writeSidecars(out, members, shop, rollouts);
  const { problems, profile } = await checkRecording({ out, sidecar, declared, members, shop, exported });
  printTable(members, results, profile);
  if (problems.length) {
    log(`the recording does not look as designed (lab/src/expectations.ts):\n  ${problems.join("\n  ")}`);
    return 1;
  }
  log("the recording looks as designed (lab/src/expectations.ts)");
  return 0;
}

/** The load, window and span of the run, in seconds, from the command line. */
function durations(): { loadSeconds: number; windowSeconds: number; spanSeconds: number } {
  const loadSeconds = Math.round(Number(args["load-minutes"]) * 60);
  const windowSeconds = seconds(args.window, "--window");
  const spanSeconds = seconds(args.span, "--span");
  seconds(args.every, "--every");
  if (!(loadSeconds > 0)) throw new Error(`--load-minutes ${args["load-minutes"]}: expected minutes > 0`);
  if (loadSeconds < windowSeconds + 60)
    log(`note: the load (${loadSeconds} s) is shorter than the window plus a minute of warm-up`);
  return { loadSeconds, windowSeconds, spanSeconds };
}

/** Fails before starting anything when a piece is missing; answers the recording rules' file. */
async function checkPrerequisites(): Promise<string> {
  untornExporterMain();
  for (const [bin, pkg] of [
    ["mariadbd", "mariadb-server"],
    ["sysbench", "sysbench"],
    ["prometheus", "prometheus"],
    ["prometheus-mysqld-exporter", "prometheus-mysqld-exporter"],
  ] as const)
    requireBinary(bin, pkg);
  const rules = join(repoRoot(), "dashboards", "generated", "prometheus", "untorn-recording-rules.yml");
  await stat(rules);
  return rules;
}

/**
 * The instances this run starts: --only's, without the ones this machine cannot give a volume
 * (`noVolumes` says why there are none).
 */
async function chooseSpecs(): Promise<{ specs: readonly InstanceSpec[]; noVolumes: string | undefined }> {
  let specs = FLEET;
  if (args.only) {
    const only = new Set(args.only.split(","));
    specs = FLEET.filter((s) => only.has(s.name));
    const unknown = [...only].filter((n) => !FLEET.some((s) => s.name === n));
    if (unknown.length) throw new Error(`--only: no such instance ${unknown.join(", ")}`);
  }
  const noVolumes = await throttleAvailable();
  const noZram = noVolumes ?? (await zramAvailable());
  if (!noVolumes && noZram && specs.some((s) => s.throttle?.backing === "zram")) {
    const skipped = specs.filter((s) => s.replication);
    log(`SKIPPING the replicated cluster and its rollouts (${skipped.map((s) => s.name).join(", ")}):`);
    log(`  no zram volume for the replicas whose storage is declared atomic: ${noZram}`);
    specs = specs.filter((s) => !s.replication);
  }
  if (noVolumes) {
    const skipped = specs.filter((s) => s.throttle);
    log(`SKIPPING ${skipped.length} IOPS-limited instances (${skipped.map((s) => s.name).join(", ")}):`);
    log(`  cannot emulate an IOPS-limited volume here: ${noVolumes}`);
    log("  the other instances run with their datadirs on the host's disk and share its device counters");
    specs = specs.filter((s) => !s.throttle);
  } else {
    log("every instance gets a loop-device volume of its own (uncapped unless it is IOPS-limited)");
  }
  return { specs, noVolumes };
}

/** The standalone servers and, beside them, the replicated cluster: every member, the cluster's last. */
async function startServers(
  specs: readonly InstanceSpec[],
  noVolumes: string | undefined,
): Promise<{ members: Member[]; shop: Shop | undefined }> {
  const standalone = specs.filter((s) => !s.replication);
  const clustered = specs.filter((s) => s.replication);
  if (clustered.length && clustered.length !== 3)
    throw new Error(
      "--only: the replicated cluster runs whole (its primary and both replicas) or not at all",
    );
  let shop: Shop | undefined;
  const [members] = await Promise.all([
    pool(standalone, Number(args.concurrency), (s) => setUp(s, !noVolumes)),
    clustered.length
      ? startShop(clustered, scope, LAYER, log, (o) => oneAtATime(() => createThrottledVolume(o))).then(
          (x) => {
            shop = x;
          },
        )
      : Promise.resolve(),
  ]);
  if (shop)
    members.push(...shop.members.map((m) => ({ spec: m.spec, db: m.db, volume: m.volume, loads: [] })));
  return { members, shop };
}

/** Puts the write-IOPS caps on, after sysbench prepare (bulk inserts would crawl under them). */
async function capVolumes(members: readonly Member[], shop: Shop | undefined): Promise<void> {
  for (const m of members)
    if (m.spec.throttle && !m.spec.replication)
      await m.volume!.setLimits({ writeIops: m.spec.throttle.writeIops });
  await shop?.capReplicas();
}

/** An untorn-exporter beside every server, and a mysqld_exporter where the spec asks for one. */
async function startExporters(members: Member[]): Promise<void> {
  await pool(members, 4, async (m) => {
    m.exporter = await scope.use(
      LAYER.exporter,
      `untorn-exporter of ${m.spec.name}`,
      () => startUntornExporter({ db: m.db }),
      (e) => e.stop(),
    );
    if (m.spec.mysqldExporter)
      m.mysqldExporter = await scope.use(
        LAYER.exporter,
        `mysqld_exporter of ${m.spec.name}`,
        () => startMysqldExporter(m.db, m.spec.performanceSchema ? ["perf_schema.file_events"] : []),
        (e) => e.stop(),
      );
  });
}

/** One Prometheus scraping every exporter every 15 s with the recording rules, once every target is up. */
async function startScraping(members: readonly Member[], rules: string): Promise<Prometheus> {
  const jobs = members.flatMap((m) => {
    const labels = { instance: m.spec.name, cluster: m.spec.cluster };
    return [
      { jobName: `untorn-${m.spec.name}`, targets: [m.exporter!.address], labels },
      ...(m.mysqldExporter
        ? [{ jobName: `mysqld-${m.spec.name}`, targets: [m.mysqldExporter.address], labels }]
        : []),
    ];
  });
  const prom = await scope.use(
    LAYER.prometheus,
    "prometheus",
    () => startPrometheus({ scrapeInterval: "15s", evaluationInterval: "15s", ruleFiles: [rules], jobs }),
    (p) => p.stop(),
  );
  log(`prometheus ${prom.url}: ${jobs.length} scrape jobs every 15 s, recording rules loaded`);
  await waitForTargets(prom, jobs.length);
  log("every target is up");
  return prom;
}

type LoadProc = { name: string; load: LoadSpec; proc: ManagedProcess };

/**
 * The sysbench loads for `loadSeconds` and, during them, the recorded rollouts; a load that exits
 * early or a failed rollout fails the run. Answers each instance's sysbench results, the rollouts and
 * when the loads ended (Unix seconds).
 */
async function runLoads(
  members: Member[],
  specs: readonly InstanceSpec[],
  shop: Shop | undefined,
  prom: Prometheus,
  loadSeconds: number,
): Promise<{
  results: Map<string, (SysbenchResult | null)[]>;
  rollouts: RolloutRun | undefined;
  end: number;
}> {
  const loadStart = Date.now() / 1000;
  for (const m of members)
    for (const [i, l] of m.spec.loads.entries()) startLoad(m, l, i, loadSeconds, logDir);
  const procs = members.flatMap((m) => m.loads.map((l) => ({ name: m.spec.name, ...l })));
  log(`${procs.length} sysbench loads started for ${loadSeconds / 60} min`);

  // The recorded rollouts run during the load, on the recording's own Prometheus and clock.
  const rolloutsDone = startRollouts(shop, specs, prom, loadStart, loadSeconds);
  rolloutsDone.catch(() => undefined);
  const end = loadStart + loadSeconds;
  await waitOutLoads(procs, loadStart, loadSeconds, rolloutsDone);
  const rollouts = await abortable(rolloutsDone);
  await abortable(Promise.race([Promise.all(procs.map((p) => p.proc.exited)), sleep(90_000)]));
  await Promise.all(procs.map((p) => p.proc.stop(5000)));
  return { results: await sysbenchResults(procs), rollouts, end };
}

/** The recorded rollouts on the cluster, when it runs; their store is closed with the loads. */
function startRollouts(
  shop: Shop | undefined,
  specs: readonly InstanceSpec[],
  prom: Prometheus,
  loadStart: number,
  loadSeconds: number,
): Promise<RolloutRun | undefined> {
  if (!shop) return Promise.resolve(undefined);
  return runShopRollouts({
    shop,
    specs,
    prometheusUrl: prom.url,
    loadStart,
    deadline: loadStart + loadSeconds - 30,
    log,
    signal,
  }).then((r) => {
    scope.add(LAYER.load, "the rollouts' store", () => r.close());
    return r;
  });
}

/** Sleeps until the loads' end, logging progress every minute; throws when a load or the rollouts fail. */
async function waitOutLoads(
  procs: readonly LoadProc[],
  loadStart: number,
  loadSeconds: number,
  rolloutsDone: Promise<unknown>,
): Promise<void> {
  // A load that dies early would make the recording lie about its instance: stop the run instead.
  const early = Promise.race(
    procs.map(async (p) => {
      const code = await p.proc.exited;
      if (Date.now() / 1000 < loadStart + loadSeconds - 15)
        throw new Error(`sysbench on ${p.name} exited early (${code}):\n${p.proc.tail(15)}`);
      return new Promise<never>(() => undefined);
    }),
  );
  early.catch(() => undefined);
  const end = loadStart + loadSeconds;
  // A failed rollout fails the run: a recording without its rollouts is not the one designed.
  const rolloutFailed = rolloutsDone.then(() => new Promise<never>(() => undefined));
  rolloutFailed.catch(() => undefined);
  while (Date.now() / 1000 < end) {
    const left = end - Date.now() / 1000;
    await abortable(Promise.race([sleep(Math.min(60, left) * 1000), early, rolloutFailed]));
    const running = procs.filter((p) => p.proc.child.exitCode === null && p.proc.child.signalCode === null);
    log(
      `load ${Math.round((Date.now() / 1000 - loadStart) / 60)}/${loadSeconds / 60} min, ${running.length} sysbench running`,
    );
  }
}

/** Each instance's sysbench summaries, in the order of its loads (null where a log has none). */
async function sysbenchResults(procs: readonly LoadProc[]): Promise<Map<string, (SysbenchResult | null)[]>> {
  const results = new Map<string, (SysbenchResult | null)[]>();
  for (const p of procs) {
    const text = await readFile(p.proc.logFile, "utf8").catch(() => "");
    let r: SysbenchResult | null = null;
    try {
      r = parseSysbenchOutput(text);
    } catch {
      log(`${p.name}: no sysbench summary in ${p.proc.logFile}`);
    }
    results.set(p.name, [...(results.get(p.name) ?? []), r]);
  }
  return results;
}

/** `untorn record` of the window that ends with the loads, once Prometheus has it all. */
async function recordFleet(run: {
  prom: Prometheus;
  out: string;
  members: readonly Member[];
  version: string;
  shop: Shop | undefined;
  loadSeconds: number;
  end: number;
}): Promise<void> {
  const { prom, out, members, version, shop, loadSeconds, end } = run;
  // The window ends when the loads did; two scrape intervals and a rule evaluation later it is all in.
  const at = Math.floor(end);
  const wait = at + 35 - Date.now() / 1000;
  if (wait > 0) await abortable(sleep(wait * 1000));
  const note =
    `${members.length} MariaDB ${version} servers on one 2-core VM under sysbench oltp_write_only / ` +
    `oltp_read_only for ${loadSeconds / 60} min, scraped every 15 s` +
    (shop ? ", a primary with two GTID replicas among them and two rollouts run on it" : "") +
    "; settings per instance in lab/src/fleet.ts and lab/README.md";
  log(`untorn record --window ${args.window} --span ${args.span} --every ${args.every} --at ${at}`);
  const recordStart = Date.now();
  const code = await abortable(
    untorn([
      "record",
      "--prometheus",
      prom.url,
      "--out",
      out,
      "--window",
      args.window,
      "--span",
      args.span,
      "--every",
      args.every,
      "--at",
      String(at),
      "--note",
      note,
    ]),
  );
  if (code !== 0) throw new Error(`untorn record exited ${code}`);
  log(`recorded in ${Math.round((Date.now() - recordStart) / 1000)} s`);
}

/**
 * Writes beside the recording, where the web app picks them up, what the lab knows and no probe sees
 * (cluster, volume caps) and the rollouts' stored state.
 */
async function writeSidecars(
  out: string,
  members: readonly Member[],
  shop: Shop | undefined,
  rollouts: RolloutRun | undefined,
): Promise<{
  declared: ReturnType<typeof declaredMetadata>;
  sidecar: string;
  exported: RecordedRolloutsFile | undefined;
}> {
  const declared = declaredMetadata(members.map((m) => m.spec));
  const sidecar = sidecarMetadataPath(out);
  await writeFile(sidecar, `${JSON.stringify(declared, null, 2)}\n`);
  log(`${relative(process.cwd(), sidecar)}: declared facts for ${members.length} instances`);

  const rolloutsFile = sidecarRolloutsPath(out);
  let exported: RecordedRolloutsFile | undefined;
  if (rollouts) {
    exported = await rollouts.exported(
      basename(out),
      `Rollouts run by the lab on ${shop!.members.map((m) => m.spec.name).join(", ")} during the recording (lab/src/shop.ts)`,
    );
    await writeFile(rolloutsFile, `${JSON.stringify(exported, null, 2)}\n`);
    log(
      `${relative(process.cwd(), rolloutsFile)}: ${exported.rollouts.map((r) => `${r.name}: ${r.state}`).join("; ")}`,
    );
  }
  return { declared, sidecar, exported };
}

type FleetProfile = Awaited<ReturnType<typeof profileFleet>>;

/**
 * `untorn fleet` over the replay, then the replay profiled and checked against what the lab designed
 * (lab/src/expectations.ts): the problems found, and the profile.
 */
async function checkRecording(run: {
  out: string;
  sidecar: string;
  declared: ReturnType<typeof declaredMetadata>;
  members: readonly Member[];
  shop: Shop | undefined;
  exported: RecordedRolloutsFile | undefined;
}): Promise<{ problems: string[]; profile: FleetProfile }> {
  const { out, sidecar, declared, members, shop, exported } = run;
  log(`untorn --replay ${relative(process.cwd(), out)} fleet --metadata ${relative(process.cwd(), sidecar)}`);
  const fleetCode = await untorn(["--replay", out, "fleet", "--metadata", sidecar]);
  if (fleetCode !== 0) throw new Error(`untorn fleet --replay exited ${fleetCode}`);

  const replay = decodeReplayApi(await readFile(out));
  const profile = await profileFleet(
    replay,
    replayFactsOptions(replay.meta),
    new Map(Object.entries(declared.instances)),
  );
  const problems = checkFleet(
    profile,
    members.map((m) => m.spec),
  );
  if (shop && !exported) problems.push("the replicated cluster ran but its rollouts were not recorded");
  if (exported)
    problems.push(
      ...checkRollouts(
        exported,
        replay.meta,
        members.map((m) => m.spec),
      ),
    );
  const size = (await stat(out)).size;
  log(`${out}: ${(size / 1024).toFixed(0)} KiB, ${replay.meta.instances.length} instances`);
  return { problems, profile };
}

/** Per instance: its settings, its sysbench tps and the verdict the recording gives it. */
function printTable(
  members: readonly Member[],
  results: ReadonlyMap<string, (SysbenchResult | null)[]>,
  profile: FleetProfile,
): void {
  const rows = new Map(profile.rows.map((r) => [r.instance, r]));
  const lines = [
    "| instance | cluster | settings | sysbench tps | verdict |",
    "|---|---|---|---|---|",
    ...members.map((m) => {
      const tps = (results.get(m.spec.name) ?? [])
        .map((r, i) => `${m.spec.loads[i]!.test.replace("oltp_", "")} ${r ? r.tps.toFixed(1) : "?"}`)
        .join(", ");
      const r = rows.get(m.spec.name);
      return `| ${m.spec.name} | ${m.spec.cluster} | ${describeSpec(m.spec)} | ${tps || "-"} | ${r ? `${r.verdict} (#${r.rank})` : "missing"} |`;
    }),
  ];
  process.stdout.write(`\n${lines.join("\n")}\n\n`);
}

let exitCode = 1;
try {
  exitCode = await main();
} catch (err) {
  if (signal.aborted) exitCode = 130;
  else log(`FAILED: ${(err as Error).stack ?? String(err)}`);
} finally {
  log("stopping loads, Prometheus, exporters and servers; removing volumes");
  const errors = await scope.close(log);
  log(errors.length ? `cleanup finished with ${errors.length} errors` : "everything stopped and removed");
  if (logDir && (exitCode === 0 || signal.aborted)) await removeDir(logDir);
  else if (logDir) log(`sysbench logs kept in ${logDir}`);
  log(`total wall time ${((Date.now() - t0) / 60_000).toFixed(1)} min`);
}
process.exit(exitCode);
