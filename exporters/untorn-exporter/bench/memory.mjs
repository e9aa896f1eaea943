// Memory and central mode, side by side in one run:
// 1. resident: untorn-exporter (as shipped, and with --optimize-for-size) beside Debian's mysqld_exporter
//    on the same throwaway MariaDB; RSS and scrape latency after the same interleaved scrapes;
// 2. central: N throwaway small MariaDB servers, one untorn-exporter scraping all of them through /probe
//    every 15 s (all targets at once, the worst case), against N mysqld_exporter processes, one per
//    server, scraped on the same rounds: RSS, CPU per target scrape, /probe latency.
// UNTORN_BENCH_PREVIOUS=<dist/main.js of an earlier build> adds that build to the resident run.
// UNTORN_BENCH_TARGETS (default 10), UNTORN_BENCH_ROUNDS (default 4), UNTORN_BENCH_QUICK=1 for a short run.
// Writes bench/results/exporter-memory.json at the repo root.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { EXPORTER_NODE_ARGS, startMysqldExporter, startUntornExporter } from "@untorn/testkit/exporters";
import { startMariaDb } from "@untorn/testkit/mariadb";
import { freePort, makeTempDir, removeDir, repoRoot, spawnManaged, waitFor } from "@untorn/testkit/process";

const quick = process.env.UNTORN_BENCH_QUICK === "1";
const TARGETS = Number(process.env.UNTORN_BENCH_TARGETS ?? 10);
const ROUNDS = Number(process.env.UNTORN_BENCH_ROUNDS ?? (quick ? 2 : 4));
const RESIDENT_SCRAPES = quick ? 100 : 500;
const INTERVAL_MS = 15_000;
const SQL_COLLECTORS = [
  "global_status",
  "global_variables",
  "perf_schema.file_events",
  "perf_schema.eventswaits",
  "info_schema.innodb_metrics",
];

const log = (msg) => process.stderr.write(`[bench exporter-memory] ${msg}\n`);
const rssBytes = (pid) =>
  Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"))?.[1] ?? 0) * 1024;
/** utime + stime of a process, in ms (clock ticks of 10 ms). */
const cpuMs = (pid) => {
  const f = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
  return (Number(f[11]) + Number(f[12])) * 10;
};
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};
const quantile = (xs, q) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(q * xs.length))];
const mib = (b) => Math.round((b / 1048576) * 10) / 10;

async function timed(url) {
  const t0 = performance.now();
  const res = await fetch(url);
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200 || body.length < 100)
    throw new Error(`scrape of ${url} failed: ${res.status} ${body.slice(0, 200)}`);
  return { ms, up: /^untorn_mysql_up 1$/m.test(body) || /^mysql_up 1$/m.test(body) };
}

/** An exporter from another build's main.js, started like testkit starts the current one. */
async function startBuild(main, db) {
  const dir = await makeTempDir("previous");
  const port = await freePort();
  const proc = spawnManaged(
    process.execPath,
    [
      ...EXPORTER_NODE_ARGS,
      main,
      `--web.listen-address=127.0.0.1:${port}`,
      `--mysqld.address=${db.socket}`,
      `--mysqld.username=${db.user}`,
    ],
    { logFile: join(dir, "previous.log"), env: { ...process.env, UNTORN_EXPORTER_PASSWORD: db.password } },
  );
  const url = `http://127.0.0.1:${port}`;
  await waitFor("previous build", async () => (await fetch(`${url}/healthz`)).ok, {
    detail: () => proc.tail(),
  });
  return { url, process: proc, stop: () => proc.stop(5000) };
}

class Skip extends Error {}
const cleanup = [];
const result = {
  benchmark: "exporter-memory",
  date: new Date().toISOString(),
  quick,
  machine: { node: process.version },
};
try {
  // 1. Resident.
  const db = await startMariaDb({ performanceSchema: true, bufferPoolSize: "16M" });
  cleanup.push(() => db.destroy());
  const resident = {
    untorn_exporter: await startUntornExporter({ db }),
    untorn_exporter_optimize_for_size: await startUntornExporter({
      db,
      nodeArgs: [...EXPORTER_NODE_ARGS, "--optimize-for-size"],
    }),
    mysqld_exporter: await startMysqldExporter(db, SQL_COLLECTORS),
  };
  if (process.env.UNTORN_BENCH_PREVIOUS)
    resident.previous_build = await startBuild(process.env.UNTORN_BENCH_PREVIOUS, db);
  for (const e of Object.values(resident)) cleanup.push(() => e.stop());
  const lat = Object.fromEntries(Object.keys(resident).map((k) => [k, []]));
  const rssSamples = Object.fromEntries(Object.keys(resident).map((k) => [k, []]));
  log(`resident: ${RESIDENT_SCRAPES} interleaved scrapes each`);
  for (let i = 0; i < RESIDENT_SCRAPES; i++) {
    for (const [k, e] of Object.entries(resident)) {
      lat[k].push((await timed(`${e.url}/metrics`)).ms);
      if (i >= RESIDENT_SCRAPES - 21) rssSamples[k].push(rssBytes(e.process.pid));
    }
  }
  result.resident = Object.fromEntries(
    Object.entries(resident).map(([k]) => [
      k,
      { rss_mib: mib(median(rssSamples[k])), median_ms: median(lat[k]), p99_ms: quantile(lat[k], 0.99) },
    ]),
  );
  const r = result.resident;
  result.resident_ratios = {
    rss_untorn_over_mysqld: r.untorn_exporter.rss_mib / r.mysqld_exporter.rss_mib,
    rss_optimize_for_size_over_mysqld:
      r.untorn_exporter_optimize_for_size.rss_mib / r.mysqld_exporter.rss_mib,
    median_untorn_over_mysqld: r.untorn_exporter.median_ms / r.mysqld_exporter.median_ms,
    median_optimize_for_size_over_mysqld:
      r.untorn_exporter_optimize_for_size.median_ms / r.mysqld_exporter.median_ms,
  };
  log(JSON.stringify(result.resident));
  for (const e of Object.values(resident)) await e.stop();

  // 2. Central.
  if (TARGETS === 0) throw new Skip();
  log(`central: starting ${TARGETS} MariaDB servers`);
  const dbs = [];
  for (let i = 0; i < TARGETS; i++) {
    const d = await startMariaDb({ performanceSchema: true, bufferPoolSize: "8M" });
    cleanup.push(() => d.destroy());
    dbs.push(d);
  }
  const dir = await makeTempDir("central");
  cleanup.push(() => removeDir(dir));
  const probeFile = join(dir, "probe.yml");
  writeFileSync(
    probeFile,
    `auth_modules:\n  fleet:\n    user: ${dbs[0].user}\n    password: "${dbs[0].password}"\n    targets:\n${dbs.map((d) => `      - "${d.socket}"`).join("\n")}\n`,
  );
  const central = await startUntornExporter({
    args: [
      `--probe.config.file=${probeFile}`,
      `--exporter.max-connections=${TARGETS + 1}`,
      "--mysqld.address=/nonexistent.sock",
    ],
  });
  cleanup.push(() => central.stop());
  const theirs = [];
  for (const d of dbs) {
    const e = await startMysqldExporter(d, SQL_COLLECTORS);
    cleanup.push(() => e.stop());
    theirs.push(e);
  }
  const probeUrl = (d) => `${central.url}/probe?target=${encodeURIComponent(d.socket)}&auth_module=fleet`;
  // one warm-up round, then the measured ones
  await Promise.all(dbs.map((d) => timed(probeUrl(d))));
  await Promise.all(theirs.map((e) => timed(`${e.url}/metrics`)));
  const cpu0 = cpuMs(central.process.pid);
  const theirCpu0 = theirs.map((e) => cpuMs(e.process.pid));
  const probeLat = [];
  const theirLat = [];
  let down = 0;
  for (let round = 0; round < ROUNDS; round++) {
    const t0 = Date.now();
    const ours = await Promise.all(dbs.map((d) => timed(probeUrl(d))));
    down += ours.filter((x) => !x.up).length;
    probeLat.push(...ours.map((x) => x.ms));
    theirLat.push(...(await Promise.all(theirs.map((e) => timed(`${e.url}/metrics`)))).map((x) => x.ms));
    log(`central round ${round + 1}/${ROUNDS}: /probe median ${median(ours.map((x) => x.ms)).toFixed(1)} ms`);
    if (round < ROUNDS - 1)
      await new Promise((res) => setTimeout(res, Math.max(0, INTERVAL_MS - (Date.now() - t0))));
  }
  const scrapes = TARGETS * ROUNDS;
  const centralRss = rssBytes(central.process.pid);
  const theirRss = theirs.map((e) => rssBytes(e.process.pid));
  result.central = {
    targets: TARGETS,
    rounds: ROUNDS,
    interval_s: INTERVAL_MS / 1000,
    scrapes_with_server_down: down,
    untorn_exporter: {
      processes: 1,
      rss_mib: mib(centralRss),
      cpu_ms_per_target_scrape: (cpuMs(central.process.pid) - cpu0) / scrapes,
      probe_median_ms: median(probeLat),
      probe_p99_ms: quantile(probeLat, 0.99),
    },
    mysqld_exporter: {
      processes: TARGETS,
      total_rss_mib: mib(theirRss.reduce((a, b) => a + b, 0)),
      rss_each_median_mib: mib(median(theirRss)),
      cpu_ms_per_target_scrape:
        theirs.reduce((a, e, i) => a + cpuMs(e.process.pid) - theirCpu0[i], 0) / scrapes,
      median_ms: median(theirLat),
    },
  };
  const c = result.central;
  result.central_ratios = {
    rss_central_over_mysqld_total: c.untorn_exporter.rss_mib / c.mysqld_exporter.total_rss_mib,
    cpu_per_target_central_over_mysqld:
      c.untorn_exporter.cpu_ms_per_target_scrape / c.mysqld_exporter.cpu_ms_per_target_scrape,
  };
  log(JSON.stringify(result.central));
  const out = join(repoRoot(), "bench", "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(
    join(out, quick ? "exporter-memory.quick.json" : "exporter-memory.json"),
    `${JSON.stringify(result, null, 2)}\n`,
  );
} catch (err) {
  if (!(err instanceof Skip)) throw err;
  // UNTORN_BENCH_TARGETS=0: the resident part only
  log(JSON.stringify(result.resident_ratios));
  const out = join(repoRoot(), "bench", "results");
  mkdirSync(out, { recursive: true });
  writeFileSync(join(out, "exporter-memory.resident.json"), `${JSON.stringify(result, null, 2)}\n`);
} finally {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
}
