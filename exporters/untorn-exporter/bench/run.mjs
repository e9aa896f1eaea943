// Exporter benchmark, side by side in one run on the same MariaDB under the same sysbench load:
// scrape latency of untorn-exporter vs Debian's mysqld_exporter with the equivalent collectors,
// untorn-exporter RSS after 100 vs 10,000 scrapes, and sysbench TPS with each exporter scraping every
// second vs none. Writes bench/results/exporter.json at the repo root.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { startMysqldExporter, startUntornExporter } from "@untorn/testkit/exporters";
import { startMariaDb } from "@untorn/testkit/mariadb";
import { repoRoot } from "@untorn/testkit/process";
import { prepareSysbench, runSysbench, startSysbenchLoad, targetOf } from "@untorn/testkit/sysbench";

const quick = process.env.UNTORN_BENCH_QUICK === "1";
const LATENCY_SCRAPES = quick ? 50 : 300;
const RSS_SCRAPES = quick ? 1000 : 10_000;
const TPS_SECONDS = quick ? 5 : 20;
const TPS_REPEATS = quick ? 1 : 3;
const LOAD = { tables: 4, tableSize: 10_000 };

const log = (msg) => process.stderr.write(`[bench exporter] ${msg}\n`);

function quantile(sorted, q) {
  const pos = (sorted.length - 1) * q;
  const lo = Math.floor(pos);
  const hi = Math.ceil(pos);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

function rssBytes(pid) {
  const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, "utf8"));
  return Number(m?.[1] ?? 0) * 1024;
}

async function timedScrape(exporter) {
  const t0 = performance.now();
  const res = await fetch(`${exporter.url}/metrics`);
  const body = await res.text();
  const ms = performance.now() - t0;
  if (res.status !== 200 || body.length < 100) throw new Error(`scrape failed: ${res.status}`);
  return ms;
}

function scrapeEverySecond(exporter) {
  let stopped = false;
  const loop = (async () => {
    while (!stopped) {
      const t0 = Date.now();
      await fetch(`${exporter.url}/metrics`).then((r) => r.text());
      await new Promise((r) => setTimeout(r, Math.max(0, 1000 - (Date.now() - t0))));
    }
  })();
  return async () => {
    stopped = true;
    await loop;
  };
}

const db = await startMariaDb({
  performanceSchema: true,
  bufferPoolSize: "16M",
  extra: { innodb_max_dirty_pages_pct: 0, innodb_max_dirty_pages_pct_lwm: 0, innodb_io_capacity: 5000 },
});
const cleanup = [];
try {
  log(`MariaDB on ${db.socket}; preparing sysbench ${LOAD.tables}x${LOAD.tableSize}`);
  await prepareSysbench(db, LOAD);
  // host.storage has no mysqld_exporter counterpart (node_exporter's job): off for the like-for-like run.
  const ours = await startUntornExporter({ db, args: ["--no-collect.host.storage"] });
  cleanup.push(() => ours.stop());
  const oursFull = await startUntornExporter({ db });
  cleanup.push(() => oursFull.stop());
  const theirs = await startMysqldExporter(db, [
    "global_status",
    "global_variables",
    "perf_schema.file_events",
    "perf_schema.eventswaits",
    "info_schema.innodb_metrics",
  ]);
  cleanup.push(() => theirs.stop());

  // 1. Scrape latency, interleaved so both see the same load at the same moments.
  const load = startSysbenchLoad(targetOf(db), db.dir, { ...LOAD, threads: 2, time: 0 });
  cleanup.push(() => load.stop());
  for (const e of [ours, oursFull, theirs]) for (let i = 0; i < 20; i++) await timedScrape(e);
  const lat = { ours: [], oursFull: [], theirs: [] };
  log(`scrape latency: ${LATENCY_SCRAPES} scrapes each, interleaved`);
  for (let i = 0; i < LATENCY_SCRAPES; i++) {
    lat.ours.push(await timedScrape(ours));
    lat.theirs.push(await timedScrape(theirs));
    lat.oursFull.push(await timedScrape(oursFull));
  }
  const summary = (xs) => {
    const s = [...xs].sort((a, b) => a - b);
    return { n: s.length, median_ms: quantile(s, 0.5), p99_ms: quantile(s, 0.99), max_ms: s[s.length - 1] };
  };
  const latency = {
    untorn_exporter: summary(lat.ours),
    untorn_exporter_with_host_storage: summary(lat.oursFull),
    mysqld_exporter: summary(lat.theirs),
  };
  log(JSON.stringify(latency));

  // 2. RSS after 100 vs after RSS_SCRAPES scrapes (same process, load still running). RSS moves with each
  // GC, so each point is the median of the 21 samples taken one per scrape around it.
  const rssOf = async (e) => {
    const window = (center) => [center - 10, center + 10];
    const [a0, a1] = window(100);
    const [b0, b1] = window(RSS_SCRAPES - 10);
    const [m0, m1] = window(1000);
    const early = [];
    const mid = [];
    const late = [];
    for (let done = 1; done <= RSS_SCRAPES; done++) {
      await fetch(`${e.url}/metrics`).then((r) => r.text());
      if (done >= a0 && done <= a1) early.push(rssBytes(e.process.pid));
      if (done >= m0 && done <= m1) mid.push(rssBytes(e.process.pid));
      if (done >= b0 && done <= b1) late.push(rssBytes(e.process.pid));
      if (done % 2000 === 0) log(`rss: ${done}/${RSS_SCRAPES} scrapes`);
    }
    const med = (xs) =>
      quantile(
        [...xs].sort((x, y) => x - y),
        0.5,
      );
    const at = { after_100: med(early), after_1000: med(mid), [`after_${RSS_SCRAPES}`]: med(late) };
    at.growth = at[`after_${RSS_SCRAPES}`] / at.after_100 - 1;
    // growth once warmed up: a leak keeps growing here, V8/malloc warm-up does not
    at.growth_after_warmup = at[`after_${RSS_SCRAPES}`] / at.after_1000 - 1;
    return at;
  };
  const fresh = await startUntornExporter({ db, args: ["--no-collect.host.storage"] });
  cleanup.push(() => fresh.stop());
  const rss = { untorn_exporter: await rssOf(fresh) };
  log(JSON.stringify(rss));
  await load.stop();

  // 3. TPS with no exporter, untorn-exporter or mysqld_exporter scraping every second; rounds interleave.
  const tps = { none: [], untorn_exporter: [], mysqld_exporter: [] };
  for (let r = 0; r < TPS_REPEATS; r++) {
    for (const mode of Object.keys(tps)) {
      const exporter =
        mode === "untorn_exporter" ? oursFull : mode === "mysqld_exporter" ? theirs : undefined;
      const stop = exporter ? scrapeEverySecond(exporter) : async () => undefined;
      const result = await runSysbench(targetOf(db), { ...LOAD, threads: 4, time: TPS_SECONDS });
      await stop();
      tps[mode].push(result.tps);
      log(`tps round ${r + 1} ${mode}: ${result.tps}`);
    }
  }
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  const tpsSummary = Object.fromEntries(
    Object.entries(tps).map(([k, v]) => [
      k,
      { runs: v, mean: mean(v), min: Math.min(...v), max: Math.max(...v) },
    ]),
  );
  const noneSpread = (Math.max(...tps.none) - Math.min(...tps.none)) / mean(tps.none);

  const result = {
    benchmark: "exporter",
    date: new Date().toISOString(),
    quick,
    machine: { cpus: (await import("node:os")).cpus().length, node: process.version },
    mariadb: (await db.query("SELECT @@version AS v"))[0].v,
    load: { ...LOAD, test: "oltp_write_only", threads_during_latency: 2, threads_during_tps: 4 },
    scrape_latency: latency,
    ratios: {
      median_untorn_over_mysqld: latency.untorn_exporter.median_ms / latency.mysqld_exporter.median_ms,
      p99_untorn_over_mysqld: latency.untorn_exporter.p99_ms / latency.mysqld_exporter.p99_ms,
    },
    rss,
    tps: tpsSummary,
    tps_effect: {
      untorn_vs_none: tpsSummary.untorn_exporter.mean / tpsSummary.none.mean - 1,
      mysqld_vs_none: tpsSummary.mysqld_exporter.mean / tpsSummary.none.mean - 1,
      noise_range_of_none: noneSpread,
    },
  };
  const dir = join(repoRoot(), "bench", "results");
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, quick ? "exporter.quick.json" : "exporter.json"),
    `${JSON.stringify(result, null, 2)}\n`,
  );
  log(
    `median ${latency.untorn_exporter.median_ms.toFixed(2)} ms vs ${latency.mysqld_exporter.median_ms.toFixed(2)} ms; ` +
      `p99 ${latency.untorn_exporter.p99_ms.toFixed(2)} vs ${latency.mysqld_exporter.p99_ms.toFixed(2)}; ` +
      `RSS growth ${(rss.untorn_exporter.growth * 100).toFixed(1)}%; TPS effect ${(result.tps_effect.untorn_vs_none * 100).toFixed(1)}% (noise ${(noneSpread * 100).toFixed(1)}%)`,
  );
} finally {
  for (const c of cleanup.reverse()) await c().catch(() => undefined);
  await db.destroy();
}
