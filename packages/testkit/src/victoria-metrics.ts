/**
 * Throwaway VictoriaMetrics single-node (Debian's `victoria-metrics`) and vmalert (same package) for
 * tests: VictoriaMetrics scrapes through -promscrape.config (the same scrape config prometheus gets) and
 * takes history through its import API; vmalert evaluates Prometheus rule files against it and writes the
 * recorded series back, live or over past time (replay).
 *
 * Differences to Prometheus that the helper settles so both backends read alike:
 * - `-search.latencyOffset=0s`: by default VictoriaMetrics answers instant queries near "now" as of 30 s
 *   earlier (data still arriving); 0 makes "now" mean now, as on Prometheus.
 * - `-search.disableCache`: every query is computed from storage (no response cache across a test).
 */
import { writeFile } from "node:fs/promises";
import { join } from "node:path";
import {
  freePort,
  type ManagedProcess,
  makeTempDir,
  removeDir,
  requireBinary,
  spawnManaged,
  waitFor,
} from "./process.js";
import { type PrometheusOptions, renderPrometheusConfig } from "./prometheus.js";

export interface VictoriaMetricsOptions {
  /** Scrape jobs, rendered as prometheus.yml for -promscrape.config (none: no scraping). */
  readonly jobs?: PrometheusOptions["jobs"];
  /** Default "1s", as startPrometheus. */
  readonly scrapeInterval?: string;
  readonly extraArgs?: readonly string[];
  /** Existing data directory to serve (kept on stop, as startPrometheus' storagePath); default a new one. */
  readonly storagePath?: string;
  /** -search.latencyOffset; default "0s" (see above); null leaves VictoriaMetrics' own default (30 s). */
  readonly latencyOffset?: string | null;
}

export interface VictoriaMetrics {
  readonly url: string;
  readonly dir: string;
  /** Imports Prometheus text exposition lines with millisecond timestamps (/api/v1/import/prometheus). */
  importPrometheus(text: string): Promise<void>;
  /** The data directory (storagePath, else inside dir). */
  readonly dataPath: string;
  /** Makes everything imported so far visible to queries. */
  flush(): Promise<void>;
  stop(): Promise<void>;
}

async function ready(name: string, url: string, proc: ManagedProcess): Promise<void> {
  await waitFor(
    `${name} ready on ${url}`,
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited:\n${proc.tail()}`);
      const res = await fetch(`${url}/health`).catch(() => null);
      return res?.ok ?? false;
    },
    { timeoutMs: 30_000, detail: () => proc.tail() },
  );
}

export async function startVictoriaMetrics(opts: VictoriaMetricsOptions = {}): Promise<VictoriaMetrics> {
  const bin = requireBinary("victoria-metrics", "victoria-metrics");
  const dir = await makeTempDir("victoria-metrics");
  const port = await freePort();
  const args = [
    `-httpListenAddr=127.0.0.1:${port}`,
    `-storageDataPath=${opts.storagePath ?? join(dir, "data")}`,
    "-retentionPeriod=100y",
    ...(opts.latencyOffset === null ? [] : [`-search.latencyOffset=${opts.latencyOffset ?? "0s"}`]),
    "-search.disableCache",
    "-loggerLevel=WARN",
  ];
  if (opts.jobs?.length) {
    const config = join(dir, "scrape.yml");
    await writeFile(
      config,
      renderPrometheusConfig({ jobs: opts.jobs, scrapeInterval: opts.scrapeInterval ?? "1s" }, []),
    );
    // The same prometheus.yml: its global evaluation_interval is unknown to -promscrape.config.
    args.push(`-promscrape.config=${config}`, "-promscrape.config.strictParse=false");
  }
  const proc = spawnManaged(bin, [...args, ...(opts.extraArgs ?? [])], {
    logFile: join(dir, "victoria-metrics.log"),
    cwd: dir,
  });
  const url = `http://127.0.0.1:${port}`;
  try {
    await ready("victoria-metrics", url, proc);
  } catch (err) {
    await proc.stop(2000);
    await removeDir(dir);
    throw err;
  }
  const post = async (path: string, body?: string) => {
    const res = await fetch(`${url}${path}`, { method: "POST", ...(body === undefined ? {} : { body }) });
    if (!res.ok)
      throw new Error(`victoria-metrics ${path}: ${res.status} ${(await res.text()).slice(0, 300)}`);
  };
  return {
    url,
    dir,
    dataPath: opts.storagePath ?? join(dir, "data"),
    importPrometheus: (text) => post("/api/v1/import/prometheus", text),
    flush: () =>
      fetch(`${url}/internal/force_flush`).then(async (r) => {
        if (!r.ok) throw new Error(`victoria-metrics force_flush: ${r.status}`);
      }),
    async stop() {
      await proc.stop(10_000);
      await removeDir(dir);
    },
  };
}

export interface VmalertOptions {
  /** VictoriaMetrics to read from and write the recorded series back to. */
  readonly vmUrl: string;
  /** Prometheus rule files (YAML or JSON). */
  readonly ruleFiles: readonly string[];
  /** e.g. "15s". */
  readonly evaluationInterval: string;
}

/**
 * vmalert over past time: evaluates the rules from `from` to `to` (Unix seconds) and writes the results
 * to VictoriaMetrics, then exits (vmalert -replay.*). The backfill counterpart of loading the rules.
 */
export async function replayRules(
  o: VmalertOptions & { from: number; to: number; timeoutMs?: number },
): Promise<void> {
  const bin = requireBinary("vmalert", "victoria-metrics");
  const dir = await makeTempDir("vmalert");
  try {
    const iso = (t: number) => new Date(t * 1000).toISOString();
    const proc = spawnManaged(
      bin,
      [
        ...o.ruleFiles.map((f) => `-rule=${f}`),
        `-datasource.url=${o.vmUrl}`,
        `-remoteWrite.url=${o.vmUrl}`,
        `-evaluationInterval=${o.evaluationInterval}`,
        // The range queries' step: by default 5m, so a replay writes one point per 5 minutes whatever
        // the evaluation interval (a live vmalert evaluates every interval either way).
        `-datasource.queryStep=${o.evaluationInterval}`,
        `-replay.timeFrom=${iso(o.from)}`,
        `-replay.timeTo=${iso(o.to)}`,
        "-replay.disableProgressBar",
        "-replay.rulesDelay=0s",
      ],
      { logFile: join(dir, "vmalert.log"), cwd: dir },
    );
    let timer: NodeJS.Timeout | undefined;
    const code = await Promise.race([
      proc.exited,
      new Promise<string>((r) => {
        timer = setTimeout(() => r("timeout"), o.timeoutMs ?? 240_000);
      }),
    ]).finally(() => clearTimeout(timer));
    if (code !== 0) {
      await proc.stop(2000);
      throw new Error(`vmalert replay ended with ${code}:\n${proc.tail()}`);
    }
  } finally {
    await removeDir(dir);
  }
}

export interface Vmalert {
  readonly url: string;
  stop(): Promise<void>;
}

/** vmalert evaluating the rules live every `evaluationInterval`, writing back to VictoriaMetrics. */
export async function startVmalert(o: VmalertOptions): Promise<Vmalert> {
  const bin = requireBinary("vmalert", "victoria-metrics");
  const dir = await makeTempDir("vmalert");
  const port = await freePort();
  const proc = spawnManaged(
    bin,
    [
      ...o.ruleFiles.map((f) => `-rule=${f}`),
      `-datasource.url=${o.vmUrl}`,
      `-remoteWrite.url=${o.vmUrl}`,
      `-evaluationInterval=${o.evaluationInterval}`,
      `-httpListenAddr=127.0.0.1:${port}`,
    ],
    { logFile: join(dir, "vmalert.log"), cwd: dir },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await ready("vmalert", url, proc);
  } catch (err) {
    await proc.stop(2000);
    await removeDir(dir);
    throw err;
  }
  return {
    url,
    async stop() {
      await proc.stop(10_000);
      await removeDir(dir);
    },
  };
}
