import { copyFile, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { freePort, makeTempDir, removeDir, requireBinary, spawnManaged, waitFor } from "./process.js";

export interface ScrapeJob {
  jobName: string;
  targets: string[];
  metricsPath?: string;
  params?: Record<string, string[]>;
  /** e.g. "1s". Defaults to the global interval. */
  scrapeInterval?: string;
  scrapeTimeout?: string;
  /** Extra labels on every target of this job (e.g. { instance: "db1" } via relabeling is not needed). */
  labels?: Record<string, string>;
}

export interface PrometheusOptions {
  jobs: ScrapeJob[];
  /** Default "1s": tests want data quickly. */
  scrapeInterval?: string;
  evaluationInterval?: string;
  /** Rule files to load (copied into the instance dir). */
  ruleFiles?: string[];
  /** Existing TSDB path (e.g. backfilled blocks); default a fresh temp dir. */
  storagePath?: string;
  /** Alertmanagers (host:port) the alerting rules notify. */
  alertmanagers?: string[];
  extraArgs?: string[];
}

export interface PromSample {
  metric: Record<string, string>;
  value: [number, string];
}

export interface Prometheus {
  readonly url: string;
  readonly dir: string;
  readonly configFile: string;
  /** Instant query; throws on an API error. */
  query(expr: string, time?: number): Promise<PromSample[]>;
  /** Waits until `expr` returns at least one sample, then returns them. */
  waitForSeries(expr: string, timeoutMs?: number): Promise<PromSample[]>;
  stop(): Promise<void>;
}

function yamlString(s: string): string {
  return JSON.stringify(s);
}

/** Renders prometheus.yml (JSON is valid YAML, so every value is quoted JSON). */
export function renderPrometheusConfig(opts: PrometheusOptions, ruleFileNames: string[]): string {
  const lines = [
    "global:",
    `  scrape_interval: ${yamlString(opts.scrapeInterval ?? "1s")}`,
    `  evaluation_interval: ${yamlString(opts.evaluationInterval ?? opts.scrapeInterval ?? "1s")}`,
  ];
  if (ruleFileNames.length) {
    lines.push("rule_files:");
    for (const f of ruleFileNames) lines.push(`  - ${yamlString(f)}`);
  }
  if (opts.alertmanagers?.length) {
    lines.push("alerting:", "  alertmanagers:", "    - static_configs:");
    lines.push(`        - targets: ${JSON.stringify(opts.alertmanagers)}`);
  }
  lines.push("scrape_configs:");
  for (const job of opts.jobs) {
    lines.push(`  - job_name: ${yamlString(job.jobName)}`);
    if (job.metricsPath) lines.push(`    metrics_path: ${yamlString(job.metricsPath)}`);
    if (job.scrapeInterval) lines.push(`    scrape_interval: ${yamlString(job.scrapeInterval)}`);
    if (job.scrapeTimeout) lines.push(`    scrape_timeout: ${yamlString(job.scrapeTimeout)}`);
    if (job.params) lines.push(`    params: ${JSON.stringify(job.params)}`);
    lines.push("    static_configs:");
    lines.push(`      - targets: ${JSON.stringify(job.targets)}`);
    if (job.labels) lines.push(`        labels: ${JSON.stringify(job.labels)}`);
  }
  return `${lines.join("\n")}\n`;
}

/** Starts a real prometheus with a generated config on a free port. */
export async function startPrometheus(opts: PrometheusOptions): Promise<Prometheus> {
  const bin = requireBinary("prometheus", "prometheus");
  const dir = await makeTempDir("prometheus");
  const port = await freePort();
  const ruleNames: string[] = [];
  for (const [i, f] of (opts.ruleFiles ?? []).entries()) {
    const name = `rules-${i}-${basename(f)}`;
    await copyFile(f, join(dir, name));
    ruleNames.push(name);
  }
  const configFile = join(dir, "prometheus.yml");
  await writeFile(configFile, renderPrometheusConfig(opts, ruleNames));
  const proc = spawnManaged(
    bin,
    [
      `--config.file=${configFile}`,
      `--storage.tsdb.path=${opts.storagePath ?? join(dir, "data")}`,
      `--web.listen-address=127.0.0.1:${port}`,
      "--web.enable-admin-api",
      "--storage.tsdb.retention.time=30d",
      ...(opts.extraArgs ?? []),
    ],
    { logFile: join(dir, "prometheus.log"), cwd: dir },
  );
  const url = `http://127.0.0.1:${port}`;
  try {
    await waitFor(
      `prometheus ready on ${url}`,
      async () => {
        if (proc.child.exitCode !== null) throw new Error(`prometheus exited:\n${proc.tail()}`);
        const res = await fetch(`${url}/-/ready`);
        return res.ok;
      },
      { timeoutMs: 30_000, detail: () => proc.tail() },
    );
  } catch (err) {
    await proc.stop(2000);
    await removeDir(dir);
    throw err;
  }

  const query = async (expr: string, time?: number): Promise<PromSample[]> => {
    const params = new URLSearchParams({ query: expr });
    if (time !== undefined) params.set("time", String(time));
    const res = await fetch(`${url}/api/v1/query?${params}`);
    const body = (await res.json()) as { status: string; error?: string; data?: { result: PromSample[] } };
    if (body.status !== "success") throw new Error(`query ${expr} failed: ${body.error ?? res.status}`);
    return body.data?.result ?? [];
  };

  return {
    url,
    dir,
    configFile,
    query,
    waitForSeries: (expr, timeoutMs = 30_000) =>
      waitFor(
        `series for ${expr}`,
        async () => {
          const r = await query(expr);
          return r.length > 0 ? r : undefined;
        },
        { timeoutMs, intervalMs: 250 },
      ),
    async stop() {
      await proc.stop(10_000);
      await removeDir(dir);
    },
  };
}
