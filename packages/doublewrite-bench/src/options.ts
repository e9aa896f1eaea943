/** `untorn-bench` flags → a validated configuration; every message names the flag. */
import { userInfo } from "node:os";
import { CliError, describeIssues, EXIT } from "@untorn/cli/errors";
import { InvalidDurationError, parseDuration } from "@untorn/prom/duration";
import type { OptionValue } from "@untorn/testkit/mariadb";
import { z } from "zod";
import type { ExistingConfig, ThrowawayConfig } from "./server.js";
import type { Workload } from "./sysbench.js";

export interface BenchFlags {
  throwaway?: boolean;
  socket?: string;
  host?: string;
  port?: string;
  user?: string;
  database?: string;
  threads?: string;
  time?: string;
  warmup?: string;
  repeats?: string;
  tables?: string;
  tableSize?: string;
  randType?: string;
  rate?: string;
  bufferPool?: string;
  flushLogAtTrxCommit?: string;
  performanceSchema?: boolean;
  serverOption?: string[];
  iopsLimit?: string;
  meter?: string;
  volumeSize?: string;
  exporterListen?: string;
  against?: string;
  out?: string;
  json?: boolean;
  quiet?: boolean;
}

export interface BenchConfig {
  throwaway?: Omit<ThrowawayConfig, "firstDoublewrite">;
  existing?: ExistingConfig;
  exporterListen?: string;
  workload: Workload;
  threads: number[];
  seconds: number;
  warmupSeconds: number;
  repeats: number;
  against?: string;
  out?: string;
  json: boolean;
  quiet: boolean;
}

const usage = (m: string) => new CliError(m, EXIT.usage);

function int(flag: string, text: string | undefined, def: number, min: number, max: number): number {
  if (text === undefined) return def;
  const n = Number(text);
  if (!/^\d+$/.test(text.trim()) || n < min || n > max)
    throw usage(`${flag} ${JSON.stringify(text)}: expected a whole number from ${min} to ${max}`);
  return n;
}

/** Whole seconds: a PromQL duration ("45s", "2m") or a bare number of seconds. */
function seconds(flag: string, text: string | undefined, def: number, min: number): number {
  if (text === undefined) return def;
  let s: number;
  if (/^\d+$/.test(text)) s = Number(text);
  else {
    try {
      s = parseDuration(text) / 1000;
    } catch (err) {
      if (err instanceof InvalidDurationError) throw usage(`${flag} ${JSON.stringify(text)}: ${err.message}`);
      throw err;
    }
  }
  if (!Number.isInteger(s) || s < min)
    throw usage(`${flag} ${JSON.stringify(text)}: expected whole seconds ≥ ${min}`);
  return s;
}

/** MariaDB size syntax: 64M, 1G, 512K or bytes. */
const SIZE = /^(\d+)([KMG]?)$/i;
function size(flag: string, text: string, minBytes: number): number {
  const m = SIZE.exec(text.trim());
  if (!m) throw usage(`${flag} ${JSON.stringify(text)}: expected a size such as 64M or 1G`);
  const bytes = Number(m[1]) * 1024 ** " KMG".indexOf((m[2] || " ").toUpperCase());
  if (bytes < minBytes) throw usage(`${flag} ${text}: at least ${minBytes / 1048576} MiB`);
  return bytes;
}

export function parseThreads(text: string | undefined): number[] {
  if (text === undefined) return [1, 4, 16, 64];
  const parts = text.split(",").map((s) => s.trim());
  const out = parts.map((p) => {
    const n = Number(p);
    if (!/^\d+$/.test(p) || n < 1 || n > 4096)
      throw usage(`--threads ${JSON.stringify(text)}: expected thread counts from 1 to 4096, e.g. 1,4,16,64`);
    return n;
  });
  return [...new Set(out)].sort((a, b) => a - b);
}

/** --meter: 16k (every 16 KiB is one I/O) or 256k (I/Os up to 256 KiB count as one), in KiB. */
export function parseMeter(text: string | undefined): number {
  if (text === undefined) return 16;
  const m = /^(\d+)k?$/i.exec(text.trim());
  const kib = Number(m?.[1]);
  if (!m || kib < 4 || kib > 1024 || (kib & (kib - 1)) !== 0)
    throw usage(
      `--meter ${JSON.stringify(text)}: expected a power of two in KiB from 4k to 1024k, e.g. 16k or 256k`,
    );
  return kib;
}

const ServerOption = z
  .string()
  .regex(/^[a-z_][a-z0-9_-]*=.+$/i, "expected name=value, e.g. innodb_io_capacity=1000");

function serverOptions(list: readonly string[] = []): Record<string, OptionValue> {
  const out: Record<string, OptionValue> = {};
  for (const item of list) {
    const r = ServerOption.safeParse(item);
    if (!r.success) throw usage(`--server-option ${JSON.stringify(item)}: ${r.error.issues[0]?.message}`);
    const eq = item.indexOf("=");
    out[item.slice(0, eq).replace(/-/g, "_")] = item.slice(eq + 1);
  }
  return out;
}

const ADDRESS = /^(\[[0-9a-f:]+\]|[a-z0-9.-]+):(\d{1,5})$/i;

const BenchEnv = z.object({
  UNTORN_MYSQL_PASSWORD: z.string().optional(),
  MYSQL_PWD: z.string().optional(),
});

/** The password for an existing server: $UNTORN_MYSQL_PASSWORD, else $MYSQL_PWD (never a flag). */
export function passwordFromEnv(env: NodeJS.ProcessEnv): string {
  const r = BenchEnv.safeParse(env);
  if (!r.success) throw usage(`invalid environment:\n${describeIssues(r.error.issues)}`);
  return r.data.UNTORN_MYSQL_PASSWORD ?? r.data.MYSQL_PWD ?? "";
}

const THROWAWAY_ONLY = [
  ["bufferPool", "--buffer-pool"],
  ["flushLogAtTrxCommit", "--flush-log-at-trx-commit"],
  ["performanceSchema", "--performance-schema"],
  ["serverOption", "--server-option"],
  ["iopsLimit", "--iops-limit"],
  ["meter", "--meter"],
  ["volumeSize", "--volume-size"],
  ["exporterListen", "--exporter-listen"],
] as const;

export function benchConfig(f: BenchFlags, env: NodeJS.ProcessEnv): BenchConfig {
  const existing = f.socket !== undefined || f.host !== undefined;
  if (!f.throwaway && !existing) {
    throw usage(
      "give --throwaway (a server untorn starts, owns and restarts with doublewrite ON and OFF) or --socket/--host (an existing server, measured as it is)",
    );
  }
  if (f.throwaway && existing) throw usage("give either --throwaway or --socket/--host, not both");
  if (f.socket !== undefined && f.host !== undefined) throw usage("give either --socket or --host, not both");

  const threads = parseThreads(f.threads);
  const workload: Workload = {
    tables: int("--tables", f.tables, 8, 1, 1024),
    tableSize: int("--table-size", f.tableSize, 200_000, 1, 1_000_000_000),
    randType: f.randType ?? "uniform",
    rate: int("--rate", f.rate, 0, 0, 10_000_000),
  };
  if (!["uniform", "special", "gaussian", "pareto"].includes(workload.randType))
    throw usage(`--rand-type ${JSON.stringify(f.randType)}: expected uniform, special, gaussian or pareto`);
  const base = {
    workload,
    threads,
    seconds: seconds("--time", f.time, 45, 1),
    warmupSeconds: seconds("--warmup", f.warmup, 20, 0),
    repeats: int("--repeats", f.repeats, 2, 1, 100),
    json: Boolean(f.json),
    quiet: Boolean(f.quiet),
    ...(f.out !== undefined ? { out: f.out } : {}),
  };

  if (existing) {
    for (const [key, flag] of THROWAWAY_ONLY) {
      if (f[key] !== undefined)
        throw usage(`${flag} is for --throwaway only: untorn does not reconfigure a server it does not own`);
    }
    const database = f.database ?? "sbtest";
    if (!/^[A-Za-z0-9_$]{1,64}$/.test(database))
      throw usage(`--database ${JSON.stringify(database)}: letters, digits, _ and $ only`);
    return {
      ...base,
      existing: {
        ...(f.socket !== undefined
          ? { socket: f.socket }
          : { host: f.host!, port: int("--port", f.port, 3306, 1, 65535) }),
        user: f.user ?? userInfo().username,
        password: passwordFromEnv(env),
        database,
      },
      ...(f.against !== undefined ? { against: f.against } : {}),
    };
  }

  for (const [value, flag] of [
    [f.user, "--user"],
    [f.port, "--port"],
    [f.database, "--database"],
    [f.against, "--against"],
  ] as const) {
    if (value !== undefined)
      throw usage(`${flag} is for an existing server (--socket/--host), not --throwaway`);
  }
  if (f.iopsLimit === undefined && (f.meter !== undefined || f.volumeSize !== undefined))
    throw usage("--meter and --volume-size describe the emulated volume: give --iops-limit too");
  const bufferPool = f.bufferPool ?? "64M";
  size("--buffer-pool", bufferPool, 5 * 1048576);
  const flushText = f.flushLogAtTrxCommit ?? "2";
  if (!["0", "1", "2"].includes(flushText))
    throw usage(`--flush-log-at-trx-commit ${flushText}: expected 0, 1 or 2`);
  if (f.exporterListen !== undefined && !ADDRESS.test(f.exporterListen))
    throw usage(
      `--exporter-listen ${JSON.stringify(f.exporterListen)}: expected host:port, e.g. 127.0.0.1:9105`,
    );
  const throttle =
    f.iopsLimit === undefined
      ? undefined
      : {
          writeIops: int("--iops-limit", f.iopsLimit, 0, 1, 10_000_000),
          meterKiB: parseMeter(f.meter),
          sizeMiB: size("--volume-size", f.volumeSize ?? "4G", 256 * 1048576) / 1048576,
        };
  return {
    ...base,
    throwaway: {
      bufferPool,
      flushLogAtTrxCommit: Number(flushText) as 0 | 1 | 2,
      performanceSchema: Boolean(f.performanceSchema),
      extra: serverOptions(f.serverOption),
      ...(throttle ? { throttle } : {}),
    },
    ...(f.exporterListen !== undefined ? { exporterListen: f.exporterListen } : {}),
  };
}
