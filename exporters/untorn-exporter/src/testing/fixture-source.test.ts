import { describe, expect, it } from "vitest";
import {
  type FixtureInput,
  FixtureServerError,
  FixtureSource,
  fixtureSchema,
  UnsupportedSqlError,
} from "./fixture-source.js";

const base: FixtureInput = {
  description: "unit-test server",
  server: {
    version: "8.0.36",
    version_comment: "MySQL Community Server - GPL",
    datadir: "/var/lib/mysql/",
    page_size: 16384,
    performance_schema: true,
  },
  status: { Innodb_dblwr_writes: "7", Innodb_dblwr_pages_written: "21", Uptime: "60" },
  variables: {
    innodb_doublewrite: "ON",
    innodb_page_size: "16384",
    performance_schema: "ON",
    basedir: "/usr/",
  },
  setup_instruments: [
    { NAME: "wait/io/file/innodb/innodb_dblwr_file", ENABLED: "YES", TIMED: "YES" },
    { NAME: "wait/synch/mutex/innodb/dblwr_mutex", ENABLED: "NO", TIMED: "NO" },
  ],
  file_summary_by_instance: [
    {
      FILE_NAME: "/var/lib/mysql/ibdata1",
      EVENT_NAME: "wait/io/file/innodb/innodb_data_file",
      COUNT_WRITE: "5",
    },
    {
      FILE_NAME: "/var/lib/mysql/undo_001",
      EVENT_NAME: "wait/io/file/innodb/innodb_data_file",
      COUNT_WRITE: "3",
    },
    {
      FILE_NAME: "/var/lib/mysql/app/t.ibd",
      EVENT_NAME: "wait/io/file/innodb/innodb_data_file",
      COUNT_WRITE: "9",
    },
    {
      FILE_NAME: "/var/lib/mysql/#ib_16384_0.dblwr",
      EVENT_NAME: "wait/io/file/innodb/innodb_dblwr_file",
      COUNT_WRITE: "7",
    },
  ],
  innodb_metrics: [
    { NAME: "innodb_dblwr_writes", SUBSYSTEM: "server", COUNT: "7", STATUS: "enabled" },
    { NAME: "dblwr_flush_wait_events", SUBSYSTEM: "dblwr", COUNT: "0", STATUS: "disabled" },
  ],
};

const source = (over: Partial<FixtureInput> = {}) =>
  new FixtureSource(fixtureSchema.parse({ ...base, ...over }));
const ask = (sql: string, over: Partial<FixtureInput> = {}) =>
  source(over)
    .queryable(Date.now() + 5000)
    .query(sql);

describe("FixtureSource", () => {
  it("answers the server query from `server`, page size as the driver's string", async () => {
    const rows = await ask(
      "SELECT @@version AS version, @@version_comment AS version_comment, @@datadir AS datadir, " +
        "@@innodb_page_size AS page_size, @@performance_schema AS performance_schema",
    );
    expect(rows).toEqual([
      {
        version: "8.0.36",
        version_comment: "MySQL Community Server - GPL",
        datadir: "/var/lib/mysql/",
        page_size: "16384",
        performance_schema: 1,
      },
    ]);
  });

  it("answers SHOW GLOBAL VARIABLES only with the names in the IN list that the server has", async () => {
    const rows = await ask(
      "SHOW GLOBAL VARIABLES WHERE Variable_name IN ('innodb_doublewrite', 'innodb_doublewrite_pages', 'basedir')",
    );
    expect(rows).toEqual([
      { Variable_name: "basedir", Value: "/usr/" },
      { Variable_name: "innodb_doublewrite", Value: "ON" },
    ]);
  });

  it("answers SHOW GLOBAL STATUS with every variable, and LIKE case-insensitively", async () => {
    expect(await ask("SHOW GLOBAL STATUS")).toHaveLength(3);
    expect(await ask("SHOW GLOBAL STATUS LIKE 'innodb_dblwr%'")).toEqual([
      { Variable_name: "Innodb_dblwr_pages_written", Value: "21" },
      { Variable_name: "Innodb_dblwr_writes", Value: "7" },
    ]);
  });

  it("evaluates AND, OR, LIKE and parentheses, and projects the selected columns", async () => {
    const rows = await ask(
      "SELECT FILE_NAME, COUNT_WRITE FROM performance_schema.file_summary_by_instance " +
        "WHERE EVENT_NAME = 'wait/io/file/innodb/innodb_data_file' AND (FILE_NAME LIKE '%ibdata%' OR FILE_NAME LIKE '%undo%')",
    );
    expect(rows).toEqual([
      { FILE_NAME: "/var/lib/mysql/ibdata1", COUNT_WRITE: "5" },
      { FILE_NAME: "/var/lib/mysql/undo_001", COUNT_WRITE: "3" },
    ]);
  });

  it("returns whole rows for SELECT * and filters on equality", async () => {
    const rows = await ask("SELECT * FROM information_schema.INNODB_METRICS WHERE SUBSYSTEM = 'dblwr'");
    expect(rows).toEqual([
      { NAME: "dblwr_flush_wait_events", SUBSYSTEM: "dblwr", COUNT: "0", STATUS: "disabled" },
    ]);
  });

  it("fails loudly on SQL it does not know", async () => {
    for (const sql of [
      "SHOW ENGINE INNODB STATUS",
      "SELECT * FROM performance_schema.threads",
      "SELECT NAME FROM performance_schema.setup_instruments ORDER BY NAME",
      "SELECT NAME FROM performance_schema.setup_instruments WHERE NAME REGEXP 'dblwr'",
      "SELECT @@version, NOW()",
    ]) {
      await expect(ask(sql), sql).rejects.toBeInstanceOf(UnsupportedSqlError);
    }
    await expect(
      source()
        .queryable(Date.now() + 5000)
        .query("SHOW GLOBAL STATUS", [1]),
    ).rejects.toThrow(/bound parameters/);
  });

  it("answers an unknown column or system variable as the server does", async () => {
    await expect(ask("SELECT NAME, FLAGS FROM performance_schema.setup_instruments")).rejects.toMatchObject({
      errno: 1054,
      code: "ER_BAD_FIELD_ERROR",
    });
    await expect(ask("SELECT @@aurora_version AS v")).rejects.toMatchObject({ errno: 1193 });
  });

  it("emulates missing grants per table with a mysql2-shaped error", async () => {
    const denied =
      "SELECT command denied to user 'untorn'@'10.0.0.5' for table 'setup_instruments' (errno 1142)";
    const err = await ask("SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments", {
      errors: { "performance_schema.setup_instruments": denied },
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(FixtureServerError);
    expect(err).toMatchObject({
      errno: 1142,
      code: "ER_TABLEACCESS_DENIED_ERROR",
      message: "SELECT command denied to user 'untorn'@'10.0.0.5' for table 'setup_instruments'",
    });
    // Other statements still work.
    expect(
      await ask("SHOW GLOBAL STATUS", { errors: { "performance_schema.setup_instruments": denied } }),
    ).toHaveLength(3);
  });

  it("records every statement it ran", async () => {
    const s = source();
    await s.queryable(Date.now() + 5000).query("SHOW GLOBAL STATUS");
    expect(s.statements).toEqual(["SHOW GLOBAL STATUS"]);
  });
});

describe("fixtureSchema", () => {
  const issues = (input: unknown) => {
    const r = fixtureSchema.safeParse(input);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it("accepts the base fixture", () => {
    expect(issues(base)).toEqual([]);
  });

  it("rejects fixtures that contradict themselves", () => {
    expect(issues({ ...base, variables: { ...base.variables, innodb_page_size: "8192" } })).toEqual([
      "variables.innodb_page_size: disagrees with server.page_size 16384",
    ]);
    expect(issues({ ...base, server: { ...base.server, performance_schema: false }, variables: {} })).toEqual(
      [
        "setup_instruments: must be empty when performance_schema is OFF",
        "file_summary_by_instance: must be empty when performance_schema is OFF",
      ],
    );
    expect(issues({ ...base, innodb_metrics: [{ NAME: "x", SUBSYSTEM: "dblwr", COUNT: "1" }] })).toEqual([
      "innodb_metrics.0: needs exactly one of STATUS (MySQL) or ENABLED (MariaDB)",
    ]);
  });

  it("rejects unknown keys, unknown error targets and errors without an errno", () => {
    expect(issues({ ...base, statuss: {} }).length).toBeGreaterThan(0);
    expect(issues({ ...base, errors: { "performance_schema.threads": "denied (errno 1142)" } }).length).toBe(
      1,
    );
    expect(issues({ ...base, errors: { "SHOW GLOBAL STATUS": "denied" } }).length).toBe(1);
  });
});
