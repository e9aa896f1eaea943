import { type MariaDb, type MariaDbOptions, type OptionValue, startMariaDb } from "./mariadb.js";
import { waitFor } from "./process.js";
import { createThrottledVolume, type ThrottledVolume, type ThrottleOptions } from "./throttle.js";

/**
 * A throwaway MariaDB primary with replicas under GTID replication
 * (https://mariadb.com/kb/en/gtid/#setting-up-a-new-replica-server-with-global-transaction-id): fresh
 * datadirs, free ports, server_id 1 for the primary and 2, 3, ... for the replicas, binary log with
 * log_slave_updates everywhere (any replica can be promoted), read_only replicas, CHANGE MASTER TO ...
 * MASTER_USE_GTID=slave_pos from an empty position.
 */
export interface ReplicaSetOptions {
  /** Number of replicas. Default 2. */
  replicas?: number;
  /** Options for every server (each replica's own options are merged over them). */
  common?: MariaDbOptions;
  /** Options of the primary, merged over `common`. */
  primary?: MariaDbOptions;
  /** Options per replica index (0-based), merged over `common`. */
  replica?: (index: number) => MariaDbOptions;
  /**
   * Puts the datadir of replica `replica` on an emulated IOPS-capped volume and runs its mariadbd in the
   * volume's blkio cgroup. Throws with the machine's reason when the emulation is unavailable: check
   * `throttleAvailable()` first and skip loudly.
   */
  throttle?: ThrottleOptions & { replica: number };
}

/** One replica's SHOW SLAVE STATUS, the fields tests read. */
export interface ReplicaStatus {
  ioRunning: string;
  sqlRunning: string;
  /** Seconds_Behind_Master; null while a thread is stopped. */
  lagSeconds: number | null;
  lastIoErrno: number;
  lastSqlErrno: number;
  lastError: string;
  gtidIoPos: string;
  masterServerId: number;
}

export interface ReplicaSet {
  readonly primary: MariaDb;
  readonly replicas: readonly MariaDb[];
  /** The volume under the throttled replica, when `throttle` was given. */
  readonly volume: ThrottledVolume | undefined;
  /** SHOW SLAVE STATUS of a replica. */
  status(replica: MariaDb): Promise<ReplicaStatus>;
  /** Seconds_Behind_Master of a replica, null while a thread is stopped. */
  lagSeconds(replica: MariaDb): Promise<number | null>;
  /** Transactions the replica has not applied yet: the primary's GTID sequence minus the replica's (domain 0). */
  transactionsBehind(replica: MariaDb): Promise<number>;
  /**
   * Waits until every running replica (or the given ones) applied everything the primary had written
   * when the call started (MASTER_GTID_WAIT). Throws with the replica's status on timeout.
   */
  waitForCatchUp(opts?: { replicas?: readonly MariaDb[]; timeoutMs?: number }): Promise<void>;
  /**
   * Restarts one replica with changed options (e.g. `{ doublewrite: false }`; `extra` is merged into
   * the current one), then waits for both of
   * its replication threads to run again (a replica restarts its threads by itself unless
   * skip_slave_start is set).
   */
  restartReplica(replica: MariaDb, changes?: Partial<MariaDbOptions>): Promise<void>;
  /** Stops every server and removes every datadir and the volume. Safe to call twice. */
  destroy(): Promise<void>;
}

export const REPLICATION_USER = "repl";
const REPLICATION_PASSWORD = "repl";

const merge = (a: MariaDbOptions = {}, b: MariaDbOptions = {}): MariaDbOptions => ({
  ...a,
  ...b,
  extra: { ...a.extra, ...b.extra },
});

function binlogOptions(serverId: number, replica: boolean): Record<string, OptionValue> {
  return {
    server_id: serverId,
    log_bin: "binlog",
    binlog_format: "ROW",
    log_slave_updates: "ON",
    gtid_domain_id: 0,
    // Transactions commit on the primary whatever the replica does: short tests need no sync_binlog=1.
    sync_binlog: 0,
    ...(replica ? { read_only: "ON", relay_log: "relay-bin" } : {}),
  };
}

function str(v: unknown): string {
  return v === null || v === undefined ? "" : String(v);
}

function domainSeq(pos: string, domain = "0"): number {
  for (const part of pos.split(",")) {
    const [d, , seq] = part.trim().split("-");
    if (d === domain && seq !== undefined) return Number(seq);
  }
  return 0;
}

export async function startReplicaSet(opts: ReplicaSetOptions = {}): Promise<ReplicaSet> {
  const count = opts.replicas ?? 2;
  if (!Number.isInteger(count) || count < 1) throw new Error("replicas must be an integer ≥ 1");
  const throttle = opts.throttle;
  if (
    throttle &&
    (!Number.isInteger(throttle.replica) || throttle.replica < 0 || throttle.replica >= count)
  ) {
    throw new Error(`throttle.replica must be a replica index in 0..${count - 1}`);
  }

  const started: MariaDb[] = [];
  let volume: ThrottledVolume | undefined;
  const destroy = async () => {
    const errors: unknown[] = [];
    for (const db of started.splice(0).reverse()) await db.destroy().catch((e) => errors.push(e));
    if (volume) {
      const v = volume;
      volume = undefined;
      await v.destroy().catch((e) => errors.push(e));
    }
    if (errors.length > 0) throw new AggregateError(errors, "tearing down the replica set failed");
  };

  try {
    const primary = await startMariaDb(
      merge(merge(opts.common, opts.primary), { extra: binlogOptions(1, false) }),
    );
    started.push(primary);
    await primary.query(
      `CREATE USER '${REPLICATION_USER}'@'127.0.0.1' IDENTIFIED BY '${REPLICATION_PASSWORD}'`,
    );
    await primary.query(`GRANT REPLICATION SLAVE ON *.* TO '${REPLICATION_USER}'@'127.0.0.1'`);

    if (throttle) {
      const { replica: _, ...volumeOptions } = throttle;
      volume = await createThrottledVolume(volumeOptions);
    }
    // Started one after another: concurrent bootstraps on two shared cores time out under load.
    for (let i = 0; i < count; i++) {
      const onVolume: MariaDbOptions =
        volume && throttle?.replica === i
          ? { datadirParent: volume.mountPoint, spawnPrefix: volume.spawnPrefix }
          : {};
      const replica = await startMariaDb(
        merge(merge(merge(opts.common, opts.replica?.(i)), onVolume), { extra: binlogOptions(i + 2, true) }),
      );
      started.push(replica);
      await replica.query("SET GLOBAL gtid_slave_pos = ''");
      await replica.query(
        "CHANGE MASTER TO MASTER_HOST = '127.0.0.1', MASTER_PORT = ?, MASTER_USER = ?, MASTER_PASSWORD = ?, " +
          "MASTER_CONNECT_RETRY = 1, MASTER_USE_GTID = slave_pos",
        [primary.port, REPLICATION_USER, REPLICATION_PASSWORD],
      );
      await replica.query("START SLAVE");
    }
    const replicas = started.slice(1);

    const status = async (replica: MariaDb): Promise<ReplicaStatus> => {
      const [row] = await replica.query("SHOW SLAVE STATUS");
      if (!row) throw new Error(`${replica.socket} is not a replica (SHOW SLAVE STATUS has no row)`);
      const lag = row["Seconds_Behind_Master"];
      return {
        ioRunning: str(row["Slave_IO_Running"]),
        sqlRunning: str(row["Slave_SQL_Running"]),
        lagSeconds: lag === null || lag === undefined ? null : Number(lag),
        lastIoErrno: Number(row["Last_IO_Errno"] ?? 0),
        lastSqlErrno: Number(row["Last_SQL_Errno"] ?? 0),
        lastError: [str(row["Last_IO_Error"]), str(row["Last_SQL_Error"])].filter(Boolean).join("; "),
        gtidIoPos: str(row["Gtid_IO_Pos"]),
        masterServerId: Number(row["Master_Server_Id"] ?? 0),
      };
    };

    const running = async (replica: MariaDb): Promise<boolean> => {
      const s = await status(replica);
      if (s.lastSqlErrno !== 0) throw new Error(`replication broke on ${replica.socket}: ${s.lastError}`);
      return s.ioRunning === "Yes" && s.sqlRunning === "Yes";
    };
    for (const r of replicas) {
      await waitFor(`replication threads on ${r.socket}`, () => running(r), {
        timeoutMs: 30_000,
        intervalMs: 200,
        detail: () => r.logTail(10),
      });
    }

    const gtidPos = async (db: MariaDb, variable: string): Promise<string> => {
      const [row] = await db.query<{ pos: string | null }>(`SELECT @@global.${variable} AS pos`);
      return str(row?.pos);
    };

    const set: ReplicaSet = {
      primary,
      replicas,
      get volume() {
        return volume;
      },
      status,
      async lagSeconds(replica) {
        return (await status(replica)).lagSeconds;
      },
      async transactionsBehind(replica) {
        const target = domainSeq(await gtidPos(primary, "gtid_binlog_pos"));
        return Math.max(0, target - domainSeq(await gtidPos(replica, "gtid_slave_pos")));
      },
      async waitForCatchUp({ replicas: which = replicas, timeoutMs = 120_000 } = {}) {
        const target = await gtidPos(primary, "gtid_binlog_pos");
        if (target === "") return;
        for (const r of which) {
          const seconds = Math.max(1, Math.round(timeoutMs / 1000));
          const [row] = await r.query<{ rc: number | string | null }>("SELECT MASTER_GTID_WAIT(?, ?) AS rc", [
            target,
            seconds,
          ]);
          if (Number(row?.rc) !== 0) {
            const s = await status(r);
            throw new Error(
              `replica ${r.socket} did not reach ${target} within ${seconds} s: at ${s.gtidIoPos}, ` +
                `I/O ${s.ioRunning}, SQL ${s.sqlRunning}, lag ${s.lagSeconds}${s.lastError ? `, ${s.lastError}` : ""}`,
            );
          }
        }
      },
      async restartReplica(replica, changes = {}) {
        if (!replicas.includes(replica)) throw new Error("restartReplica takes one of this set's replicas");
        // `extra` is merged, so changing one option keeps the replication settings.
        const extra = { ...replica.options.extra, ...changes.extra };
        await replica.restart({ ...changes, extra });
        await waitFor(`replication threads on ${replica.socket} after the restart`, () => running(replica), {
          timeoutMs: 30_000,
          intervalMs: 200,
          detail: () => replica.logTail(10),
        });
      },
      destroy,
    };
    return set;
  } catch (err) {
    await destroy().catch(() => undefined);
    throw err;
  }
}
