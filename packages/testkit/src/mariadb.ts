import { execFile } from "node:child_process";
import { mkdir, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import mysql from "mysql2/promise";
import {
  freePort,
  type ManagedProcess,
  makeTempDir,
  removeDir,
  requireBinary,
  spawnManaged,
  waitFor,
} from "./process.js";

const run = promisify(execFile);

export type OptionValue = string | number | boolean;

export interface MariaDbOptions {
  /** innodb_doublewrite: ON/OFF (and `fast` on 11.0.6+). Default ON. */
  doublewrite?: boolean | "fast";
  /** performance_schema at startup (MariaDB cannot switch it at runtime). Default off, like MariaDB. */
  performanceSchema?: boolean;
  /** innodb_buffer_pool_size, e.g. "64M". Default 32M. */
  bufferPoolSize?: string;
  /** innodb_page_size; fixed when the datadir is created. Default 16k. */
  pageSize?: "4k" | "8k" | "16k" | "32k" | "64k";
  /** innodb_flush_log_at_trx_commit. Default 2 (tests care about data-file writes, not redo fsyncs). */
  flushLogAtTrxCommit?: 0 | 1 | 2;
  /** Any other my.cnf [mariadbd] options, written as given. */
  extra?: Record<string, OptionValue>;
  /** Where the datadir lives (e.g. a mounted loop device); default the instance's temp dir. */
  datadirParent?: string;
  /**
   * Command and arguments mariadbd is started through (it must exec mariadbd with the arguments that
   * follow), e.g. a throttled volume's `spawnPrefix`, which runs it inside a blkio cgroup.
   */
  spawnPrefix?: readonly string[];
}

export interface MariaDb {
  readonly dir: string;
  readonly datadir: string;
  readonly socket: string;
  readonly port: number;
  readonly host: "127.0.0.1";
  readonly user: "root";
  readonly password: "";
  readonly options: MariaDbOptions;
  readonly pid: number;
  readonly cnfFile: string;
  /** Runs one statement as root and returns the rows. */
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<T[]>;
  /** SHOW GLOBAL STATUS as a name → value map. */
  globalStatus(): Promise<Map<string, string>>;
  /** Stops the server (clean shutdown), keeping the datadir. */
  stop(): Promise<void>;
  /** Stops and starts again on the same datadir, port and socket, with options merged in. */
  restart(changes?: Partial<MariaDbOptions>): Promise<void>;
  /** Stops the server and removes everything. Safe to call twice. */
  destroy(): Promise<void>;
  /** The last lines of the error log. */
  logTail(lines?: number): string;
}

function optionLines(o: MariaDbOptions): string[] {
  const dw =
    o.doublewrite === undefined ? "ON" : o.doublewrite === "fast" ? "fast" : o.doublewrite ? "ON" : "OFF";
  const opts: Record<string, OptionValue> = {
    innodb_doublewrite: dw,
    performance_schema: o.performanceSchema ? "ON" : "OFF",
    innodb_buffer_pool_size: o.bufferPoolSize ?? "32M",
    innodb_page_size: o.pageSize ?? "16k",
    innodb_flush_log_at_trx_commit: o.flushLogAtTrxCommit ?? 2,
    innodb_log_file_size: "64M",
    max_connections: 200,
    skip_name_resolve: "ON",
    ...o.extra,
  };
  return Object.entries(opts).map(([k, v]) => `${k}=${typeof v === "boolean" ? (v ? "ON" : "OFF") : v}`);
}

/**
 * Starts a throwaway mariadbd: fresh datadir from mariadb-install-db, free TCP port on 127.0.0.1, unix
 * socket, root without a password, options from `opts`. Call destroy() in afterAll/finally.
 */
export async function startMariaDb(opts: MariaDbOptions = {}): Promise<MariaDb> {
  const mariadbd = requireBinary("mariadbd", "mariadb-server");
  const installDb = requireBinary("mariadb-install-db", "mariadb-server");
  const dir = await makeTempDir("mariadb");
  const datadir = join(opts.datadirParent ?? dir, "data");
  const socket = join(dir, "mysqld.sock");
  const cnfFile = join(dir, "my.cnf");
  const errLog = join(dir, "error.log");
  const port = await freePort();
  let options = { ...opts };
  const asRoot = process.getuid?.() === 0;

  const writeCnf = async () => {
    const lines = [
      "[mariadbd]",
      `datadir=${datadir}`,
      `socket=${socket}`,
      `port=${port}`,
      "bind_address=127.0.0.1",
      `pid_file=${join(dir, "mysqld.pid")}`,
      `log_error=${errLog}`,
      // Concurrent bootstraps sharing /tmp collide on their temporary tables ("Unknown table
      // mysql.tmp_user_sys"): every instance gets its own tmpdir.
      `tmpdir=${join(dir, "tmp")}`,
      ...(asRoot ? ["user=root"] : []),
      ...optionLines(options),
      "",
    ];
    await writeFile(cnfFile, lines.join("\n"));
  };

  await mkdir(datadir, { recursive: true });
  await mkdir(join(dir, "tmp"), { recursive: true });
  await writeCnf();
  try {
    await run(installDb, [
      `--defaults-file=${cnfFile}`,
      `--datadir=${datadir}`,
      "--auth-root-authentication-method=normal",
      "--skip-test-db",
      ...(asRoot ? ["--user=root"] : []),
    ]);
  } catch (err) {
    await removeDir(dir);
    const e = err as Error & { stdout?: string; stderr?: string };
    const output = `${e.stdout ?? ""}${e.stderr ?? ""}`.trim().split("\n").slice(-15).join("\n");
    throw new Error(`mariadb-install-db failed: ${e.message.split("\n")[0]}\n${output}`);
  }

  let proc: ManagedProcess | undefined;
  let pool: mysql.Pool | undefined;

  const start = async () => {
    const [command, ...args] = [...(options.spawnPrefix ?? []), mariadbd, `--defaults-file=${cnfFile}`];
    proc = spawnManaged(command!, args, { logFile: errLog });
    const p = proc;
    let exitedEarly = false;
    void p.exited.then(() => {
      exitedEarly = true;
    });
    await waitFor(
      `mariadbd on ${socket}`,
      async () => {
        if (exitedEarly) throw new Error(`mariadbd exited during startup:\n${p.tail()}`);
        const c = await mysql.createConnection({ socketPath: socket, user: "root" });
        await c.end();
        return true;
      },
      { timeoutMs: 30_000, detail: () => p.tail() },
    ).catch(async (err) => {
      await p.stop(2000);
      throw err;
    });
    pool = mysql.createPool({
      socketPath: socket,
      user: "root",
      connectionLimit: 4,
      multipleStatements: false,
    });
  };

  const stop = async () => {
    await pool?.end().catch(() => undefined);
    pool = undefined;
    await proc?.stop(30_000);
  };

  await start();

  const instance: MariaDb = {
    dir,
    datadir,
    socket,
    port,
    host: "127.0.0.1",
    user: "root",
    password: "",
    get options() {
      return options;
    },
    get pid() {
      return proc?.pid ?? -1;
    },
    cnfFile,
    async query<T>(sql: string, params?: unknown[]) {
      if (!pool) throw new Error("mariadbd is stopped");
      const [rows] = await pool.query(sql, params);
      return rows as T[];
    },
    async globalStatus() {
      const rows = await instance.query<{ Variable_name: string; Value: string }>("SHOW GLOBAL STATUS");
      return new Map(rows.map((r) => [r.Variable_name, r.Value]));
    },
    stop,
    async restart(changes = {}) {
      await stop();
      options = { ...options, ...changes };
      await writeCnf();
      await start();
    },
    async destroy() {
      await stop();
      await removeDir(dir);
      if (opts.datadirParent) await removeDir(datadir);
    },
    logTail(lines = 30) {
      return proc?.tail(lines) ?? "";
    },
  };
  return instance;
}
