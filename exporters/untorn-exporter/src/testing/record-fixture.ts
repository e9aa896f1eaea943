// Records a fixture (see fixture-source.ts) from a live server: every row any collector could select,
// as the exporter's own driver settings return them, with the datadir rewritten to a stable path.
import type { Queryable, Row } from "../collector.js";
import { replicaStatusSql } from "../collectors/replication.js";
import { detectFlavor, parseVersion } from "../version.js";
import { FIXTURE_TARGETS, type Fixture, type FixtureTarget, fixtureSchema } from "./fixture-source.js";

/** Variables recorded besides innodb_%: what config reads and what a reader of the fixture wants to see. */
const OTHER_VARIABLES = [
  "aurora_version",
  "basedir",
  "datadir",
  "gtid_binlog_pos",
  "gtid_current_pos",
  "gtid_executed",
  "gtid_mode",
  "gtid_slave_pos",
  "log_bin",
  "performance_schema",
  "sync_binlog",
  "version",
  "version_comment",
];

const QUERIES: ReadonlyArray<readonly [FixtureTarget, keyof Fixture, string]> = [
  [
    "SHOW GLOBAL VARIABLES",
    "variables",
    `SHOW GLOBAL VARIABLES WHERE Variable_name LIKE 'innodb%' OR Variable_name IN (${OTHER_VARIABLES.map((v) => `'${v}'`).join(", ")})`,
  ],
  ["SHOW GLOBAL STATUS", "status", "SHOW GLOBAL STATUS"],
  [
    "performance_schema.setup_instruments",
    "setup_instruments",
    "SELECT * FROM performance_schema.setup_instruments WHERE NAME LIKE 'wait/io/file/innodb/%' OR NAME IN ('wait/io/file/sql/binlog', 'wait/io/file/sql/relaylog') OR NAME LIKE 'wait/synch/mutex/innodb/%dblwr%'",
  ],
  [
    "performance_schema.file_summary_by_event_name",
    "file_summary_by_event_name",
    "SELECT * FROM performance_schema.file_summary_by_event_name WHERE EVENT_NAME LIKE 'wait/io/file/innodb/%' OR EVENT_NAME IN ('wait/io/file/sql/binlog', 'wait/io/file/sql/relaylog')",
  ],
  [
    "performance_schema.file_summary_by_instance",
    "file_summary_by_instance",
    "SELECT * FROM performance_schema.file_summary_by_instance WHERE EVENT_NAME LIKE 'wait/io/file/innodb/%'",
  ],
  [
    "performance_schema.events_waits_summary_global_by_event_name",
    "events_waits_summary_global_by_event_name",
    "SELECT * FROM performance_schema.events_waits_summary_global_by_event_name WHERE EVENT_NAME LIKE 'wait/synch/mutex/innodb/%dblwr%'",
  ],
  [
    "information_schema.INNODB_METRICS",
    "innodb_metrics",
    "SELECT * FROM information_schema.INNODB_METRICS WHERE NAME LIKE '%dblwr%' OR SUBSYSTEM = 'dblwr'",
  ],
  [
    "information_schema.PROCESSLIST",
    "processlist",
    "SELECT COMMAND FROM information_schema.PROCESSLIST WHERE COMMAND LIKE 'Binlog Dump%'",
  ],
];

export interface RecordOptions {
  description: string;
  /** Replaces the server's datadir prefix in every recorded string, e.g. "/var/lib/mysql/". */
  datadirAs?: string;
}

function errorText(err: unknown): string {
  const e = err as { sqlMessage?: string; message?: string; errno?: number };
  return `${e.sqlMessage ?? e.message ?? String(err)} (errno ${e.errno ?? 0})`;
}

export async function recordFixture(db: Queryable, opts: RecordOptions): Promise<Fixture> {
  const [srv] = await db.query(
    "SELECT @@version AS version, @@version_comment AS version_comment, @@datadir AS datadir, " +
      "@@innodb_page_size AS page_size, @@performance_schema AS performance_schema",
  );
  if (!srv) throw new Error("server returned no row for its version");
  const datadir = String(srv["datadir"]);
  const rewrite = (v: unknown): unknown =>
    typeof v === "string" && opts.datadirAs !== undefined ? v.split(datadir).join(opts.datadirAs) : v;

  const out: Record<string, unknown> = {
    description: opts.description,
    server: {
      version: String(srv["version"]),
      version_comment: String(srv["version_comment"]),
      datadir: rewrite(datadir),
      page_size: Number(srv["page_size"]),
      performance_schema: Number(srv["performance_schema"]) === 1,
    },
  };
  const version = String(srv["version"]);
  const replicaStatus = replicaStatusSql({
    flavor: detectFlavor(version, String(srv["version_comment"])),
    versionNumber: parseVersion(version),
  });
  const errors: Partial<Record<FixtureTarget, string>> = {};
  const queries: ReadonlyArray<readonly [FixtureTarget, keyof Fixture, string]> = [
    ...QUERIES,
    ["SHOW REPLICA STATUS", "replica_status", replicaStatus],
  ];
  for (const [target, key, sql] of queries) {
    let rows: Row[];
    try {
      rows = await db.query(sql);
    } catch (err) {
      errors[target] = errorText(err);
      rows = [];
    }
    if (key === "status" || key === "variables") {
      const map: Record<string, string> = {};
      for (const r of rows) map[String(r["Variable_name"])] = String(rewrite(r["Value"] ?? ""));
      out[key] = map;
    } else {
      out[key] = rows.map((r) => Object.fromEntries(Object.entries(r).map(([k, v]) => [k, rewrite(v)])));
    }
  }
  if (Object.keys(errors).length > 0) {
    out["errors"] = Object.fromEntries(FIXTURE_TARGETS.filter((t) => errors[t]).map((t) => [t, errors[t]]));
  }
  return fixtureSchema.parse(out);
}
