// `untorn-exporter storage-facts --output <file>.prom`: the host facts only a process on the database host
// can read (the datadir's device, file system, bigalloc cluster size, sysfs atomic-write limits), written
// once in node_exporter's textfile-collector format, for a systemd timer or cron. With it a central
// exporter scrapes the server over SQL (/probe) and node_exporter serves these: no resident Untorn process
// on the database host. The I/O counters and the in-flight count stay out: a snapshot taken every few
// minutes is no counter (node_exporter's diskstats has them).
import { rename, rm, writeFile } from "node:fs/promises";
import { basename, dirname, join } from "node:path";
import { metrics } from "@untorn/catalog/metrics";
import { Counter, Registry } from "prom-client";
import { Emitter, type ServerFacts } from "./collector.js";
import { createHostStorage } from "./collectors/host-storage.js";
import type { Config } from "./config.js";
import { TargetPool } from "./db.js";
import { ConfigError } from "./errors.js";
import { nodeHostFs } from "./host/host-fs.js";
import { serverFacts } from "./scrape.js";

/** Takes `--output <file>` / `--output=<file>` out of argv; the rest are the exporter's own flags. */
export function takeOutputFlag(argv: readonly string[]): { output: string; rest: string[] } {
  const rest: string[] = [];
  let output: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i]!;
    if (a === "--output") {
      output = argv[++i];
      if (output === undefined || output.startsWith("--"))
        throw new ConfigError("flag --output needs a value");
    } else if (a.startsWith("--output=")) output = a.slice("--output=".length);
    else rest.push(a);
  }
  if (!output) throw new ConfigError("storage-facts needs --output <file>.prom");
  if (!output.endsWith(".prom"))
    throw new ConfigError(
      `--output ${output} must end in .prom (node_exporter's textfile collector reads only those)`,
    );
  return { output, rest };
}

async function datadirFacts(cfg: Config): Promise<ServerFacts> {
  if (cfg.datadirOverride) {
    return {
      flavor: "mysql",
      version: "",
      versionNumber: [0, 0, 0],
      versionComment: "",
      datadir: cfg.datadirOverride,
      pageSize: 16384,
      performanceSchema: false,
    };
  }
  const pool = new TargetPool(cfg.target, 2);
  try {
    return await serverFacts(pool.queryable(Date.now() + cfg.collectorTimeoutS * 1000));
  } catch (err) {
    throw new Error(
      `cannot ask ${cfg.target.address} for its datadir (${(err as Error).message}); give --host.datadir instead`,
    );
  } finally {
    await pool.close();
  }
}

/** The textfile: host.storage's gauges (no counters), as node_exporter expects them. */
export async function storageFactsText(cfg: Config): Promise<{ text: string; visible: boolean }> {
  const facts = await datadirFacts(cfg);
  const registry = new Registry();
  const controller = new AbortController();
  const timer = setTimeout(() => controller.abort(), cfg.collectorTimeoutS * 1000);
  try {
    await createHostStorage(nodeHostFs).collect({
      db: {
        query: () => Promise.reject(new Error("storage-facts reads no database")),
      },
      server: facts,
      emit: new Emitter(registry),
      host: cfg.host,
      signal: controller.signal,
      memory: new Map(),
    });
  } finally {
    clearTimeout(timer);
  }
  // Counters and the in-flight gauge describe a moment, not the host: node_exporter's diskstats has them.
  for (const m of registry.getMetricsAsArray()) {
    if (m instanceof Counter || m.name === metrics.storageIoInProgress.name)
      registry.removeSingleMetric(m.name);
  }
  const visible =
    (await registry.getSingleMetric(metrics.storageDatadirVisible.name)?.get())?.values[0]?.value === 1;
  return { text: await registry.metrics(), visible };
}

/** Writes next to the target and renames: node_exporter never reads half a file. */
export async function writeAtomically(path: string, text: string): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.${process.pid}.tmp`);
  try {
    await writeFile(tmp, text, { mode: 0o644 });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true });
    throw err;
  }
}

/** The subcommand; resolves to the exit code. */
export async function runStorageFacts(cfg: Config, output: string): Promise<number> {
  const { text, visible } = await storageFactsText(cfg);
  await writeAtomically(output, text);
  if (!visible) {
    process.stderr.write(
      `untorn-exporter storage-facts: the datadir is not visible from here (wrote ${output} with datadir_visible 0); check --host.root and --host.datadir\n`,
    );
    return 1;
  }
  return 0;
}
