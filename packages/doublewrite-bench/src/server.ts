/**
 * The server a bench runs against: a throwaway MariaDB the bench owns (and may restart with the other
 * doublewrite setting), optionally on an emulated IOPS-limited volume, or an existing server it only
 * measures.
 */

import { CliError, EXIT } from "@untorn/cli/errors";
import { type MariaDb, type OptionValue, startMariaDb } from "@untorn/testkit/mariadb";
import { createThrottledVolume, type ThrottledVolume, throttleAvailable } from "@untorn/testkit/throttle";
import mysql from "mysql2/promise";
import { deviceOf } from "./device.js";
import { SERVER_INFO_SQL, type ServerInfo, type ServerInfoRow, serverInfo } from "./server-info.js";
import { type DbTarget, sysbenchPrepare, type Workload } from "./sysbench.js";

export interface BenchServer {
  readonly kind: "throwaway" | "existing";
  readonly label: string;
  readonly target: DbTarget;
  readonly volume: ThrottledVolume | undefined;
  /** The write IOPS cap applied during warm-up and runs (0 = none). */
  readonly writeIops: number;
  info(): Promise<ServerInfo>;
  status(): Promise<Map<string, string>>;
  /** "MAJ:MIN" of the datadir's device when this host can see it. */
  diskDevice(): Promise<string | undefined>;
  /** Creates the sysbench tables unless they are there; says which. */
  prepare(w: Workload, signal?: AbortSignal): Promise<"created" | "present">;
  /** Throwaway only: restarts with the given doublewrite setting. */
  restartWith?(doublewrite: boolean): Promise<void>;
  close(): Promise<void>;
}

export interface ThrowawayConfig {
  bufferPool: string;
  flushLogAtTrxCommit: 0 | 1 | 2;
  performanceSchema: boolean;
  extra: Record<string, OptionValue>;
  throttle?: { writeIops: number; meterKiB: number; sizeMiB: number };
  firstDoublewrite: boolean;
}

async function tablesPresent(
  query: (sql: string, params: unknown[]) => Promise<{ n: number | string }[]>,
  database: string,
  tables: number,
): Promise<number> {
  const rows = await query(
    "SELECT COUNT(*) AS n FROM information_schema.tables WHERE table_schema = ? AND table_name REGEXP '^sbtest[0-9]+$' AND CAST(SUBSTRING(table_name, 7) AS UNSIGNED) BETWEEN 1 AND ?",
    [database, tables],
  );
  return Number(rows[0]?.n ?? 0);
}

/** Starts a throwaway MariaDB (on a throttled volume when asked); undoes everything if a step fails. */
export async function openThrowaway(cfg: ThrowawayConfig): Promise<BenchServer> {
  if (cfg.throttle) {
    const reason = await throttleAvailable();
    if (reason) {
      throw new CliError(
        `--iops-limit needs an emulated IOPS-limited volume, which this machine refuses: ${reason}`,
        EXIT.failure,
      );
    }
  }
  let volume: ThrottledVolume | undefined;
  let db: MariaDb | undefined;
  const close = async () => {
    const errors: string[] = [];
    await db?.destroy().catch((e: Error) => errors.push(e.message));
    await volume?.destroy().catch((e: Error) => errors.push(e.message));
    if (errors.length) throw new Error(`cleanup: ${errors.join("; ")}`);
  };
  try {
    if (cfg.throttle)
      volume = await createThrottledVolume({
        meterKiB: cfg.throttle.meterKiB,
        sizeMiB: cfg.throttle.sizeMiB,
      });
    db = await startMariaDb({
      doublewrite: cfg.firstDoublewrite,
      bufferPoolSize: cfg.bufferPool,
      flushLogAtTrxCommit: cfg.flushLogAtTrxCommit,
      performanceSchema: cfg.performanceSchema,
      extra: cfg.extra,
      ...(volume ? { datadirParent: volume.mountPoint, spawnPrefix: volume.spawnPrefix } : {}),
    });
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
  const server = db;
  const writeIops = cfg.throttle?.writeIops ?? 0;
  const target: DbTarget = { socket: server.socket, user: server.user, password: "", database: "sbtest" };
  return {
    kind: "throwaway",
    label: `throwaway mariadbd (${server.socket})`,
    target,
    volume,
    writeIops,
    info: async () => serverInfo((await server.query<ServerInfoRow>(SERVER_INFO_SQL))[0]!),
    status: () => server.globalStatus(),
    diskDevice: async () => volume?.majorMinor ?? deviceOf(server.datadir),
    async prepare(w, signal) {
      await server.query(`CREATE DATABASE IF NOT EXISTS \`${target.database}\``);
      // Unthrottled: loading the tables is setup, not measurement.
      await sysbenchPrepare(target, w, signal);
      if (volume) await volume.setLimits({ writeIops });
      return "created";
    },
    async restartWith(doublewrite) {
      // The cap is lifted for shutdown (it flushes the buffer pool) and startup, then put back: warm-up
      // and runs are throttled, the restart itself is not measured.
      if (volume) await volume.setLimits({ writeIops: 0 });
      await server.restart({ doublewrite });
      if (volume) await volume.setLimits({ writeIops });
    },
    close,
  };
}

export interface ExistingConfig {
  socket?: string;
  host?: string;
  port?: number;
  user: string;
  password: string;
  database: string;
}

/** Connects to a server the bench does not own: it is measured as it is, never reconfigured. */
export async function openExisting(cfg: ExistingConfig): Promise<BenchServer> {
  const where = cfg.socket ?? `${cfg.host ?? "127.0.0.1"}:${cfg.port ?? 3306}`;
  const pool = mysql.createPool({
    ...(cfg.socket ? { socketPath: cfg.socket } : { host: cfg.host ?? "127.0.0.1", port: cfg.port ?? 3306 }),
    user: cfg.user,
    password: cfg.password,
    connectionLimit: 2,
    connectTimeout: 10_000,
  });
  const query = async <T>(sql: string, params: unknown[] = []) => (await pool.query(sql, params))[0] as T[];
  let info: ServerInfo;
  try {
    info = serverInfo((await query<ServerInfoRow>(SERVER_INFO_SQL))[0]!);
  } catch (err) {
    await pool.end().catch(() => undefined);
    throw new CliError(
      `cannot query the server at ${where} as ${cfg.user}: ${(err as Error).message}`,
      EXIT.failure,
    );
  }
  const local = Boolean(cfg.socket) || ["127.0.0.1", "localhost", "::1"].includes(cfg.host ?? "127.0.0.1");
  const target: DbTarget = { ...cfg };
  return {
    kind: "existing",
    label: `existing server at ${where}`,
    target,
    volume: undefined,
    writeIops: 0,
    info: async () => serverInfo((await query<ServerInfoRow>(SERVER_INFO_SQL))[0]!),
    async status() {
      const rows = await query<{ Variable_name: string; Value: string }>("SHOW GLOBAL STATUS");
      return new Map(rows.map((r) => [r.Variable_name, r.Value]));
    },
    // The datadir path means something only on this host.
    diskDevice: async () => (local ? deviceOf(info.datadir) : undefined),
    async prepare(w, signal) {
      const present = await tablesPresent(query, cfg.database, w.tables);
      if (present === w.tables) return "present";
      if (present > 0) {
        throw new CliError(
          `database ${cfg.database} has ${present} of the ${w.tables} sysbench tables: drop them (sysbench oltp_write_only cleanup) or pick another --database`,
          EXIT.failure,
        );
      }
      await query(`CREATE DATABASE IF NOT EXISTS \`${cfg.database.replace(/`/g, "``")}\``);
      await sysbenchPrepare(target, w, signal);
      return "created";
    },
    close: () => pool.end(),
  };
}
