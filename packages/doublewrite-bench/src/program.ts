import { mkdir, writeFile } from "node:fs/promises";
import { cpus, release } from "node:os";
import { join } from "node:path";
import { CliError, EXIT } from "@untorn/cli/errors";
import { type Io, processIo, readJsonFile } from "@untorn/cli/io";
import { runProgram } from "@untorn/cli/program";
import { Progress } from "@untorn/cli/progress";
import { Command } from "commander";
import { readDiskCounters } from "./device.js";
import { type BenchExporter, startBenchExporter } from "./exporter.js";
import { type BenchConfig, type BenchFlags, benchConfig } from "./options.js";
import { markdownReport, textReport } from "./report.js";
import { BenchResult, type BenchRun } from "./result.js";
import { runBench, settingOf } from "./runner.js";
import { type BenchServer, openExisting, openThrowaway } from "./server.js";
import { summarise } from "./summary.js";
import { benchChart } from "./svg.js";
import { sysbenchRun } from "./sysbench.js";

const collect = (v: string, prev: string[] = []) => [...prev, v];

/** `untorn-bench`: sysbench oltp_write_only thread sweep with doublewrite ON and OFF. */
export function buildProgram(io: Io = processIo): Command {
  return new Command("untorn-bench")
    .description(
      "Measure what doublewrite costs: sysbench oltp_write_only over a thread sweep with doublewrite ON and OFF, repeats across restarts, TPS, p95 latency and write ops, bytes and fsyncs per transaction (docs/bench.md). --throwaway starts and restarts its own MariaDB (optionally on an emulated IOPS-limited volume); an existing server is measured as it is, never reconfigured.",
    )
    .option("--throwaway", "start a throwaway MariaDB that untorn owns and restarts with each setting")
    .option("--socket <path>", "existing server: unix socket")
    .option("--host <host>", "existing server: host (password from $UNTORN_MYSQL_PASSWORD or $MYSQL_PWD)")
    .option("--port <n>", "existing server: port (default 3306)")
    .option("--user <name>", "existing server: user (default the OS user)")
    .option("--database <name>", "existing server: database for the sysbench tables (default sbtest)")
    .option(
      "--against <file>",
      "existing server: a bench.json measured with the other doublewrite setting (docs/schemas/bench-result.schema.json)",
    )
    .option("--threads <list>", "thread counts (default 1,4,16,64)")
    .option("--time <duration>", "length of each measured run (default 45s)")
    .option("--warmup <duration>", "warm-up after each (re)start, not measured (default 20s)")
    .option("--repeats <n>", "repeats of the whole sweep; throwaway repeats cross restarts (default 2)")
    .option("--tables <n>", "sysbench tables (default 8)")
    .option("--table-size <n>", "rows per table (default 200000)")
    .option("--rand-type <type>", "uniform, special, gaussian or pareto (default uniform)")
    .option(
      "--rate <tps>",
      "fixed offered load in transactions/s, like production demand (default 0: as fast as possible)",
    )
    .option("--buffer-pool <size>", "throwaway: innodb_buffer_pool_size (default 64M)")
    .option("--flush-log-at-trx-commit <n>", "throwaway: 0, 1 or 2 (default 2)")
    .option("--performance-schema", "throwaway: start with performance_schema on")
    .option("--server-option <name=value>", "throwaway: any other my.cnf option (repeatable)", collect)
    .option(
      "--iops-limit <n>",
      "throwaway: put the datadir on an emulated volume capped at n write IOPS (root, loop devices, cgroup v1 blkio)",
    )
    .option(
      "--meter <16k|256k>",
      "with --iops-limit: 16k charges every 16 KiB as one I/O, 256k counts I/Os up to 256 KiB as one (default 16k)",
    )
    .option("--volume-size <size>", "with --iops-limit: size of the sparse image (default 4G)")
    .option(
      "--exporter-listen <host:port>",
      "throwaway: run untorn-exporter for it on this address, for a Prometheus to scrape",
    )
    .option("--out <dir>", "where bench.json, bench.md and tps.svg go (default ./untorn-bench-<time>)")
    .option("--json", "print the result as JSON instead of the table")
    .option("--quiet", "no progress on stderr")
    .showHelpAfterError("(run with --help for usage)")
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(s) })
    .exitOverride()
    .action(async (flags: BenchFlags) => {
      const cfg = benchConfig(flags, io.env);
      // This run's start, not the merged result's (with --against that is the earlier run's).
      const stamp = new Date()
        .toISOString()
        .replace(/[-:]/g, "")
        .replace(/\.\d+Z$/, "Z");
      const previous = cfg.against ? await readJsonFile(cfg.against, BenchResult, "bench result") : undefined;
      if (previous) checkAgainst(previous, cfg);
      const result = await runCommand(cfg, io, previous);
      const dir = cfg.out ?? `untorn-bench-${stamp}`;
      // Printed first: a full directory or a typo in --out must not lose an hour of runs.
      io.out(cfg.json ? `${JSON.stringify(result, null, 2)}\n` : textReport(result));
      try {
        await mkdir(dir, { recursive: true });
        await writeFile(join(dir, "bench.json"), `${JSON.stringify(result, null, 2)}\n`);
        await writeFile(join(dir, "bench.md"), markdownReport(result, "tps.svg"));
        await writeFile(join(dir, "tps.svg"), benchChart(result));
      } catch (err) {
        throw new CliError(`cannot save the results in ${dir}: ${(err as Error).message}`, EXIT.failure);
      }
      io.err(`saved ${join(dir, "bench.json")}, bench.md and tps.svg\n`);
      const settings = new Set(result.runs.map((r) => r.doublewrite));
      if (result.server.kind === "existing" && settings.size === 1) {
        const now = [...settings][0]!;
        io.err(
          `\nDoublewrite is ${now.toUpperCase()} on this server and untorn never changes it on a server it does not own.\nTo measure the other setting: set innodb_doublewrite=${now === "on" ? "OFF" : "ON"} (a restart on MySQL and on MariaDB before 11.0.6; never OFF without storage that writes pages atomically: \`untorn instance\` shows the safety gate), then run the same command with --against ${join(dir, "bench.json")}\n`,
        );
      }
    });
}

/** Runs the bench and returns the exit code instead of exiting (tests call this directly). */
export function run(argv: readonly string[], io: Io = processIo): Promise<number> {
  return runProgram(buildProgram(io), argv, io);
}

async function runCommand(cfg: BenchConfig, io: Io, previous: BenchResult | undefined): Promise<BenchResult> {
  const progress = new Progress(io, cfg.quiet, 0);
  const abort = new AbortController();
  const onSignal = (sig: NodeJS.Signals) => {
    io.err(`\n${sig}: stopping sysbench, cleaning up\n`);
    abort.abort(new CliError(`interrupted (${sig})`, EXIT.failure));
  };
  process.once("SIGINT", onSignal);
  process.once("SIGTERM", onSignal);
  const startedAt = new Date().toISOString();
  let server: BenchServer | undefined;
  let exporter: BenchExporter | undefined;
  try {
    progress.step(cfg.throwaway ? "starting a throwaway MariaDB" : "connecting");
    server = cfg.throwaway
      ? await openThrowaway({ ...cfg.throwaway, firstDoublewrite: true })
      : await openExisting(cfg.existing!);
    if (cfg.exporterListen) {
      progress.step(`starting untorn-exporter on ${cfg.exporterListen}`);
      exporter = await startBenchExporter(cfg.exporterListen, server.target.socket!);
    }
    progress.step(`loading ${cfg.workload.tables} sysbench tables of ${cfg.workload.tableSize} rows`);
    if (previous) {
      const now = settingOf((await server.info()).doublewrite);
      if (previous.runs.some((r) => r.doublewrite === now))
        throw new CliError(
          `--against ${cfg.against} has runs with doublewrite ${now.toUpperCase()}, the setting this server has now: give the result of the other setting`,
          EXIT.usage,
        );
    }
    const prepared = await server.prepare(cfg.workload, abort.signal);
    const s = server;
    const out = await runBench(
      {
        server: s,
        sysbench: (threads, seconds, signal) => sysbenchRun(s.target, cfg.workload, threads, seconds, signal),
        readDisk: readDiskCounters,
        progress: (m) => progress.step(m),
        signal: abort.signal,
      },
      cfg,
    );
    return assemble(cfg, s, out, startedAt, prepared, previous);
  } catch (err) {
    if (abort.signal.aborted) throw abort.signal.reason;
    throw err instanceof CliError ? err : new CliError((err as Error).message, EXIT.failure);
  } finally {
    process.off("SIGINT", onSignal);
    process.off("SIGTERM", onSignal);
    progress.step("cleaning up");
    const errors: string[] = [];
    await exporter?.stop().catch((e: Error) => errors.push(e.message));
    await server?.close().catch((e: Error) => errors.push(e.message));
    progress.done();
    for (const e of errors) io.err(`warning: ${e}\n`);
  }
}

/** The --against result must come from the same workload (the setting is checked once connected). */
function checkAgainst(previous: BenchResult, cfg: BenchConfig): void {
  const w = previous.workload;
  for (const [k, a, b] of [
    ["tables", w.tables, cfg.workload.tables],
    ["table size", w.tableSize, cfg.workload.tableSize],
    ["rand type", w.randType, cfg.workload.randType],
    ["rate", w.rate, cfg.workload.rate],
  ] as const) {
    if (a !== b)
      throw new CliError(
        `--against ${cfg.against} used ${k} ${a}, this run ${b}: the workloads differ`,
        EXIT.usage,
      );
  }
}

function assemble(
  cfg: BenchConfig,
  server: BenchServer,
  out: Awaited<ReturnType<typeof runBench>>,
  startedAt: string,
  prepared: "created" | "present",
  previous: BenchResult | undefined,
): BenchResult {
  const { info } = out;
  const notes: string[] = [];
  let runs: BenchRun[] = out.runs;
  if (previous) {
    const w = previous.workload;
    if (w.seconds !== cfg.seconds || w.warmupSeconds !== cfg.warmupSeconds)
      notes.push(
        `the --against runs lasted ${w.seconds} s after ${w.warmupSeconds} s warm-up, these ${cfg.seconds} s after ${cfg.warmupSeconds} s`,
      );
    notes.push(
      `${[...new Set(previous.runs.map((r) => r.doublewrite.toUpperCase()))].join("/")} runs from ${cfg.against} (${previous.startedAt}); the server was restarted in between, so the settings differ by one restart each`,
    );
    runs = [...previous.runs, ...runs];
  }
  if (cfg.repeats < 2)
    notes.push(
      "one repeat: a verdict from one run is not a verdict (docs/reference/iops-metering.md §11); use --repeats 2 or more",
    );
  if (server.kind === "existing")
    notes.push(
      "repeats ran back to back without restarts (untorn does not restart a server it does not own); noise across restarts is larger (docs/reference/iops-metering.md §11)",
    );
  if (prepared === "present")
    notes.push(`used the sysbench tables already in ${server.target.database}; their size was not checked`);
  if (server.volume)
    notes.push(
      `datadir on ${server.volume.device} (ext4, 16 KiB bigalloc clusters), writes capped at ${server.writeIops} IOPS for mariadbd and its io_uring workers; the cap is lifted while tables load and while the server restarts`,
    );
  if (out.device === undefined) notes.push("device counters unavailable (the datadir is not on this host)");
  if (info.mdev31124)
    notes.push("Innodb_data_written corrected for MDEV-31124 (docs/reference/status-counters.md §4)");
  if (cfg.workload.rate > 0)
    notes.push(
      `fixed offered load of ${cfg.workload.rate} transactions/s: TPS follows demand, the per-transaction costs show the effect`,
    );
  if (info.flushLogAtTrxCommit === 1)
    notes.push(
      "flush_log_at_trx_commit=1: redo fsyncs at every commit dominate fsyncs/trx and hide doublewrite's (docs/reference/iops-metering.md §11)",
    );
  return {
    version: 1,
    startedAt: previous?.startedAt ?? startedAt,
    finishedAt: new Date().toISOString(),
    server: {
      kind: server.kind,
      label: server.label,
      flavor: info.flavor,
      version: info.version,
      pageSize: info.pageSize,
      bufferPoolBytes: info.bufferPoolBytes,
      flushLogAtTrxCommit: info.flushLogAtTrxCommit,
      flushMethod: info.flushMethod,
      mdev31124: info.mdev31124,
      restartsBetweenRepeats: server.kind === "throwaway",
    },
    volume: server.volume
      ? {
          writeIops: server.writeIops,
          meterKiB: server.volume.meterKiB,
          sizeMiB: cfg.throwaway?.throttle?.sizeMiB ?? 0,
          device: server.volume.device,
        }
      : null,
    workload: {
      test: "oltp_write_only",
      ...cfg.workload,
      threads: [...new Set([...(previous?.workload.threads ?? []), ...cfg.threads])].sort((a, b) => a - b),
      seconds: cfg.seconds,
      warmupSeconds: cfg.warmupSeconds,
      repeats: cfg.repeats,
    },
    machine: { cpus: cpus().length, kernel: release(), node: process.version },
    exporter: cfg.exporterListen ? { address: cfg.exporterListen } : null,
    runs,
    summary: summarise(runs),
    notes,
  };
}
