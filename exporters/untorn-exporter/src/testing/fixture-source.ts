// A QuerySource that answers the exporter's SQL from a recorded or hand-built server fixture
// (testdata/servers/<case>/fixture.json), so flavors that cannot run here are still scraped end to end.
import { readFile } from "node:fs/promises";
import { z } from "zod";
import type { Queryable, Row } from "../collector.js";
import type { QuerySource } from "../scrape.js";
import { atLeast, detectFlavor, parseVersion } from "../version.js";

/** Keys of `errors`: a statement kind or a table, as the dispatcher names them. */
export const FIXTURE_TARGETS = [
  "server",
  "SHOW GLOBAL STATUS",
  "SHOW GLOBAL VARIABLES",
  "performance_schema.setup_instruments",
  "performance_schema.file_summary_by_event_name",
  "performance_schema.file_summary_by_instance",
  "performance_schema.events_waits_summary_global_by_event_name",
  "information_schema.INNODB_METRICS",
  "information_schema.PROCESSLIST",
  "SHOW REPLICA STATUS",
] as const;
export type FixtureTarget = (typeof FIXTURE_TARGETS)[number];

/** Table name (lower case, as MySQL resolves it) → fixture key. */
const TABLES: Readonly<Record<string, { target: FixtureTarget; key: TableKey }>> = {
  "performance_schema.setup_instruments": {
    target: "performance_schema.setup_instruments",
    key: "setup_instruments",
  },
  "performance_schema.file_summary_by_event_name": {
    target: "performance_schema.file_summary_by_event_name",
    key: "file_summary_by_event_name",
  },
  "performance_schema.file_summary_by_instance": {
    target: "performance_schema.file_summary_by_instance",
    key: "file_summary_by_instance",
  },
  "performance_schema.events_waits_summary_global_by_event_name": {
    target: "performance_schema.events_waits_summary_global_by_event_name",
    key: "events_waits_summary_global_by_event_name",
  },
  "information_schema.innodb_metrics": { target: "information_schema.INNODB_METRICS", key: "innodb_metrics" },
  "information_schema.processlist": { target: "information_schema.PROCESSLIST", key: "processlist" },
};

/** A cell as mysql2 returns it with bigNumberStrings: BIGINT columns as strings, INT as numbers. */
const cell = z.union([z.string(), z.number(), z.null()]);
const rowWith = <S extends z.ZodRawShape>(shape: S) => z.object(shape).catchall(cell);

const P_S_TABLES = [
  "setup_instruments",
  "file_summary_by_event_name",
  "file_summary_by_instance",
  "events_waits_summary_global_by_event_name",
] as const;
type TableKey = (typeof P_S_TABLES)[number] | "innodb_metrics" | "processlist";

export const fixtureSchema = z
  .object({
    /** One line: what this case is and why it exists. */
    description: z.string().min(1),
    /** What `SELECT @@version, @@version_comment, @@datadir, @@innodb_page_size, @@performance_schema` returns. */
    server: z
      .object({
        version: z.string().min(1),
        version_comment: z.string(),
        datadir: z.string(),
        page_size: z.number().int().positive(),
        performance_schema: z.boolean(),
      })
      .strict(),
    /** SHOW GLOBAL STATUS: name → value, values as the server prints them. */
    status: z.record(z.string(), z.string()),
    /** SHOW GLOBAL VARIABLES: only the names the server has (a missing name is a missing variable). */
    variables: z.record(z.string(), z.string()),
    setup_instruments: z
      .array(rowWith({ NAME: z.string(), ENABLED: z.string(), TIMED: z.string() }))
      .default([]),
    file_summary_by_event_name: z.array(rowWith({ EVENT_NAME: z.string() })).default([]),
    file_summary_by_instance: z.array(rowWith({ FILE_NAME: z.string(), EVENT_NAME: z.string() })).default([]),
    events_waits_summary_global_by_event_name: z.array(rowWith({ EVENT_NAME: z.string() })).default([]),
    /** MySQL rows carry STATUS ('enabled'/'disabled'), MariaDB 10.5+ rows ENABLED (1/0). */
    innodb_metrics: z.array(rowWith({ NAME: z.string(), SUBSYSTEM: z.string() })).default([]),
    /** information_schema.PROCESSLIST rows (only COMMAND is read: binlog dump threads of connected replicas). */
    processlist: z.array(rowWith({ COMMAND: z.string() })).default([]),
    /**
     * SHOW REPLICA STATUS / SHOW SLAVE STATUS / SHOW ALL SLAVES STATUS rows with the column names the
     * server's syntax prints (MySQL 8.0.22+ Replica_* / Source_*, else Slave_* / Master_*); empty on a
     * server that is not a replica. Which statement the server accepts follows its version.
     */
    replica_status: z.array(rowWith({})).default([]),
    /** Statements or tables that fail, e.g. missing grants: "SELECT command denied … (errno 1142)". */
    errors: z.partialRecord(z.enum(FIXTURE_TARGETS), z.string().regex(/\(errno \d+\)$/)).optional(),
  })
  .strict()
  .superRefine((f, ctx) => {
    const pageSize = f.variables["innodb_page_size"];
    if (pageSize !== undefined && pageSize !== String(f.server.page_size)) {
      ctx.addIssue({
        code: "custom",
        path: ["variables", "innodb_page_size"],
        message: `disagrees with server.page_size ${f.server.page_size}`,
      });
    }
    const ps = f.variables["performance_schema"];
    if (ps !== undefined && (ps === "ON") !== f.server.performance_schema) {
      ctx.addIssue({
        code: "custom",
        path: ["variables", "performance_schema"],
        message: "disagrees with server.performance_schema",
      });
    }
    if (!f.server.performance_schema) {
      // With performance_schema OFF the tables exist but are empty (MySQL and MariaDB alike).
      for (const t of P_S_TABLES) {
        if (f[t].length > 0) {
          ctx.addIssue({
            code: "custom",
            path: [t],
            message: "must be empty when performance_schema is OFF",
          });
        }
      }
    }
    f.innodb_metrics.forEach((r, i) => {
      if ("STATUS" in r === "ENABLED" in r) {
        ctx.addIssue({
          code: "custom",
          path: ["innodb_metrics", i],
          message: "needs exactly one of STATUS (MySQL) or ENABLED (MariaDB)",
        });
      }
    });
  });

export type Fixture = z.output<typeof fixtureSchema>;
export type FixtureInput = z.input<typeof fixtureSchema>;

export async function loadFixture(path: string): Promise<Fixture> {
  const text = await readFile(path, "utf8");
  const parsed = fixtureSchema.safeParse(JSON.parse(text));
  if (!parsed.success) throw new Error(`${path}: invalid fixture\n${z.prettifyError(parsed.error)}`);
  return parsed.data;
}

/** Shaped like a mysql2 server error, so code that inspects errno or code sees what a live server sends. */
export class FixtureServerError extends Error {
  readonly errno: number;
  readonly code: string;
  readonly sqlMessage: string;
  constructor(message: string) {
    const m = /^(.*?)\s*\(errno (\d+)\)$/s.exec(message);
    const text = m?.[1] ?? message;
    super(text);
    this.name = "FixtureServerError";
    this.errno = Number(m?.[2] ?? 0);
    this.code = ERROR_CODES[this.errno] ?? `ER_${this.errno}`;
    this.sqlMessage = text;
  }
}

const ERROR_CODES: Readonly<Record<number, string>> = {
  1044: "ER_DBACCESS_DENIED_ERROR",
  1054: "ER_BAD_FIELD_ERROR",
  1064: "ER_PARSE_ERROR",
  1142: "ER_TABLEACCESS_DENIED_ERROR",
  1227: "ER_SPECIFIC_ACCESS_DENIED_ERROR",
};

/** Thrown for SQL the fixture cannot answer, so a new query without fixture support fails loudly. */
export class UnsupportedSqlError extends Error {
  constructor(sql: string, why: string) {
    super(`fixture source cannot answer (${why}): ${sql}`);
    this.name = "UnsupportedSqlError";
  }
}

// ---- a small SQL reader: the statement shapes the collectors send, nothing more ----

type Token =
  | { kind: "word"; text: string }
  | { kind: "sysvar"; text: string }
  | { kind: "string"; text: string }
  | { kind: "number"; text: string }
  | { kind: "punct"; text: string };

const TOKEN =
  /\s*(?:@@(?:global\.)?([A-Za-z_]\w*)|([A-Za-z_][\w$]*)|`([^`]+)`|'((?:[^'\\]|\\.|'')*)'|(\d+(?:\.\d+)?)|([(),=*.;]))/y;

function tokenize(sql: string): Token[] {
  const out: Token[] = [];
  let pos = 0;
  while (pos < sql.length) {
    if (/^\s*$/.test(sql.slice(pos))) break;
    TOKEN.lastIndex = pos;
    const m = TOKEN.exec(sql);
    if (!m) throw new UnsupportedSqlError(sql, `unexpected text at ${pos}`);
    pos = TOKEN.lastIndex;
    if (m[1] !== undefined) out.push({ kind: "sysvar", text: m[1].toLowerCase() });
    else if (m[2] !== undefined) out.push({ kind: "word", text: m[2] });
    else if (m[3] !== undefined) out.push({ kind: "word", text: m[3] });
    else if (m[4] !== undefined)
      out.push({ kind: "string", text: m[4].replace(/''/g, "'").replace(/\\(.)/g, "$1") });
    else if (m[5] !== undefined) out.push({ kind: "number", text: m[5] });
    else if (m[6] !== undefined && m[6] !== ";") out.push({ kind: "punct", text: m[6] });
  }
  return out;
}

/** WHERE predicates: IN lists, =, LIKE, combined with AND/OR and parentheses. */
type Predicate =
  | { op: "in"; column: string; values: string[]; not: boolean }
  | { op: "eq"; column: string; value: string }
  | { op: "like"; column: string; pattern: RegExp; not: boolean }
  | { op: "and"; parts: Predicate[] }
  | { op: "or"; parts: Predicate[] };

type Statement =
  | { kind: "server"; items: { name: string; alias: string }[] }
  | { kind: "replica_status"; syntax: "replica" | "slave" | "all_slaves" }
  | { kind: "show"; what: "status" | "variables"; where?: Predicate }
  | { kind: "select"; table: string; columns: "*" | string[]; where?: Predicate };

class Reader {
  private i = 0;
  constructor(
    private readonly tokens: Token[],
    private readonly sql: string,
  ) {}

  fail(why: string): never {
    throw new UnsupportedSqlError(this.sql, why);
  }
  peek(): Token | undefined {
    return this.tokens[this.i];
  }
  done(): boolean {
    return this.i >= this.tokens.length;
  }
  isWord(w: string): boolean {
    const t = this.peek();
    return t?.kind === "word" && t.text.toUpperCase() === w;
  }
  isPunct(p: string): boolean {
    const t = this.peek();
    return t?.kind === "punct" && t.text === p;
  }
  word(w?: string): string {
    const t = this.tokens[this.i++];
    if (t?.kind !== "word" || (w !== undefined && t.text.toUpperCase() !== w)) {
      this.fail(`expected ${w ?? "a name"}, got ${t ? `'${t.text}'` : "the end"}`);
    }
    return t.text;
  }
  punct(p: string): void {
    const t = this.tokens[this.i++];
    if (t?.kind !== "punct" || t.text !== p)
      this.fail(`expected '${p}', got ${t ? `'${t.text}'` : "the end"}`);
  }
  literal(): string {
    const t = this.tokens[this.i++];
    if (t?.kind !== "string" && t?.kind !== "number") this.fail("expected a literal");
    return t.text;
  }
  sysvar(): string | undefined {
    const t = this.peek();
    if (t?.kind !== "sysvar") return undefined;
    this.i++;
    return t.text;
  }
}

function likeToRegExp(pattern: string): RegExp {
  let re = "";
  for (const ch of pattern) {
    if (ch === "%") re += ".*";
    else if (ch === "_") re += ".";
    else re += ch.replace(/[.*+?^${}()|[\]\\/]/g, "\\$&");
  }
  // MySQL's default collations compare case-insensitively.
  return new RegExp(`^${re}$`, "is");
}

function parseExpr(r: Reader): Predicate {
  const parts = [parseAnd(r)];
  while (r.isWord("OR")) {
    r.word("OR");
    parts.push(parseAnd(r));
  }
  return parts.length === 1 ? parts[0]! : { op: "or", parts };
}

function parseAnd(r: Reader): Predicate {
  const parts = [parsePrimary(r)];
  while (r.isWord("AND")) {
    r.word("AND");
    parts.push(parsePrimary(r));
  }
  return parts.length === 1 ? parts[0]! : { op: "and", parts };
}

function parsePrimary(r: Reader): Predicate {
  if (r.isPunct("(")) {
    r.punct("(");
    const e = parseExpr(r);
    r.punct(")");
    return e;
  }
  const column = r.word();
  let not = false;
  if (r.isWord("NOT")) {
    r.word("NOT");
    not = true;
  }
  if (r.isWord("IN")) {
    r.word("IN");
    r.punct("(");
    const values = [r.literal()];
    while (r.isPunct(",")) {
      r.punct(",");
      values.push(r.literal());
    }
    r.punct(")");
    return { op: "in", column, values, not };
  }
  if (r.isWord("LIKE")) {
    r.word("LIKE");
    return { op: "like", column, pattern: likeToRegExp(r.literal()), not };
  }
  if (!not && r.isPunct("=")) {
    r.punct("=");
    return { op: "eq", column, value: r.literal() };
  }
  return r.fail(`unsupported predicate on ${column}`);
}

/** SHOW REPLICA STATUS, SHOW SLAVE STATUS, SHOW ALL SLAVES STATUS (after SHOW), or undefined. */
function parseReplicaStatus(r: Reader): Statement | undefined {
  let syntax: "replica" | "slave" | "all_slaves";
  if (r.isWord("REPLICA")) {
    r.word("REPLICA");
    syntax = "replica";
  } else if (r.isWord("SLAVE")) {
    r.word("SLAVE");
    syntax = "slave";
  } else if (r.isWord("ALL")) {
    r.word("ALL");
    r.word("SLAVES");
    syntax = "all_slaves";
  } else {
    return undefined;
  }
  r.word("STATUS");
  if (!r.done()) r.fail("trailing text");
  return { kind: "replica_status", syntax };
}

/**
 * Whether the fixture's server accepts the statement: MySQL 8.0.22 added SHOW REPLICA STATUS and 8.4
 * removed SHOW SLAVE STATUS; SHOW ALL SLAVES STATUS is MariaDB only; MariaDB 10.5.1 added the REPLICA
 * spelling. https://dev.mysql.com/doc/refman/8.4/en/mysql-nutshell.html, https://mariadb.com/kb/en/show-replica-status/
 */
function acceptsReplicaStatus(f: Fixture, syntax: "replica" | "slave" | "all_slaves"): boolean {
  const v = parseVersion(f.server.version);
  if (detectFlavor(f.server.version, f.server.version_comment) === "mariadb") {
    return syntax !== "replica" || atLeast(v, [10, 5, 1]);
  }
  if (syntax === "all_slaves") return false;
  if (syntax === "replica") return atLeast(v, [8, 0, 22]);
  return !atLeast(v, [8, 4, 0]);
}

function parse(sql: string): Statement {
  const r = new Reader(tokenize(sql), sql);
  if (r.isWord("SHOW")) {
    r.word("SHOW");
    const replicaStatus = parseReplicaStatus(r);
    if (replicaStatus) return replicaStatus;
    r.word("GLOBAL");
    const what = r.word().toUpperCase();
    if (what !== "STATUS" && what !== "VARIABLES") r.fail(`SHOW GLOBAL ${what}`);
    let where: Predicate | undefined;
    if (r.isWord("WHERE")) {
      r.word("WHERE");
      where = parseExpr(r);
    } else if (r.isWord("LIKE")) {
      r.word("LIKE");
      where = { op: "like", column: "Variable_name", pattern: likeToRegExp(r.literal()), not: false };
    }
    if (!r.done()) r.fail("trailing text");
    return { kind: "show", what: what === "STATUS" ? "status" : "variables", where };
  }
  r.word("SELECT");
  const first = r.sysvar();
  if (first !== undefined) {
    const items: { name: string; alias: string }[] = [];
    let name: string | undefined = first;
    while (name !== undefined) {
      let alias = `@@${name}`;
      if (r.isWord("AS")) {
        r.word("AS");
        alias = r.word();
      }
      items.push({ name, alias });
      if (!r.isPunct(",")) break;
      r.punct(",");
      name = r.sysvar() ?? r.fail("mixes @@variables with other expressions");
    }
    if (!r.done()) r.fail("system-variable SELECT with more than a list of @@variables");
    return { kind: "server", items };
  }
  let columns: "*" | string[];
  if (r.isPunct("*")) {
    r.punct("*");
    columns = "*";
  } else {
    columns = [r.word()];
    while (r.isPunct(",")) {
      r.punct(",");
      columns.push(r.word());
    }
  }
  r.word("FROM");
  const schema = r.word();
  r.punct(".");
  const table = `${schema}.${r.word()}`.toLowerCase();
  let where: Predicate | undefined;
  if (r.isWord("WHERE")) {
    r.word("WHERE");
    where = parseExpr(r);
  }
  if (!r.done()) r.fail("unsupported clause after WHERE (ORDER BY, LIMIT, … are not emulated)");
  return { kind: "select", table, columns, where };
}

/** Column lookup as MySQL does it: names are case-insensitive. */
function columnOf(row: Row, column: string): { found: boolean; value: unknown } {
  if (column in row) return { found: true, value: row[column] };
  const lower = column.toLowerCase();
  for (const k of Object.keys(row)) if (k.toLowerCase() === lower) return { found: true, value: row[k] };
  return { found: false, value: undefined };
}

function matches(p: Predicate, row: Row): boolean {
  if (p.op === "and") return p.parts.every((q) => matches(q, row));
  if (p.op === "or") return p.parts.some((q) => matches(q, row));
  const { found, value } = columnOf(row, p.column);
  if (!found) throw new FixtureServerError(`Unknown column '${p.column}' in 'where clause' (errno 1054)`);
  if (value === null || value === undefined) return false; // NULL compares as unknown
  const v = String(value);
  switch (p.op) {
    case "in":
      return p.values.some((x) => x.toLowerCase() === v.toLowerCase()) !== p.not;
    case "eq":
      return p.value.toLowerCase() === v.toLowerCase();
    case "like":
      return p.pattern.test(v) !== p.not;
  }
}

function project(rows: Row[], columns: "*" | string[]): Row[] {
  if (columns === "*") return rows.map((r) => ({ ...r }));
  return rows.map((r) => {
    const out: Row = {};
    for (const c of columns) {
      const { found, value } = columnOf(r, c);
      if (!found) throw new FixtureServerError(`Unknown column '${c}' in 'field list' (errno 1054)`);
      out[c] = value;
    }
    return out;
  });
}

/** @@variables the server query may ask for, answered from `server`. */
function serverValue(f: Fixture, name: string): unknown {
  switch (name) {
    case "version":
      return f.server.version;
    case "version_comment":
      return f.server.version_comment;
    case "datadir":
      return f.server.datadir;
    case "innodb_page_size":
      // BIGINT system variable: mysql2 with bigNumberStrings hands it over as a string.
      return String(f.server.page_size);
    case "performance_schema":
      return f.server.performance_schema ? 1 : 0;
    default:
      if (name in f.variables) return f.variables[name];
      throw new FixtureServerError(`Unknown system variable '${name}' (errno 1193)`);
  }
}

/** Answers the exporter's statements from a fixture; every statement it ran is in `statements`. */
export class FixtureSource implements QuerySource {
  readonly statements: string[] = [];

  constructor(readonly fixture: Fixture) {}

  queryable(deadline: number): Queryable {
    return {
      query: async (sql: string, params?: unknown[]): Promise<Row[]> => {
        if (params !== undefined && params.length > 0) throw new UnsupportedSqlError(sql, "bound parameters");
        if (Date.now() > deadline) throw new Error(`deadline passed before: ${sql}`);
        this.statements.push(sql);
        return this.answer(sql);
      },
    };
  }

  private fail(target: FixtureTarget): void {
    const message = this.fixture.errors?.[target];
    if (message !== undefined) throw new FixtureServerError(message);
  }

  answer(sql: string): Row[] {
    const st = parse(sql);
    const f = this.fixture;
    if (st.kind === "server") {
      this.fail("server");
      const row: Row = {};
      for (const { name, alias } of st.items) row[alias] = serverValue(f, name);
      return [row];
    }
    if (st.kind === "replica_status") {
      if (!acceptsReplicaStatus(f, st.syntax)) {
        throw new FixtureServerError(
          `You have an error in your SQL syntax; check the manual for the right syntax to use near 'STATUS' (errno 1064)`,
        );
      }
      this.fail("SHOW REPLICA STATUS");
      return f.replica_status.map((r) => ({ ...r }));
    }
    if (st.kind === "show") {
      this.fail(st.what === "status" ? "SHOW GLOBAL STATUS" : "SHOW GLOBAL VARIABLES");
      const source = st.what === "status" ? f.status : f.variables;
      const rows: Row[] = Object.entries(source)
        .sort(([a], [b]) => a.toLowerCase().localeCompare(b.toLowerCase()))
        .map(([Variable_name, Value]) => ({ Variable_name, Value }));
      return st.where ? rows.filter((r) => matches(st.where!, r)) : rows;
    }
    const table = TABLES[st.table];
    if (!table) throw new UnsupportedSqlError(sql, `no fixture data for table ${st.table}`);
    this.fail(table.target);
    const rows = f[table.key] as Row[];
    const selected = st.where ? rows.filter((r) => matches(st.where!, r)) : rows;
    return project(selected, st.columns);
  }
}
