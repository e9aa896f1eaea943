/** sysbench oltp_write_only against a socket or host:port (testkit's runner knows sockets only). */
import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { requireBinary } from "@untorn/testkit/process";
import { parseSysbenchOutput, type SysbenchResult } from "@untorn/testkit/sysbench";

const run = promisify(execFile);

export interface DbTarget {
  socket?: string;
  host?: string;
  port?: number;
  user: string;
  password: string;
  database: string;
}

export interface Workload {
  tables: number;
  tableSize: number;
  randType: string;
  /** sysbench --rate (transactions/s offered); 0 = closed loop, as fast as the server goes. */
  rate: number;
}

export function sysbenchArgs(t: DbTarget, w: Workload): string[] {
  return [
    "oltp_write_only",
    "--db-driver=mysql",
    ...(t.socket
      ? [`--mysql-socket=${t.socket}`]
      : [`--mysql-host=${t.host ?? "127.0.0.1"}`, `--mysql-port=${t.port ?? 3306}`]),
    `--mysql-user=${t.user}`,
    // sysbench takes the password only as an argument (visible to local users in ps; docs/bench.md).
    ...(t.password ? [`--mysql-password=${t.password}`] : []),
    `--mysql-db=${t.database}`,
    `--tables=${w.tables}`,
    `--table-size=${w.tableSize}`,
    `--rand-type=${w.randType}`,
    "--db-ps-mode=disable",
    // Deadlocks and lock wait timeouts are retried, as in testkit's runs.
    "--mysql-ignore-errors=1213,1205,1020",
  ];
}

function failure(what: string, err: unknown, password: string): Error {
  const e = err as { stderr?: string; stdout?: string; message?: string; name?: string };
  if (e.name === "AbortError") return err as Error;
  const text = `${e.stderr ?? ""}\n${e.stdout ?? ""}`.trim() || e.message || String(err);
  const tail = text.split("\n").slice(-8).join("\n");
  return new Error(`sysbench ${what} failed:\n${password ? tail.split(password).join("***") : tail}`);
}

export async function sysbenchPrepare(t: DbTarget, w: Workload, signal?: AbortSignal): Promise<void> {
  const bin = requireBinary("sysbench", "sysbench");
  try {
    await run(bin, [...sysbenchArgs(t, w), `--threads=${Math.min(w.tables, 4)}`, "prepare"], {
      maxBuffer: 16 << 20,
      signal,
    });
  } catch (err) {
    throw failure("prepare", err, t.password);
  }
}

export async function sysbenchRun(
  t: DbTarget,
  w: Workload,
  threads: number,
  seconds: number,
  signal?: AbortSignal,
): Promise<SysbenchResult> {
  const bin = requireBinary("sysbench", "sysbench");
  try {
    const { stdout } = await run(
      bin,
      [
        ...sysbenchArgs(t, w),
        `--threads=${threads}`,
        `--time=${seconds}`,
        ...(w.rate > 0 ? [`--rate=${w.rate}`] : []),
        "--percentile=95",
        "run",
      ],
      { maxBuffer: 16 << 20, timeout: (seconds + 120) * 1000, signal },
    );
    return parseSysbenchOutput(stdout);
  } catch (err) {
    throw failure("run", err, t.password);
  }
}
