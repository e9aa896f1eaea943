// Source: SHOW REPLICA STATUS (MySQL 8.0.22+), SHOW SLAVE STATUS (older MySQL / Percona), SHOW ALL SLAVES
// STATUS (MariaDB, one row per connection_name), information_schema.PROCESSLIST and the gtid variables.
import { GTID_POSITIONS, metrics } from "@untorn/catalog/metrics";
import { REPLICATION_ROLES, type ReplicationRole } from "@untorn/vocabulary/words";
import { type Collector, nameValueMap, parseNumeric, type Row, type ServerFacts } from "../collector.js";
import { atLeast } from "../version.js";

// MySQL 8.0.22 renamed the statement and its columns (Seconds_Behind_Source, Replica_IO_Running, ...);
// 8.4 removed SHOW SLAVE STATUS. MariaDB keeps the old names; SHOW ALL SLAVES STATUS (10.0+) lists every
// connection of multi-source replication, with Connection_name. https://dev.mysql.com/doc/refman/8.0/en/show-replica-status.html,
// https://mariadb.com/kb/en/show-replica-status/
const SQL_REPLICA = "SHOW REPLICA STATUS";
const SQL_SLAVE = "SHOW SLAVE STATUS";
const SQL_ALL_SLAVES = "SHOW ALL SLAVES STATUS";
// Binlog dump threads, one per connected replica ('Binlog Dump', or 'Binlog Dump GTID' on MySQL with
// auto-positioning); other users' threads are only visible with PROCESS.
const SQL_DUMP_THREADS =
  "SELECT COMMAND FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'";
const SQL_VARIABLES =
  "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('gtid_binlog_pos', 'gtid_current_pos', 'gtid_executed', 'gtid_mode', 'gtid_slave_pos')";

/** The replica status statement this server understands. */
export function replicaStatusSql(server: Pick<ServerFacts, "flavor" | "versionNumber">): string {
  if (server.flavor === "mariadb") return SQL_ALL_SLAVES;
  return atLeast(server.versionNumber, [8, 0, 22]) ? SQL_REPLICA : SQL_SLAVE;
}

/** The first of `names` the row has (MySQL 8.0.22+ and older column names). */
function column(row: Row, ...names: string[]): unknown {
  for (const n of names) if (n in row) return row[n];
  return undefined;
}

/**
 * MariaDB GTID position "0-1-100,1-2-7" → domain → sequence number. Empty string → no domains.
 * https://mariadb.com/kb/en/gtid/#the-domain-id
 */
export function parseMariadbGtidPos(raw: string | undefined): Map<string, number> {
  const out = new Map<string, number>();
  if (!raw) return out;
  for (const part of raw.split(",")) {
    const m = /^\s*(\d+)-(\d+)-(\d+)\s*$/.exec(part);
    if (m) out.set(m[1]!, Math.max(out.get(m[1]!) ?? 0, Number(m[3])));
  }
  return out;
}

/**
 * Number of transactions in a MySQL GTID set "uuid:1-100:105,uuid2:1-5" (tags of 8.3+ "uuid:tag:1-5"
 * count the same). https://dev.mysql.com/doc/refman/8.0/en/replication-gtids-concepts.html
 */
export function countGtidSet(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  let total = 0;
  for (const member of raw.replace(/\s+/g, "").split(",")) {
    if (member === "") continue;
    for (const piece of member.split(":").slice(1)) {
      const m = /^(\d+)(?:-(\d+))?$/.exec(piece);
      if (!m) continue; // a tag
      const from = Number(m[1]);
      const to = m[2] === undefined ? from : Number(m[2]);
      if (to >= from) total += to - from + 1;
    }
  }
  return total;
}

/** Yes / No / Connecting (MySQL also "Preparing" briefly) as the two gauges. */
function ioState(raw: unknown): { running: number; connecting: number } | undefined {
  if (raw === null || raw === undefined) return undefined;
  const v = String(raw).trim().toLowerCase();
  return { running: v === "yes" ? 1 : 0, connecting: v === "connecting" ? 1 : 0 };
}

export const replication: Collector = {
  name: "replication",
  description:
    "Replication role, lag, I/O and SQL thread state, last errors and GTID position per channel (MySQL and MariaDB syntax).",
  defaultEnabled: true,
  async collect({ db, emit, server }) {
    const rows = await db.query(replicaStatusSql(server));
    const dumps = await db.query(SQL_DUMP_THREADS);
    const vars = nameValueMap(await db.query(SQL_VARIABLES));

    const role: ReplicationRole = rows.length > 0 ? "replica" : dumps.length > 0 ? "primary" : "standalone";
    for (const r of REPLICATION_ROLES) emit.set(metrics.replicationRole, r === role ? 1 : 0, { role: r });
    emit.set(metrics.replicationConnectedReplicas, dumps.length);

    const gtidMode = (vars.get("gtid_mode") ?? "").toUpperCase() === "ON";
    for (const row of rows) {
      const channel = String(column(row, "Connection_name", "Channel_Name", "Channel_name") ?? "");
      const labels = { channel };
      // NULL while a thread is stopped: leave the lag out rather than report 0.
      emit.set(
        metrics.replicationLagSeconds,
        parseNumeric(column(row, "Seconds_Behind_Source", "Seconds_Behind_Master")),
        labels,
      );
      const io = ioState(column(row, "Replica_IO_Running", "Slave_IO_Running"));
      emit.set(metrics.replicationIoThreadRunning, io?.running, labels);
      emit.set(metrics.replicationIoThreadConnecting, io?.connecting, labels);
      const sql = column(row, "Replica_SQL_Running", "Slave_SQL_Running");
      if (sql !== null && sql !== undefined) {
        emit.set(
          metrics.replicationSqlThreadRunning,
          String(sql).trim().toLowerCase() === "yes" ? 1 : 0,
          labels,
        );
      }
      emit.set(metrics.replicationLastIoErrno, parseNumeric(column(row, "Last_IO_Errno")), labels);
      emit.set(metrics.replicationLastSqlErrno, parseNumeric(column(row, "Last_SQL_Errno")), labels);
      emit.set(
        metrics.replicationSourceServerId,
        parseNumeric(column(row, "Source_Server_Id", "Master_Server_Id")),
        labels,
      );
      if (gtidMode) {
        const retrieved = column(row, "Retrieved_Gtid_Set");
        emit.set(
          metrics.replicationGtidRetrievedTransactions,
          countGtidSet(typeof retrieved === "string" ? retrieved : undefined),
          labels,
        );
      }
    }

    if (server.flavor === "mariadb") {
      for (const position of GTID_POSITIONS) {
        for (const [domain, seq] of parseMariadbGtidPos(vars.get(`gtid_${position}_pos`))) {
          emit.set(metrics.replicationGtidSequence, seq, { domain_id: domain, position });
        }
      }
    } else if (gtidMode) {
      emit.set(metrics.replicationGtidExecutedTransactions, countGtidSet(vars.get("gtid_executed")));
    }
  },
};
