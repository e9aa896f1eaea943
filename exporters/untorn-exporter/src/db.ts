import mysql from "mysql2/promise";
import type { Queryable, Row } from "./collector.js";
import { withTimeout } from "./timeout.js";

export interface ConnectionTarget {
  /** "host:port", "[v6]:port", "host" (port 3306) or an absolute unix socket path. */
  address: string;
  user: string;
  password: string;
  tls?: { ca?: string; cert?: string; key?: string; rejectUnauthorized?: boolean };
}

/** Thrown when a query ran past its budget; the server-side statement is killed. */
export class QueryTimeoutError extends Error {
  constructor(ms: number, sql: string) {
    super(`query exceeded its ${ms} ms budget and was killed: ${sql.slice(0, 80)}`);
    this.name = "QueryTimeoutError";
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

export function connectionOptions(t: ConnectionTarget): mysql.PoolOptions {
  const base: mysql.PoolOptions = { user: t.user, password: t.password, connectTimeout: 5000 };
  if (t.address.startsWith("/")) return { ...base, socketPath: t.address };
  const m = /^\[([^\]]+)\](?::(\d+))?$/.exec(t.address) ?? /^([^:]+)(?::(\d+))?$/.exec(t.address);
  if (!m) throw new Error(`invalid MySQL address '${t.address}': expected host:port or a socket path`);
  const ssl = t.tls ? { ...t.tls } : undefined;
  return { ...base, host: m[1], port: m[2] ? Number(m[2]) : 3306, ...(ssl ? { ssl } : {}) };
}

/**
 * A capped pool for one target, with slow-log-safe sessions and per-query budgets. Of `maxConnections`,
 * one is kept free for KILL QUERY, so a user limited to MAX_USER_CONNECTIONS = maxConnections can always
 * stop a statement that ran past its budget.
 */
export class TargetPool {
  private readonly pool: mysql.Pool;
  lastUsed = Date.now();
  /** Kills run one at a time on the reserved connection. */
  private kills: Promise<void> = Promise.resolve();

  constructor(
    readonly target: ConnectionTarget,
    maxConnections: number,
  ) {
    const queryConnections = Math.max(1, maxConnections - 1);
    this.pool = mysql.createPool({
      ...connectionOptions(target),
      connectionLimit: queryConnections,
      maxIdle: queryConnections,
      idleTimeout: 60_000,
      queueLimit: 50,
      supportBigNumbers: true,
      bigNumberStrings: true,
      dateStrings: true,
    });
    this.pool.pool.on("connection", (conn) => {
      for (const sql of SESSION_SETTINGS) conn.query(sql, () => undefined);
    });
  }

  /** A Queryable whose every statement must finish within `deadline` (epoch ms). */
  queryable(deadline: number): Queryable {
    return {
      query: async (sql: string, params?: unknown[]): Promise<Row[]> => {
        this.lastUsed = Date.now();
        const budget = Math.max(1, deadline - Date.now());
        const pending = this.pool.getConnection();
        // A connection handed out after the budget ran out goes straight back, or the pool leaks it.
        const conn = await withTimeout(
          pending,
          budget,
          () => new QueryTimeoutError(budget, sql),
          () => {
            pending.then(
              (late) => late.release(),
              () => undefined,
            );
          },
        );
        const threadId = conn.threadId;
        let broken = false;
        try {
          const remaining = Math.max(1, deadline - Date.now());
          const [rows] = await conn.query({ sql, values: params, timeout: remaining });
          return rows as Row[];
        } catch (err) {
          if ((err as { code?: string }).code === "PROTOCOL_SEQUENCE_TIMEOUT") {
            broken = true;
            this.kills = this.kills.then(() => this.kill(threadId));
            throw new QueryTimeoutError(budget, sql);
          }
          throw err;
        } finally {
          // a timed-out connection is mid-protocol: drop it rather than hand it to the next query
          if (broken) conn.destroy();
          else conn.release();
        }
      },
    };
  }

  /** Best effort KILL QUERY for a statement whose client gave up; never throws. */
  private async kill(threadId: number | null): Promise<void> {
    if (threadId === null) return;
    try {
      const c = await mysql.createConnection(connectionOptions(this.target));
      try {
        await c.query(`KILL QUERY ${Number(threadId)}`);
      } finally {
        await c.end();
      }
    } catch {
      // the server may be gone; nothing more to do
    }
  }

  async close(): Promise<void> {
    await this.pool.end().catch(() => undefined);
  }
}

/** Pools by target key, closing ones unused for `idleMs` and capping how many exist (for /probe). */
export class PoolCache {
  private readonly pools = new Map<string, TargetPool>();

  constructor(
    private readonly maxConnections: number,
    private readonly maxPools = 100,
    private readonly idleMs = 5 * 60_000,
  ) {}

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
      p = new TargetPool(target, this.maxConnections);
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
