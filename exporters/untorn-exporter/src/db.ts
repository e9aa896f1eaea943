import mysql from "mysql2/promise";
import { safeAuthPlugins } from "./auth.js";
import type { Queryable, Row } from "./collector.js";
import { withTimeout } from "./timeout.js";

export interface ConnectionTarget {
  /** "host:port", "[v6]:port", "host" (port 3306) or an absolute unix socket path. */
  address: string;
  user: string;
  password: string;
  tls?: { ca?: string; cert?: string; key?: string; rejectUnauthorized?: boolean };
  /** PEM of the server's RSA public key, for caching_sha2_password / sha256_password without TLS. */
  serverPublicKey?: string;
  /** Whether the server may ask for mysql_clear_password (then only over TLS or a socket). */
  allowCleartext?: boolean;
}

/** Thrown when a query ran past its budget; the server-side statement is killed. */
export class QueryTimeoutError extends Error {
  constructor(ms: number, sql: string) {
    super(`query exceeded its ${ms} ms budget and was killed: ${sql.slice(0, 80)}`);
    this.name = "QueryTimeoutError";
  }
}

/** A connection that could not be opened, with the address and what it means. */
export class ConnectError extends Error {
  constructor(
    address: string,
    reason: string,
    readonly code?: string,
  ) {
    super(`cannot connect to ${address}: ${reason}`);
    this.name = "ConnectError";
  }
}

// Keep the exporter's own queries out of the slow log. long_query_time covers slow statements on MySQL
// and MariaDB; min_examined_row_limit also keeps out the full scans of performance_schema that
// log_queries_not_using_indexes would log whatever their time; MariaDB also has a session
// slow_query_log. Each is tried on its own: a server without one, or refusing one, ignores it.
const SESSION_SETTINGS = [
  "SET SESSION long_query_time = 31536000",
  "SET SESSION min_examined_row_limit = 4294967295",
  "SET SESSION slow_query_log = OFF",
];

/** A live MySQL server sends its greeting within milliseconds of the TCP accept. */
const HANDSHAKE_TIMEOUT_MS = 3000;

export function connectionOptions(t: ConnectionTarget, connectTimeout = HANDSHAKE_TIMEOUT_MS) {
  const base: mysql.ConnectionOptions = {
    user: t.user,
    password: t.password,
    connectTimeout,
    supportBigNumbers: true,
    bigNumberStrings: true,
    dateStrings: true,
    authPlugins: safeAuthPlugins({
      ...(t.serverPublicKey ? { serverPublicKey: t.serverPublicKey } : {}),
      ...(t.allowCleartext ? { allowCleartext: true } : {}),
    }),
  };
  if (t.address.startsWith("/")) return { ...base, socketPath: t.address };
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(t.address) ?? /^([^:]+)(?::(\d+))?$/.exec(t.address);
  if (!m) throw new Error(`invalid MySQL address '${t.address}': expected host:port or a socket path`);
  const ssl = t.tls ? { ...t.tls } : undefined;
  return { ...base, host: m[1], port: m[2] ? Number(m[2]) : 3306, ...(ssl ? { ssl } : {}) };
}

/** mysql2's connect errors, said with the address and what they usually mean. */
export function explainConnectError(address: string, err: unknown, timeoutMs: number): Error {
  const e = err as { code?: string; message?: string; errno?: number; sqlMessage?: string };
  const code = e.code ?? "";
  if (typeof e.errno === "number" && e.sqlMessage) return new ConnectError(address, e.sqlMessage, code);
  const reasons: Record<string, string> = {
    ETIMEDOUT: `no MySQL greeting within ${timeoutMs} ms: nothing answering there, or not a MySQL server`,
    ECONNREFUSED: "connection refused: no server listening on that port",
    ENOENT: "no such socket file",
    EACCES: "permission denied on the socket file",
    ECONNRESET: "the peer closed the connection during the handshake: not a MySQL server, or it refused us",
    EHOSTUNREACH: "host unreachable",
    ENOTFOUND: "host name not found",
    PROTOCOL_CONNECTION_LOST: "the peer closed the connection during the handshake: not a MySQL server?",
    HANDSHAKE_NO_SSL_SUPPORT: "TLS is configured but the server does not offer it",
  };
  const reason = reasons[code] ?? e.message ?? String(err);
  return new ConnectError(address, reason, code);
}

type Conn = mysql.Connection;

/**
 * Closes `conn` the way the server counts it: COM_QUIT, then wait for the server to close its end. MariaDB
 * and MySQL take the connection off MAX_USER_CONNECTIONS before they close the socket, so once it closes the
 * slot is really free (a bare destroy() frees it only when the server notices, which can be after the next
 * connect). Gives up waiting after `ms` (a dead server) and never throws.
 */
function closeCounted(conn: Conn, ms = HANDSHAKE_TIMEOUT_MS): Promise<void> {
  const stream = (
    conn as unknown as { connection?: { stream?: NodeJS.EventEmitter & { destroyed?: boolean } } }
  ).connection?.stream;
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      conn.destroy();
      resolve();
    };
    const timer = setTimeout(done, ms);
    timer.unref();
    if (!stream || stream.destroyed) return done();
    stream.once("close", done);
    conn.end().catch(done);
  });
}

/** Waits (up to `ms`) until thread `threadId` has left the server: until then it counts as a connection. */
async function waitGone(c: Conn, threadId: number, ms: number): Promise<void> {
  const until = Date.now() + ms;
  while (Date.now() < until) {
    const [rows] = await c.query({
      sql: "SELECT 1 FROM information_schema.PROCESSLIST WHERE ID = ?",
      values: [threadId],
      timeout: HANDSHAKE_TIMEOUT_MS,
    });
    if ((rows as unknown[]).length === 0) return;
    await new Promise((r) => setTimeout(r, 20));
  }
}

/**
 * Every query connection the process holds, across all targets, counts against `limit`; one more is kept
 * for KILL QUERY (kills run one at a time through it), so `limit + 1` is the most ever open.
 */
export class ConnectionBudget {
  open = 0;
  /** Most query connections ever open at once. */
  peak = 0;
  private readonly waiters = new Set<() => void>();
  private readonly pools = new Set<TargetPool>();
  private kills: Promise<void> = Promise.resolve();

  /** `maxConnections` includes the one kept for KILL QUERY. */
  constructor(readonly maxConnections: number) {}

  get limit(): number {
    return Math.max(1, this.maxConnections - 1);
  }

  register(p: TargetPool): void {
    this.pools.add(p);
  }

  unregister(p: TargetPool): void {
    this.pools.delete(p);
  }

  /**
   * Takes a slot; at the limit, starts closing another pool's idle connection and says no (its slot frees
   * once the server has let it go, and the waiter is woken then).
   */
  tryReserve(requester: TargetPool): boolean {
    if (this.open >= this.limit) {
      let victim: TargetPool | undefined;
      for (const p of this.pools) {
        if (p !== requester && p.idleCount() > 0 && (!victim || p.lastUsed < victim.lastUsed)) victim = p;
      }
      victim?.closeOneIdle();
      return false;
    }
    this.open++;
    this.peak = Math.max(this.peak, this.open);
    return true;
  }

  free(): void {
    this.open--;
    this.wake();
  }

  wake(): void {
    for (const w of [...this.waiters]) w();
  }

  /** Resolves on the next release or close anywhere, or after `ms`. */
  wait(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.waiters.delete(done);
        resolve();
      };
      const timer = setTimeout(done, ms);
      this.waiters.add(done);
    });
  }

  get waiting(): number {
    return this.waiters.size;
  }

  /** Queues a KILL QUERY; resolves once it ran (or failed). */
  kill(target: ConnectionTarget, threadId: number): Promise<void> {
    this.kills = this.kills.then(() => killQuery(target, threadId));
    return this.kills;
  }
}

/**
 * Best effort KILL QUERY for a statement whose client gave up, resolving once the killed thread has left the
 * server and the kill's own connection is closed (both count against MAX_USER_CONNECTIONS); never throws.
 */
async function killQuery(target: ConnectionTarget, threadId: number): Promise<void> {
  try {
    const c = await mysql.createConnection(connectionOptions(target));
    try {
      await c.query({ sql: `KILL QUERY ${Number(threadId)}`, timeout: HANDSHAKE_TIMEOUT_MS });
      await waitGone(c, Number(threadId), 2 * HANDSHAKE_TIMEOUT_MS);
    } finally {
      await closeCounted(c);
    }
  } catch {
    // the server may be gone; nothing more to do
  }
}

/**
 * A small pool for one target, with slow-log-safe sessions and per-query budgets: at most `perTarget`
 * connections, one fewer kept idle (each closed after `idleMs` unused), and every connection counted against the
 * process-wide `ConnectionBudget`.
 */
export class TargetPool {
  lastUsed = Date.now();
  private readonly idle: { conn: Conn; timer: NodeJS.Timeout }[] = [];
  private active = 0;
  private readonly dead = new WeakSet<Conn>();
  private closed = false;
  readonly budget: ConnectionBudget;
  private readonly perTarget: number;
  private readonly maxIdle: number;

  /** With no budget given, the pool has its own of `maxConnections` (one of them kept for KILL QUERY). */
  constructor(
    readonly target: ConnectionTarget,
    maxConnections: number,
    budget?: ConnectionBudget,
    private readonly idleMs = 30_000,
  ) {
    this.budget = budget ?? new ConnectionBudget(maxConnections);
    this.perTarget = Math.min(3, Math.max(1, maxConnections - 1), this.budget.limit);
    this.maxIdle = Math.max(1, this.perTarget - 1);
    this.budget.register(this);
  }

  idleCount(): number {
    return this.idle.length;
  }

  /** Closes the least recently released idle connection; false when none is idle. */
  closeOneIdle(): boolean {
    const entry = this.idle.shift();
    if (!entry) return false;
    clearTimeout(entry.timer);
    this.drop(entry.conn);
    return true;
  }

  /** The slot frees once the server has closed the connection (see closeCounted). */
  private drop(conn: Conn): void {
    void closeCounted(conn).then(() => this.budget.free());
  }

  /** A connection that died while idle (server restart, wait_timeout) leaves the pool at once. */
  private forget(conn: Conn): void {
    this.dead.add(conn);
    const i = this.idle.findIndex((e) => e.conn === conn);
    if (i < 0) return;
    clearTimeout(this.idle[i]!.timer);
    this.idle.splice(i, 1);
    this.drop(conn);
  }

  private async open(deadline: number): Promise<Conn> {
    const timeout = Math.max(1, Math.min(HANDSHAKE_TIMEOUT_MS, deadline - Date.now()));
    let conn: Conn;
    try {
      conn = await mysql.createConnection(connectionOptions(this.target, timeout));
    } catch (err) {
      throw explainConnectError(this.target.address, err, timeout);
    }
    conn.on("error", () => this.forget(conn));
    conn.on("end", () => this.forget(conn));
    for (const sql of SESSION_SETTINGS) await conn.query(sql).catch(() => undefined);
    return conn;
  }

  /** A connection for one statement, or a QueryTimeoutError once `deadline` passes. */
  private async acquire(deadline: number, sql: string): Promise<Conn> {
    for (;;) {
      if (this.closed) throw new Error(`pool for ${this.target.address} is closed`);
      const entry = this.idle.pop();
      if (entry) {
        clearTimeout(entry.timer);
        this.active++;
        return entry.conn;
      }
      if (this.active < this.perTarget && this.budget.tryReserve(this)) {
        this.active++;
        try {
          return await this.open(deadline);
        } catch (err) {
          this.active--;
          this.budget.free();
          throw err;
        }
      }
      const left = deadline - Date.now();
      if (left <= 0) throw new QueryTimeoutError(Math.max(1, deadline - this.lastUsed), sql);
      if (this.budget.waiting > 500) throw new Error("too many statements waiting for a connection");
      await this.budget.wait(left);
    }
  }

  private release(conn: Conn, broken: boolean, killing?: Promise<void>): void {
    if (killing) {
      // The server still runs the statement, and counts the connection against MAX_USER_CONNECTIONS,
      // until the kill lands: the slot is free only then.
      conn.destroy();
      void killing.then(() => {
        this.active--;
        this.budget.free();
      });
      return;
    }
    this.active--;
    // Idle connections per target stay below its limit (one scrape's collectors reuse them, one
    // reconnects); a waiter of another pool at the process-wide limit
    // closes it (ConnectionBudget.tryReserve).
    if (broken || this.closed || this.dead.has(conn) || this.idle.length >= this.maxIdle) {
      this.drop(conn);
      return;
    }
    this.keepIdle(conn);
    this.budget.wake();
  }

  private keepIdle(conn: Conn): void {
    const timer = setTimeout(() => {
      const i = this.idle.findIndex((e) => e.conn === conn);
      if (i >= 0) {
        this.idle.splice(i, 1);
        this.drop(conn);
      }
    }, this.idleMs);
    timer.unref();
    this.idle.push({ conn, timer });
  }

  /** A Queryable whose every statement must finish within `deadline` (epoch ms). */
  queryable(deadline: number): Queryable {
    return {
      query: async (sql: string, params?: unknown[]): Promise<Row[]> => {
        this.lastUsed = Date.now();
        const budget = Math.max(1, deadline - Date.now());
        const pending = this.acquire(deadline, sql);
        // A connection handed out after the budget ran out goes straight back, or the pool leaks it.
        const conn = await withTimeout(
          pending,
          budget,
          () => new QueryTimeoutError(budget, sql),
          () => {
            pending.then(
              (late) => this.release(late, false),
              () => undefined,
            );
          },
        );
        const threadId = conn.threadId;
        let broken = false;
        let killing: Promise<void> | undefined;
        try {
          const remaining = Math.max(1, deadline - Date.now());
          const [rows] = await conn.query({ sql, values: params, timeout: remaining });
          return rows as Row[];
        } catch (err) {
          const code = (err as { code?: string; fatal?: boolean }).code;
          if ((err as { fatal?: boolean }).fatal) broken = true;
          if (code === "PROTOCOL_SEQUENCE_TIMEOUT") {
            broken = true;
            if (threadId !== null) killing = this.budget.kill(this.target, threadId);
            throw new QueryTimeoutError(budget, sql);
          }
          throw err;
        } finally {
          // a timed-out connection is mid-protocol: drop it rather than hand it to the next query
          this.release(conn, broken, killing);
        }
      },
    };
  }

  async close(): Promise<void> {
    this.closed = true;
    while (this.closeOneIdle());
    this.budget.unregister(this);
    this.budget.wake();
  }
}

/** Pools by target key, closing ones unused for `idleMs` and capping how many exist (for /probe). */
export class PoolCache {
  private readonly pools = new Map<string, TargetPool>();
  readonly budget: ConnectionBudget;

  constructor(
    private readonly maxConnections: number,
    private readonly maxPools = 100,
    private readonly idleMs = 5 * 60_000,
    private readonly connectionIdleMs = 30_000,
  ) {
    this.budget = new ConnectionBudget(maxConnections);
  }

  get(key: string, target: ConnectionTarget): TargetPool {
    this.evict();
    let p = this.pools.get(key);
    if (!p) {
      if (this.pools.size >= this.maxPools) {
        const oldest = [...this.pools.entries()].sort((a, b) => a[1].lastUsed - b[1].lastUsed)[0];
        if (oldest) {
          this.pools.delete(oldest[0]);
          void oldest[1].close();
        }
      }
      p = new TargetPool(target, this.maxConnections, this.budget, this.connectionIdleMs);
      this.pools.set(key, p);
    }
    return p;
  }

  private evict(): void {
    const now = Date.now();
    for (const [k, p] of this.pools) {
      if (now - p.lastUsed > this.idleMs) {
        this.pools.delete(k);
        void p.close();
      }
    }
  }

  async closeAll(): Promise<void> {
    await Promise.all([...this.pools.values()].map((p) => p.close()));
    this.pools.clear();
  }
}
