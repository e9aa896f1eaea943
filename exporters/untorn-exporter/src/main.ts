#!/usr/bin/env -S node --max-semi-space-size=1
// Each scrape allocates a few MB that die young; with V8's default the young generation grows to 3 x 16 MB
// over the first thousand scrapes and RSS creeps up with it. 1 MB semi-spaces keep the daemon small and
// flat (BENCHMARKS.md). Every entry point (bin, npm start, Dockerfile, testkit) passes the same flag.
import { COLLECTORS } from "./collectors/index.js";
import { ConfigError, loadConfig, usage } from "./config.js";
import { createLogger } from "./log.js";
import { createExporterServer, VERSION } from "./server.js";
import { runStorageFacts, takeOutputFlag } from "./storage-facts.js";

const STORAGE_FACTS_USAGE = `usage: untorn-exporter storage-facts --output <file>.prom [flags]

Writes the datadir's storage facts (device, file system, bigalloc cluster size, atomic-write limits) once,
in node_exporter's textfile-collector format (written beside the file, then renamed), and exits: 0 when the
datadir was found, 1 when it is not visible from here, 2 for a bad flag. Run it from a systemd timer or
cron into node_exporter's --collector.textfile.directory.

The datadir: --host.datadir if given (no database connection then), else the server's @@datadir, asked
with the same flags as the exporter (--mysqld.address, --mysqld.username, --config.my-cnf, ...).
--host.root as for the exporter.`;

async function storageFacts(argv: readonly string[]): Promise<void> {
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${STORAGE_FACTS_USAGE}\n`);
    return;
  }
  try {
    const { output, rest } = takeOutputFlag(argv);
    // biome-ignore lint/style/noProcessEnv: the entry point hands the environment to config.ts, which validates every setting
    const cfg = loadConfig(rest, process.env, COLLECTORS);
    process.exitCode = await runStorageFacts(cfg, output);
  } catch (err) {
    process.stderr.write(`untorn-exporter storage-facts: ${(err as Error).message}\n`);
    process.exitCode = err instanceof ConfigError ? 2 : 1;
  }
}

function main(): void {
  const argv = process.argv.slice(2);
  if (argv[0] === "storage-facts") {
    void storageFacts(argv.slice(1));
    return;
  }
  if (argv.includes("--help") || argv.includes("-h")) {
    process.stdout.write(`${usage(COLLECTORS)}\n`);
    return;
  }
  if (argv.includes("--version")) {
    process.stdout.write(`untorn-exporter ${VERSION} (node ${process.version})\n`);
    return;
  }
  let cfg: ReturnType<typeof loadConfig>;
  try {
    // biome-ignore lint/style/noProcessEnv: the entry point hands the environment to config.ts, which validates every setting
    cfg = loadConfig(argv, process.env, COLLECTORS);
  } catch (err) {
    if (err instanceof ConfigError) {
      process.stderr.write(`untorn-exporter: ${err.message}\n`);
      process.exit(2);
    }
    throw err;
  }
  const log = createLogger(cfg.logLevel, cfg.logFormat);
  const exporter = createExporterServer(cfg, log, COLLECTORS);
  exporter.server.on("error", (err) => {
    log.error("cannot listen", { address: `${cfg.listenHost ?? ""}:${cfg.listenPort}`, err: err.message });
    process.exit(1);
  });
  exporter.server.listen(cfg.listenPort, cfg.listenHost, () => {
    log.info("listening", {
      address: `${cfg.listenHost ?? ""}:${exporter.port()}`,
      tls: Boolean(cfg.web.tls),
      basic_auth: Boolean(cfg.web.basicAuthUsers),
      target: cfg.target.address,
      user: cfg.target.user,
      collectors: cfg.collectors.map((c) => c.name).join(","),
    });
  });
  const shutdown = (signal: string) => {
    log.info("shutting down", { signal });
    const force = setTimeout(() => process.exit(0), 5000);
    force.unref();
    void exporter.close().then(() => process.exit(0));
  };
  process.on("SIGTERM", () => shutdown("SIGTERM"));
  process.on("SIGINT", () => shutdown("SIGINT"));
  // A bug in one scrape must not take the exporter down.
  process.on("unhandledRejection", (err) => log.error("unhandled rejection", { err: String(err) }));
}

main();
