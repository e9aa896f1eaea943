import { execFile } from "node:child_process";
import { join } from "node:path";
import { promisify } from "node:util";
import type { MariaDb } from "./mariadb.js";
import { type ManagedProcess, requireBinary, spawnManaged } from "./process.js";

const run = promisify(execFile);

export interface SysbenchTarget {
  socket: string;
  user: string;
  password?: string;
  database?: string;
}

export interface SysbenchOptions {
  tables?: number;
  tableSize?: number;
  threads?: number;
  /** Seconds. */
  time?: number;
  randType?: "uniform" | "special" | "gaussian" | "pareto";
  /** The sysbench Lua test, default oltp_write_only. */
  test?: string;
  /** Target transactions per second (sysbench --rate; 0 or absent = as fast as it can). */
  rate?: number;
}

export interface SysbenchResult {
  transactions: number;
  tps: number;
  qps: number;
  errors: number;
  latencyAvgMs: number;
  latencyP95Ms: number;
  seconds: number;
}

function baseArgs(t: SysbenchTarget, o: SysbenchOptions): string[] {
  return [
    o.test ?? "oltp_write_only",
    "--db-driver=mysql",
    `--mysql-socket=${t.socket}`,
    `--mysql-user=${t.user}`,
    ...(t.password ? [`--mysql-password=${t.password}`] : []),
    `--mysql-db=${t.database ?? "sbtest"}`,
    `--tables=${o.tables ?? 4}`,
    `--table-size=${o.tableSize ?? 10_000}`,
    `--rand-type=${o.randType ?? "uniform"}`,
    "--db-ps-mode=disable",
    "--mysql-ignore-errors=1213,1205,1020",
    ...(o.rate ? [`--rate=${o.rate}`] : []),
  ];
}

/** Parses the summary sysbench 1.0 prints at the end of `run`. */
export function parseSysbenchOutput(text: string): SysbenchResult {
  const num = (re: RegExp, what: string): number => {
    const m = re.exec(text);
    if (!m?.[1]) throw new Error(`sysbench output has no ${what}:\n${text.slice(-2000)}`);
    return Number(m[1]);
  };
  return {
    transactions: num(/transactions:\s+(\d+)/, "transactions"),
    tps: num(/transactions:\s+\d+\s+\(([\d.]+) per sec/, "transactions per second"),
    qps: num(/queries:\s+\d+\s+\(([\d.]+) per sec/, "queries per second"),
    errors: num(/ignored errors:\s+(\d+)/, "ignored errors"),
    latencyAvgMs: num(/avg:\s+([\d.]+)/, "average latency"),
    latencyP95Ms: num(/95th percentile:\s+([\d.]+)/, "95th percentile latency"),
    seconds: num(/total time:\s+([\d.]+)s/, "total time"),
  };
}

export function targetOf(db: MariaDb, database = "sbtest"): SysbenchTarget {
  return { socket: db.socket, user: db.user, password: db.password, database };
}

/** Creates the database (if missing) and the sysbench tables. */
export async function prepareSysbench(db: MariaDb, opts: SysbenchOptions = {}): Promise<void> {
  const sysbench = requireBinary("sysbench", "sysbench");
  const target = targetOf(db);
  await db.query(`CREATE DATABASE IF NOT EXISTS \`${target.database}\``);
  await run(sysbench, [...baseArgs(target, opts), "--threads=4", "prepare"], { maxBuffer: 16 << 20 });
}

/** Runs a load for `time` seconds and returns the parsed summary. */
export async function runSysbench(
  target: SysbenchTarget,
  opts: SysbenchOptions = {},
): Promise<SysbenchResult> {
  const sysbench = requireBinary("sysbench", "sysbench");
  const time = opts.time ?? 5;
  const { stdout } = await run(
    sysbench,
    [...baseArgs(target, opts), `--threads=${opts.threads ?? 4}`, `--time=${time}`, "--percentile=95", "run"],
    { maxBuffer: 16 << 20, timeout: (time + 60) * 1000 },
  );
  return parseSysbenchOutput(stdout);
}

/** Starts a load in the background (`time` 0 = until stopped). */
export function startSysbenchLoad(
  target: SysbenchTarget,
  logDir: string,
  opts: SysbenchOptions = {},
): ManagedProcess {
  const sysbench = requireBinary("sysbench", "sysbench");
  return spawnManaged(
    sysbench,
    [...baseArgs(target, opts), `--threads=${opts.threads ?? 4}`, `--time=${opts.time ?? 0}`, "run"],
    { logFile: join(logDir, `sysbench-${Date.now()}.log`) },
  );
}
