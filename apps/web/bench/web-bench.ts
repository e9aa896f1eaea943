/**
 * Web console benchmark: a 10,000-instance fleet (synthetic replay, bench/synthetic-fleet.ts) served by
 * the production build (`next start`).
 *
 * Measures, side by side in one run:
 * - the raw replay read the console needs (decode the file, buildFleetFacts over it) and the advisor
 *   work on top (merge, advise, rank), in this process;
 * - per server build (this one, and with UNTORN_BENCH_BEFORE=<another checkout's built apps/web> the
 *   previous code beside it, alternating which starts first each round; with UNTORN_BENCH_HEAP_CAP_MB
 *   this one again with the old space capped): the first page after the server is up (its first byte,
 *   whether it said "Reading the fleet", the whole page), warm page responses, the server's RSS right
 *   after the first page, 10 s later and its peak, and after the runs;
 * - headless Chromium (Debian's): time until the table is interactive (hydrated; the page sets a
 *   performance mark), a search, a sort and the next page, long tasks while scrolling the table;
 * - API latency under 20 concurrent clients (autocannon) on this build: p50 / p99, errors.
 * With UNTORN_BENCH_KEPT=1 it compares instead a first start of this build (no kept fleet read) with a
 * restart that finds the read the previous start kept (server.mjs, which tells the app its build; one
 * data directory; alternating which comes first, the first start's kept read awaited before it stops):
 * the server's figures only, no browser or API runs; with UNTORN_BENCH_BEFORE too, the previous build's
 * first start and restart (its own data directory) run beside this one's in each round. Writes bench/results/web.json (UNTORN_BENCH_RESULTS names another file) at the repository root. Run: npm run bench -w @untorn/web (after build).
 */
import { type ChildProcess, spawn } from "node:child_process";
import {
  createReadStream,
  existsSync,
  mkdtempSync,
  openSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from "node:fs";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { buildFleetFacts } from "@untorn/fleet/facts";
import { buildSnapshot } from "@untorn/fleet/pipeline";
import { decodeReplayApi, type ReplayApi, readReplayApi, replayFactsOptions } from "@untorn/fleet/replay";
import autocannon from "autocannon";
import { chromium, type Page } from "playwright-core";
import { webRows } from "../src/lib/fleet-row.js";
import {
  type FakePrometheus,
  pinnedToRecording,
  startFakePrometheus,
} from "../src/testing/fake-prometheus.js";
import { benchMachine } from "./machine.js";
import { instanceName, writeSyntheticReplay } from "./synthetic-fleet.js";

const SIZE = Number(process.env.UNTORN_BENCH_SIZE ?? 10_000);
const CONNECTIONS = 20;
const SECONDS = Number(process.env.UNTORN_BENCH_SECONDS ?? 10);
const END = 1_795_000_000;
const WEB = fileURLToPath(new URL("..", import.meta.url));
const RESULTS =
  process.env.UNTORN_BENCH_RESULTS ??
  fileURLToPath(new URL("../../../bench/results/web.json", import.meta.url));
const CHROMIUM = process.env.UNTORN_CHROMIUM ?? "/usr/bin/chromium";
/** A built apps/web of the previous code (its own checkout with node_modules), run beside this one. */
const BEFORE = process.env.UNTORN_BENCH_BEFORE ?? null;
const ROUNDS = Number(process.env.UNTORN_BENCH_ROUNDS ?? 1);
/** With it, this build also runs with the old space capped at that many MB ("after-capped"). */
const HEAP_CAP_MB = process.env.UNTORN_BENCH_HEAP_CAP_MB
  ? Number(process.env.UNTORN_BENCH_HEAP_CAP_MB)
  : null;
/** First start vs restart with the kept fleet read (see the module comment). */
const KEPT = process.env.UNTORN_BENCH_KEPT === "1";
/**
 * UNTORN_BENCH_SOURCE=live: the servers read the fleet from a Prometheus API (PROMETHEUS_URL) that this
 * process answers from the synthetic replay (src/testing/fake-prometheus.ts), as a console on a live
 * fleet does, so the replay's decoded samples live in this process and not in the server; default
 * `replay`, the servers read the replay file (UNTORN_REPLAY).
 */
const SOURCE = process.env.UNTORN_BENCH_SOURCE ?? "replay";
if (SOURCE !== "replay" && SOURCE !== "live")
  throw new Error(`UNTORN_BENCH_SOURCE must be replay or live, got "${SOURCE}"`);
const KEPT_FILE = "fleet-read.json.gz";

const ms = (x: number) => Math.round(x * 10) / 10;
const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
};
const log = (s: string) => process.stderr.write(`[bench] ${s}\n`);

async function time<T>(fn: () => Promise<T> | T): Promise<[T, number]> {
  const t = performance.now();
  const r = await fn();
  return [r, performance.now() - t];
}

async function freePort(): Promise<number> {
  const { createServer } = await import("node:net");
  return new Promise((resolve) => {
    const s = createServer();
    s.listen(0, "127.0.0.1", () => {
      const port = (s.address() as { port: number }).port;
      s.close(() => resolve(port));
    });
  });
}

function startServer(
  web: string,
  port: number,
  env: Record<string, string>,
  logFile: string,
  serverMjs = false,
): ChildProcess {
  const next = join(web, "..", "..", "node_modules", "next", "dist", "bin", "next");
  const out = openSync(logFile, "a");
  const args = serverMjs ? [join(web, "server.mjs")] : [next, "start", "-p", String(port), "-H", "127.0.0.1"];
  return spawn(process.execPath, args, {
    cwd: web,
    env: {
      PATH: process.env.PATH ?? "",
      HOME: process.env.HOME ?? "",
      NODE_ENV: "production",
      NEXT_TELEMETRY_DISABLED: "1",
      ...(serverMjs ? { PORT: String(port), UNTORN_HOST: "127.0.0.1" } : {}),
      ...env,
    },
    stdio: ["ignore", out, out],
  });
}

async function waitUp(url: string, child: ChildProcess, logFile: string): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    if (child.exitCode !== null)
      throw new Error(`next start exited:\n${readFileSync(logFile, "utf8").slice(-2000)}`);
    try {
      const r = await fetch(`${url}/icon.svg`);
      await r.arrayBuffer();
      if (r.ok) return;
    } catch {
      // not yet
    }
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`${url} did not come up`);
}

/** The bench's credentials: pages with a session cookie, the API with the viewer token. */
const ADMIN_PASSWORD = "bench-admin-password";
const VIEWER_TOKEN = "bench-viewer-token-0123456789abcdef";
const auth: { cookie: string } = { cookie: "" };

async function signIn(url: string): Promise<void> {
  const r = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    body: new URLSearchParams({ username: "admin", password: ADMIN_PASSWORD }),
    redirect: "manual",
  });
  const v = /untorn_session=([^;]+)/.exec(r.headers.get("set-cookie") ?? "")?.[1];
  if (!v) throw new Error(`sign-in failed: ${r.status}`);
  auth.cookie = v;
}

async function get(url: string): Promise<{ ms: number; bytes: number; status: number }> {
  const t = performance.now();
  const r = await fetch(url, {
    headers: url.includes("/api/v1/")
      ? { authorization: `Bearer ${VIEWER_TOKEN}` }
      : { cookie: `untorn_session=${auth.cookie}` },
  });
  const b = await r.arrayBuffer();
  return { ms: performance.now() - t, bytes: b.byteLength, status: r.status };
}

/** VmRSS (now) or VmHWM (peak) of a process, MB. */
function rssMb(pid: number, field: "VmRSS" | "VmHWM" = "VmRSS"): number | null {
  try {
    const m = new RegExp(`${field}:\\s+(\\d+) kB`).exec(readFileSync(`/proc/${pid}/status`, "utf8"));
    return m ? Math.round(Number(m[1]) / 1024) : null;
  } catch {
    return null;
  }
}

/**
 * GET of a page, streamed: [the whole answer, ms to its first body bytes, whether it said "Reading the
 * fleet", whether it said the fleet is the kept read].
 */
async function firstPage(
  url: string,
): Promise<[{ ms: number; bytes: number; status: number }, number, boolean, boolean]> {
  const t = performance.now();
  const r = await fetch(url, { headers: { cookie: `untorn_session=${auth.cookie}` } });
  let firstByte = -1;
  let bytes = 0;
  let text = "";
  const decoder = new TextDecoder();
  for await (const chunk of r.body as unknown as AsyncIterable<Uint8Array>) {
    if (firstByte < 0) firstByte = performance.now() - t;
    bytes += chunk.byteLength;
    if (text.length < 2_000_000) text += decoder.decode(chunk, { stream: true });
  }
  return [
    { ms: performance.now() - t, bytes, status: r.status },
    firstByte,
    text.includes('data-testid="fleet-reading"'),
    text.includes('data-testid="kept-read"'),
  ];
}

/** Runs in the page: scrolls the fleet table and reports frame times, long tasks and DOM rows. */
const SCROLL_SCRIPT = `(async () => {
  const el = document.querySelector('[data-testid="fleet-table"]');
  async function run(steps, position) {
    const longTasks = [];
    const obs = new PerformanceObserver((list) => { for (const e of list.getEntries()) longTasks.push(e.duration); });
    obs.observe({ type: "longtask", buffered: false });
    const frames = [];
    let last = performance.now();
    for (let s = 1; s <= steps; s++) {
      el.scrollTop = position(s);
      await new Promise((r) => requestAnimationFrame(() => r(null)));
      const now = performance.now();
      frames.push(now - last);
      last = now;
    }
    await new Promise((r) => setTimeout(r, 200));
    obs.disconnect();
    frames.sort((a, b) => a - b);
    return {
      frameP50Ms: Math.round(frames[frames.length >> 1] * 10) / 10,
      frameP95Ms: Math.round(frames[Math.floor(frames.length * 0.95)] * 10) / 10,
      longTasks: longTasks.length,
      longestTaskMs: longTasks.length ? Math.max(...longTasks) : 0,
    };
  }
  el.scrollTop = 0;
  const wheel = await run(240, (s) => s * 120);
  const jumps = await run(100, (s) => (el.scrollHeight * s) / 100);
  const lastRow = document.querySelector("tbody tr:last-child");
  return { wheel, jumps, rowsInDom: document.querySelectorAll("tbody tr").length, lastRowIndex: Number(lastRow ? lastRow.dataset.rowIndex : -1) };
})()`;

async function cannon(url: string): Promise<Record<string, number>> {
  const r = await autocannon({
    url,
    connections: CONNECTIONS,
    duration: SECONDS,
    timeout: 60,
    headers: { authorization: `Bearer ${VIEWER_TOKEN}` },
  });
  return {
    requests: r.requests.total,
    requestsPerSecond: ms(r.requests.average),
    p50Ms: r.latency.p50,
    p90Ms: r.latency.p90,
    p99Ms: r.latency.p99,
    maxMs: r.latency.max,
    errors: r.errors,
    timeouts: r.timeouts,
    non2xx: r.non2xx,
    bytesPerResponse: r.requests.total ? Math.round(r.throughput.total / r.requests.total) : 0,
  };
}

interface Variant {
  readonly name:
    | "before"
    | "after"
    | "after-capped"
    | "first-start"
    | "restart"
    | "before-first-start"
    | "before-restart";
  /** The built apps/web directory to serve. */
  readonly web: string;
  readonly nodeOptions?: string;
  /** UNTORN_BENCH_KEPT: the data directory shared by the runs, and whether its kept read is removed first. */
  readonly kept?: { readonly dataDir: string; readonly clear: boolean };
}

/** Waits until the server's log says it kept the fleet read; the seconds the write took, from that line. */
async function keptWritten(logFile: string, since: number): Promise<number> {
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    const line = readFileSync(logFile, "utf8")
      .slice(since)
      .split("\n")
      .find((l) => l.includes("untorn: kept the fleet read"));
    if (line) return Number(/in ([\d.]+) s$/.exec(line)?.[1] ?? Number.NaN);
    await new Promise((r) => setTimeout(r, 250));
  }
  throw new Error(`the server never said it kept the fleet read (${logFile})`);
}

/**
 * What the server's log says of building the snapshot from the kept read: seconds, kept advice reused and
 * instances advised again; null when it has no such line (a first start).
 */
function keptAdvised(
  logFile: string,
  since: number,
): { readonly seconds: number; readonly reused: number; readonly advised: number } | null {
  const line = readFileSync(logFile, "utf8")
    .slice(since)
    .split("\n")
    .find((l) => l.includes("from the kept read") || l.includes("comes from the kept read"));
  const m = line && /advised in ([\d.]+) s \((\d+) kept advice reused, (\d+) advised again/.exec(line);
  return m ? { seconds: Number(m[1]), reused: Number(m[2]), advised: Number(m[3]) } : null;
}

/** A server build started for a run: where it listens and logs, and what it found when it started. */
interface Started {
  readonly server: ChildProcess;
  readonly url: string;
  readonly logFile: string;
  /** Where this run's lines begin in the log (the log file is shared by a variant's rounds). */
  readonly logFrom: number;
  /** The 1-minute load average when it started. */
  readonly load: number;
  readonly spawnedAt: number;
  /** UNTORN_BENCH_KEPT: whether a kept read was there before it started (null: not a kept run). */
  readonly keptBefore: boolean | null;
}

async function startVariant(
  v: Variant,
  file: string,
  work: string,
  promUrl: string | null,
): Promise<Started> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}`;
  const logFile = join(work, `web-${v.name}.log`);
  if (v.kept?.clear) rmSync(join(v.kept.dataDir, KEPT_FILE), { force: true });
  const keptBefore = v.kept ? existsSync(join(v.kept.dataDir, KEPT_FILE)) : null;
  const logFrom = existsSync(logFile) ? statSync(logFile).size : 0;
  const load = loadavg()[0]!;
  const spawnedAt = performance.now();
  const server = startServer(
    v.web,
    port,
    {
      ...(promUrl ? { PROMETHEUS_URL: promUrl } : { UNTORN_REPLAY: file }),
      UNTORN_DATA_DIR: v.kept?.dataDir ?? join(work, `data-${v.name}-${Date.now()}`),
      UNTORN_ADMIN_PASSWORD: ADMIN_PASSWORD,
      UNTORN_VIEWER_TOKEN: VIEWER_TOKEN,
      ...(v.nodeOptions ? { NODE_OPTIONS: v.nodeOptions } : {}),
    },
    logFile,
    v.kept !== undefined,
  );
  return { server, url, logFile, logFrom, load, spawnedAt, keptBefore };
}

/** The server's RSS now and its peak, MB (null: it has no pid). */
function memoryOf(server: ChildProcess): { rss: number | null; peak: number | null } {
  return {
    rss: server.pid ? rssMb(server.pid) : null,
    peak: server.pid ? rssMb(server.pid, "VmHWM") : null,
  };
}

/** What the first page after the server is up cost: times, what it said, and the server's RSS. */
interface FirstRead {
  readonly upMs: number;
  readonly cold: { ms: number; bytes: number; status: number };
  readonly firstByteMs: number;
  readonly readingShown: boolean;
  readonly keptShown: boolean;
  readonly firstPageMs: number;
  readonly rssAfterFirstPage: number | null;
  readonly peakRssFirstRead: number | null;
  /** RSS 10 s after the first page. */
  readonly rssSettled: number | null;
}

/** Waits for the server, signs in, and times the first page. */
async function firstRead(v: Variant, s: Started): Promise<FirstRead> {
  await waitUp(s.url, s.server, s.logFile);
  await signIn(s.url);
  const upMs = performance.now() - s.spawnedAt;
  const firstStart = performance.now();
  const [cold, firstByteMs, readingShown, keptShown] = await firstPage(`${s.url}/`);
  const firstPageMs = performance.now() - s.spawnedAt;
  if (cold.status !== 200) throw new Error(`${v.name}: GET / answered ${cold.status}`);
  const { rss: rssAfterFirstPage, peak: peakRssFirstRead } = memoryOf(s.server);
  // Settled: the read's garbage has had time to be collected (nothing else runs meanwhile).
  await new Promise((r) => setTimeout(r, 10_000));
  const rssSettled = s.server.pid ? rssMb(s.server.pid) : null;
  log(
    `${v.name}: first byte of / ${ms(firstByteMs)} ms after up (reading notice ${readingShown ? "shown" : "not shown"}), whole page ${ms(performance.now() - firstStart - 10_000)} ms; RSS ${rssAfterFirstPage} MB after it, ${rssSettled} MB 10 s later, peak ${peakRssFirstRead} MB`,
  );
  return {
    upMs,
    cold,
    firstByteMs,
    readingShown,
    keptShown,
    firstPageMs,
    rssAfterFirstPage,
    peakRssFirstRead,
    rssSettled,
  };
}

/** Ten more GETs of the fleet page: their times, and the page's size. */
async function warmPages(url: string): Promise<{ warm: number[]; pageBytes: number }> {
  const warm: number[] = [];
  let pageBytes = 0;
  for (let i = 0; i < 10; i++) {
    const r = await get(`${url}/`);
    warm.push(r.ms);
    pageBytes = r.bytes;
  }
  return { warm, pageBytes };
}

/**
 * UNTORN_BENCH_KEPT: the run's figures once the read this start keeps is written (the next restart
 * needs it; written in the background after the read), or, on a restart, how the kept read was used.
 */
async function keptResult(
  v: Variant,
  kept: NonNullable<Variant["kept"]>,
  s: Started,
  f: FirstRead,
  warm: { warm: number[]; pageBytes: number },
) {
  const keptWriteS = f.keptShown ? null : await keptWritten(s.logFile, s.logFrom);
  const advised = f.keptShown ? keptAdvised(s.logFile, s.logFrom) : null;
  const { rss, peak } = memoryOf(s.server);
  log(
    `${v.name}: RSS ${rss} MB (peak ${peak} MB)${keptWriteS !== null ? `, kept read written in ${keptWriteS} s` : ""}${advised ? `, snapshot from the kept read in ${advised.seconds} s (${advised.reused} advice reused, ${advised.advised} advised again)` : ""}`,
  );
  return {
    variant: v.name,
    loadAverage1mAtStart: Math.round(s.load * 10) / 10,
    server: {
      keptReadBefore: s.keptBefore,
      keptReadServed: f.keptShown,
      keptReadWriteS: keptWriteS,
      keptSnapshot: advised,
      keptReadBytes: statSync(join(kept.dataDir, KEPT_FILE)).size,
      upMs: ms(f.upMs),
      firstPageAfterUpMs: ms(f.cold.ms),
      firstByteAfterUpMs: ms(f.firstByteMs),
      readingNoticeShown: f.readingShown,
      peakRssFirstReadMb: f.peakRssFirstRead,
      rssSettledAfterFirstPageMb: f.rssSettled,
      startToFirstPageMs: ms(f.firstPageMs),
      warmPageP50Ms: ms(median(warm.warm)),
      pageBytes: warm.pageBytes,
      rssAfterFirstPageMb: f.rssAfterFirstPage,
      rssMb: rss,
      peakRssMb: peak,
    },
  };
}

type PageLoad = { ready: number; domContentLoaded: number; responseEnd: number };

/** One navigation to the fleet page: times until the table is interactive, from the page's marks. */
async function tableLoad(page: Page, url: string): Promise<PageLoad> {
  await page.context().addCookies([{ name: "untorn_session", value: auth.cookie, url }]);
  await page.goto(`${url}/`, { waitUntil: "commit" });
  await page.locator('[data-testid="fleet-table"][data-ready="true"]').waitFor({ timeout: 120_000 });
  return page.evaluate(() => {
    const nav = performance.getEntriesByType("navigation")[0] as PerformanceNavigationTiming;
    const mark = performance.getEntriesByName("untorn:fleet-table-ready")[0]!;
    return {
      ready: mark.startTime,
      domContentLoaded: nav.domContentLoadedEventEnd,
      responseEnd: nav.responseEnd,
    };
  });
}

/** A search, a sort, the next page (a paged table) and scrolling, on a loaded fleet page. */
async function interact(page: Page): Promise<Record<string, unknown>> {
  const target = instanceName(42, SIZE);
  const [, searchMs] = await time(async () => {
    await page.getByLabel("Search").fill(target);
    await page.getByTestId("fleet-count").filter({ hasText: "Showing 1 of" }).waitFor();
  });
  await page.getByRole("button", { name: "Reset" }).click();
  await page.getByTestId("fleet-count").filter({ hasNotText: "Showing 1 of" }).waitFor();
  await page.locator("tbody tr a").filter({ hasNotText: target }).first().waitFor();
  const firstBefore = await page.locator("tbody tr a").first().textContent();
  const [, sortMs] = await time(async () => {
    await page.getByRole("columnheader", { name: "Instance" }).getByRole("button").click();
    await page.waitForFunction(
      (before) => document.querySelector("tbody tr a")?.textContent !== before,
      firstBefore,
    );
  });
  // A paged table (this build): the next page of rows from the server.
  let nextPageMs: number | null = null;
  const next = page.getByRole("button", { name: "Next" });
  if ((await next.count()) > 0) {
    const [, t] = await time(async () => {
      await next.click();
      await page
        .getByTestId("fleet-page")
        .filter({ hasText: /^Page 2 of/ })
        .waitFor();
    });
    nextPageMs = ms(t);
  }
  // Wheel-like scrolling (120 px a frame) and scrollbar jumps through the table, counting long tasks.
  // A string: tsx would wrap functions defined inside a callback in a helper the page lacks.
  const scroll = (await page.evaluate(SCROLL_SCRIPT)) as Record<string, unknown>;
  return { searchMs: ms(searchMs), sortMs: ms(sortMs), nextPageMs, ...scroll };
}

/** Five loads of the fleet page in headless Chromium; the last one also searches, sorts and scrolls. */
async function browserRuns(
  url: string,
): Promise<{ loads: PageLoad[]; interaction: Record<string, unknown> }> {
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
      "--no-sandbox",
      "--disable-gpu",
      "--disable-background-networking",
      "--disable-component-update",
      "--disable-sync",
      "--no-first-run",
    ],
  });
  const loads: PageLoad[] = [];
  let interaction: Record<string, unknown> = {};
  try {
    for (let i = 0; i < 5; i++) {
      const page = await browser.newPage({ viewport: { width: 1440, height: 900 } });
      loads.push(await tableLoad(page, url));
      if (i === 4) interaction = await interact(page);
      await page.close();
    }
  } finally {
    await browser.close();
  }
  return { loads, interaction };
}

/** The whole fleet from the read API, five times one after the other: times and the answer's size. */
async function wholeFleetGets(url: string): Promise<{ times: number[]; bytes: number }> {
  const times: number[] = [];
  let bytes = 0;
  for (let i = 0; i < 5; i++) {
    const r = await get(`${url}/api/v1/fleet`);
    times.push(r.ms);
    bytes = r.bytes;
  }
  return { times, bytes };
}

/** The read API under CONNECTIONS concurrent clients: a page of the fleet, one instance, the whole fleet. */
async function apiUnderLoadOf(v: Variant, url: string): Promise<Record<string, unknown>> {
  const one = instanceName(42, SIZE);
  const api100 = await cannon(`${url}/api/v1/fleet?limit=100&sort=gain`);
  const apiInstance = await cannon(`${url}/api/v1/instances/${one}`);
  const apiWhole = await cannon(`${url}/api/v1/fleet`);
  log(
    `${v.name}: api limit=100 p50 ${api100.p50Ms} p99 ${api100.p99Ms} ms; instance p50 ${apiInstance.p50Ms} p99 ${apiInstance.p99Ms} ms; whole fleet p50 ${apiWhole.p50Ms} p99 ${apiWhole.p99Ms} ms`,
  );
  return {
    connections: CONNECTIONS,
    secondsEach: SECONDS,
    "GET /api/v1/fleet?limit=100&sort=gain": api100,
    [`GET /api/v1/instances/${one}`]: apiInstance,
    "GET /api/v1/fleet (all 10,000 rows)": apiWhole,
  };
}

/** One server build: start it on the replay, time the first page, warm pages, the browser, and its RSS. */
async function serverRun(v: Variant, file: string, work: string, withApi: boolean, promUrl: string | null) {
  if (!existsSync(join(v.web, ".next", "BUILD_ID")))
    throw new Error(`build the console first in ${v.web}: npm run build -w @untorn/web`);
  const s = await startVariant(v, file, work, promUrl);
  const { server } = s;
  try {
    const f = await firstRead(v, s);
    const warm = await warmPages(s.url);
    log(
      `${v.name}: up ${ms(f.upMs)} ms, first page ${ms(f.cold.ms)} ms after it, warm page p50 ${ms(median(warm.warm))} ms (${warm.pageBytes} bytes)${v.kept ? `, kept read ${f.keptShown ? "served" : "not served"}` : ""}`,
    );
    if (v.kept) return await keptResult(v, v.kept, s, f, warm);

    const { loads, interaction } = await browserRuns(s.url);
    log(
      `${v.name}: table interactive p50 ${ms(median(loads.map((l) => l.ready)))} ms after navigation start`,
    );
    const apiFull = await wholeFleetGets(s.url);
    const apiUnderLoad = withApi ? await apiUnderLoadOf(v, s.url) : null;
    const { rss, peak } = memoryOf(server);
    log(`${v.name}: RSS ${rss} MB (peak ${peak} MB)`);
    return {
      variant: v.name,
      loadAverage1mAtStart: Math.round(s.load * 10) / 10,
      server: {
        upMs: ms(f.upMs),
        firstPageAfterUpMs: ms(f.cold.ms),
        firstByteAfterUpMs: ms(f.firstByteMs),
        readingNoticeShown: f.readingShown,
        peakRssFirstReadMb: f.peakRssFirstRead,
        rssSettledAfterFirstPageMb: f.rssSettled,
        startToFirstPageMs: ms(f.firstPageMs),
        warmPageP50Ms: ms(median(warm.warm)),
        warmPageMaxMs: ms(Math.max(...warm.warm)),
        pageBytes: warm.pageBytes,
        apiWholeFleetP50Ms: ms(median(apiFull.times)),
        apiWholeFleetBytes: apiFull.bytes,
        rssAfterFirstPageMb: f.rssAfterFirstPage,
        rssMb: rss,
        peakRssMb: peak,
      },
      browser: {
        runs: loads.length,
        tableInteractiveP50Ms: ms(median(loads.map((l) => l.ready))),
        tableInteractiveMaxMs: ms(Math.max(...loads.map((l) => l.ready))),
        responseEndP50Ms: ms(median(loads.map((l) => l.responseEnd))),
        domContentLoadedP50Ms: ms(median(loads.map((l) => l.domContentLoaded))),
        ...interaction,
      },
      ...(apiUnderLoad ? { apiUnderLoad } : {}),
    };
  } finally {
    if (server.exitCode === null) {
      server.kill("SIGTERM");
      await new Promise((r) => server.once("exit", r));
    }
  }
}

type Run = Awaited<ReturnType<typeof serverRun>>;

/** after ÷ before (restart ÷ first-start) of the medians over rounds, for the figures the goals name. */
function ratios(runs: readonly Run[], after = "after", before = "before"): Record<string, number | null> {
  const pick = (name: string, f: (r: Run) => number | null) => {
    const xs = runs
      .filter((r) => r.variant === name)
      .map(f)
      .filter((x): x is number => x !== null);
    return xs.length ? median(xs) : null;
  };
  const ratio = (f: (r: Run) => number | null) => {
    const a = pick(after, f);
    const b = pick(before, f);
    return a !== null && b ? Math.round((a / b) * 1000) / 1000 : null;
  };
  return {
    firstPageAfterUp: ratio((r) => r.server.firstPageAfterUpMs),
    startToFirstPage: ratio((r) => r.server.startToFirstPageMs),
    rssAfterFirstPage: ratio((r) => r.server.rssAfterFirstPageMb),
    rssSettledAfterFirstPage: ratio((r) => r.server.rssSettledAfterFirstPageMb),
    peakRssFirstRead: ratio((r) => r.server.peakRssFirstReadMb),
    tableInteractiveP50: ratio((r) => ("browser" in r ? r.browser.tableInteractiveP50Ms : null)),
    rss: ratio((r) => r.server.rssMb),
    peakRss: ratio((r) => r.server.peakRssMb),
    pageBytes: ratio((r) => r.server.pageBytes),
    warmPageP50: ratio((r) => r.server.warmPageP50Ms),
  };
}

/** The synthetic replay file and what writing it took. */
interface Fleet {
  readonly file: string;
  readonly samples: number;
  readonly writeMs: number;
}

/** The raw replay read the console needs and the advisor work on top, measured in this process. */
interface RawRead {
  readonly decodeMs: number;
  readonly streamDecodeMs: number;
  readonly factsRuns: number[];
  readonly queries: number;
  readonly adviseMs: number;
}

async function syntheticFleet(work: string): Promise<Fleet> {
  const file = join(work, "fleet.json.gz");
  const [{ samples }, writeMs] = await time(() => writeSyntheticReplay(file, { size: SIZE, end: END }));
  log(
    `synthetic replay: ${SIZE} instances, ${samples} samples, ${statSync(file).size} bytes gz in ${ms(writeMs)} ms`,
  );
  return { file, samples, writeMs };
}

/** The replay streamed from the file, then buildFleetFacts over the decoded `api` (3 timed runs) and advise+rank. */
async function rawRead(file: string, api: ReplayApi, decodeMs: number): Promise<RawRead> {
  const [, streamDecodeMs] = await time(() =>
    readReplayApi({
      chunks: () => createReadStream(file, { highWaterMark: 256 * 1024 }),
      whole: async () => readFileSync(file),
    }),
  );
  const opts = replayFactsOptions(api.meta);
  const factsRuns: number[] = [];
  let facts = await buildFleetFacts(api, opts);
  for (let i = 0; i < 3; i++) {
    const [f, t] = await time(() => buildFleetFacts(api, opts));
    facts = f;
    factsRuns.push(t);
  }
  const snap = buildSnapshot({
    fleet: facts,
    rowsOf: webRows,
    metadata: [],
    storeProblem: null,
    fetchedAt: Date.now(),
    fetchMs: 0,
    window: opts.window,
  });
  log(
    `replay: decode ${ms(decodeMs)} ms (streamed from the file: ${ms(streamDecodeMs)} ms), facts ${ms(median(factsRuns))} ms (${facts.queries} queries), advise+rank ${ms(snap.adviseMs)} ms`,
  );
  return { decodeMs, streamDecodeMs, factsRuns, queries: facts.queries, adviseMs: snap.adviseMs };
}

/** The server builds to run side by side (see the module comment), in the order of a round. */
function variantsOf(keptDir: string, keptDirBefore: string): Variant[] {
  if (KEPT)
    return [
      ...(BEFORE
        ? [
            {
              name: "before-first-start" as const,
              web: BEFORE,
              kept: { dataDir: keptDirBefore, clear: true },
            },
            { name: "before-restart" as const, web: BEFORE, kept: { dataDir: keptDirBefore, clear: false } },
          ]
        : []),
      { name: "first-start", web: WEB, kept: { dataDir: keptDir, clear: true } },
      { name: "restart", web: WEB, kept: { dataDir: keptDir, clear: false } },
    ];
  return [
    ...(BEFORE ? [{ name: "before" as const, web: BEFORE }] : []),
    { name: "after", web: WEB },
    ...(HEAP_CAP_MB
      ? [{ name: "after-capped" as const, web: WEB, nodeOptions: `--max-old-space-size=${HEAP_CAP_MB}` }]
      : []),
  ];
}

/** The results file's document for the runs so far. */
function resultsOf(loadBefore: number, fleet: Fleet, raw: RawRead, runs: readonly Run[]) {
  return {
    benchmark: "web console: fleet page and read API over a synthetic 10,000-instance replay",
    when: new Date().toISOString(),
    machine: benchMachine(loadBefore, { chromium: CHROMIUM }),
    source:
      SOURCE === "live"
        ? "live: PROMETHEUS_URL, a Prometheus API answered by the bench process from the synthetic replay (the replay's samples are not in the server)"
        : "replay: UNTORN_REPLAY, the server decodes the synthetic replay and keeps it for the instance charts",
    fleet: {
      instances: SIZE,
      samples: fleet.samples,
      replayBytesGzip: statSync(fleet.file).size,
      memberTemplates: 48,
      writeMs: ms(fleet.writeMs),
    },
    rawReplay: {
      note: "What the console needs from the source, in this process and this build: decode the replay file into a ReplayApi once, then buildFleetFacts (the fleet page's queries answered by ReplayApi).",
      decodeMs: ms(raw.decodeMs),
      streamedDecodeMs: ms(raw.streamDecodeMs),
      buildFleetFactsMs: ms(median(raw.factsRuns)),
      queries: raw.queries,
      adviseAndRankMs: ms(raw.adviseMs),
    },
    goals: {
      firstPageAfterUpMs: 5000,
      tableInteractiveP50Ms: 1000,
      rssMb: 500,
    },
    ratiosAfterOverBefore: BEFORE && !KEPT ? ratios(runs) : null,
    ...(KEPT ? { ratiosRestartOverFirstStart: ratios(runs, "restart", "first-start") } : {}),
    ...(KEPT && BEFORE
      ? {
          ratiosFirstStartAfterOverBefore: ratios(runs, "first-start", "before-first-start"),
          ratiosRestartAfterOverBefore: ratios(runs, "restart", "before-restart"),
        }
      : {}),
    roundsPlanned: ROUNDS,
    heapCapMb: HEAP_CAP_MB,
    runs,
  };
}

/** Errors, non-2xx answers and timeouts of the read API under load, over all runs. */
function failedUnderLoad(runs: readonly Run[]): number {
  return runs
    .flatMap((r) => Object.values((r as { apiUnderLoad?: Record<string, unknown> }).apiUnderLoad ?? {}))
    .filter((x): x is Record<string, number> => typeof x === "object" && x !== null)
    .reduce((n, r) => n + (r.errors ?? 0) + (r.non2xx ?? 0) + (r.timeouts ?? 0), 0);
}

async function main(): Promise<void> {
  const work = mkdtempSync(join(tmpdir(), "untorn-web-bench-"));
  // Other work on the machine skews every number: the load average is recorded beside them.
  const loadBefore = loadavg()[0]!;
  let prom: FakePrometheus | null = null;
  try {
    const fleet = await syntheticFleet(work);
    // ---- raw replay read and advisor work, in this process ----
    const [api, decodeMs] = await time(() => decodeReplayApi(readFileSync(fleet.file)));
    if (SOURCE === "live") {
      prom = await startFakePrometheus(pinnedToRecording(api));
      log(`live source: a Prometheus API over the synthetic replay, in this process, at ${prom.url}`);
    }
    const raw = await rawRead(fleet.file, api, decodeMs);

    // ---- the servers, side by side ----
    const keptDir = join(work, "data-kept");
    const keptDirBefore = join(work, "data-kept-before");
    if (KEPT) {
      // The store is made (migrations) before the runs, so the first run does not pay for it alone.
      const { openStore } = await import("@untorn/store/store");
      for (const dir of BEFORE ? [keptDir, keptDirBefore] : [keptDir])
        await (await openStore({ dataDir: dir })).close();
    }
    const variants = variantsOf(keptDir, keptDirBefore);
    const runs: Run[] = [];
    // Written after every server run: on a loaded machine a run takes minutes, and a stopped bench keeps
    // the runs it finished.
    for (let round = 0; round < ROUNDS; round++) {
      // With KEPT the first round starts first (a restart needs a kept read); then they alternate.
      const order = round % 2 === 0 ? variants : [...variants].reverse();
      for (const v of order) {
        runs.push(await serverRun(v, fleet.file, work, v.name === "after" && round === 0, prom?.url ?? null));
        writeFileSync(RESULTS, `${JSON.stringify(resultsOf(loadBefore, fleet, raw, runs), null, 2)}\n`);
      }
    }
    log(`wrote ${RESULTS}`);
    const errors = failedUnderLoad(runs);
    if (errors > 0) {
      log(`${errors} failed requests under load`);
      process.exitCode = 1;
    }
  } finally {
    await prom?.stop();
    rmSync(work, { recursive: true, force: true });
  }
}

await main();
