/** PostgreSQL through node-postgres (`pg`) when DATABASE_URL is set. Errors never contain the password. */
import { drizzle } from "drizzle-orm/node-postgres";
import pg from "pg";
import { StoreConnectionError } from "./errors.js";
import type { Db } from "./migrate.js";

export interface PostgresBackend {
  db: Db;
  tryExclusive: TryExclusive;
  /** `user@host:port/database`, safe to print. */
  location: string;
  close(): Promise<void>;
}

export interface PostgresOptions {
  /** Connect timeout per attempt; pg's default is to wait forever. */
  connectTimeoutMs?: number;
  poolSize?: number;
}

/**
 * Runs `fn` while this process holds the named lock, or returns `{ acquired: false }` at once when
 * another holds it. Released when `fn` settles, or by the server when the process dies.
 */
export type TryExclusive = <T>(
  name: string,
  fn: () => Promise<T>,
) => Promise<{ acquired: true; value: T } | { acquired: false }>;

/** host:port/database and user as pg will use them (URL, then PG* environment defaults). */
export function describeDatabaseUrl(url: string): { location: string; user: string; hostPort: string } {
  let client: pg.Client;
  try {
    client = new pg.Client({ connectionString: url });
  } catch {
    // The parser's message may quote the URL, password included.
    throw new StoreConnectionError("DATABASE_URL", "DATABASE_URL is not a valid postgres:// connection URL");
  }
  const host = client.host.startsWith("/") ? `${client.host} (unix socket)` : client.host;
  const hostPort = `${host}:${client.port}`;
  return {
    location: `${client.user ?? "?"}@${hostPort}/${client.database ?? "?"}`,
    user: client.user ?? "?",
    hostPort,
  };
}

const HOW_TO_START =
  "Is PostgreSQL running and listening there? (Debian: `pg_ctlcluster <version> main start`; check listen_addresses and port in postgresql.conf.)";

function explain(e: unknown, d: ReturnType<typeof describeDatabaseUrl>, timeoutMs: number): string {
  const err = e as NodeJS.ErrnoException & { code?: string };
  switch (err.code) {
    case "ECONNREFUSED":
      return `cannot connect to PostgreSQL at ${d.hostPort}: connection refused. ${HOW_TO_START}`;
    case "ENOTFOUND":
    case "EAI_AGAIN":
      return `cannot connect to PostgreSQL at ${d.hostPort}: host name does not resolve (${err.code}). Check the host in DATABASE_URL.`;
    case "ENOENT":
      return `cannot connect to PostgreSQL at ${d.hostPort}: no socket there. ${HOW_TO_START}`;
    case "28P01":
    case "28000":
      return `PostgreSQL at ${d.hostPort} rejected user ${d.user}: ${err.message}. Check the user and password in DATABASE_URL and pg_hba.conf.`;
    case "3D000":
      return `PostgreSQL at ${d.hostPort}: ${err.message}. Create it (createdb) or fix the database name in DATABASE_URL.`;
  }
  if (/timeout/i.test(err.message ?? "")) {
    return `cannot connect to PostgreSQL at ${d.hostPort}: no answer within ${timeoutMs} ms. Check the host, port and firewall; is it a PostgreSQL server?`;
  }
  return `cannot connect to PostgreSQL at ${d.hostPort} as ${d.user}: ${err.message}`;
}

export async function openPostgres(url: string, options: PostgresOptions = {}): Promise<PostgresBackend> {
  const d = describeDatabaseUrl(url);
  const timeoutMs = options.connectTimeoutMs ?? 10_000;
  const pool = new pg.Pool({
    connectionString: url,
    max: options.poolSize ?? 5,
    connectionTimeoutMillis: timeoutMs,
    application_name: "untorn",
  });
  // An idle client losing its server (restart, failover) emits here; without a listener it kills the process.
  // The next query gets a fresh connection or a clear error.
  pool.on("error", () => {});
  try {
    const c = await pool.connect();
    c.release();
  } catch (e) {
    await pool.end().catch(() => {});
    throw new StoreConnectionError(d.location, explain(e, d, timeoutMs), { cause: e });
  }
  let closed = false;
  // A session-level advisory lock on a connection held for the duration: a second process (or a
  // second caller here) gets false; kill -9 of the holder closes the session and frees the lock.
  const tryExclusive: TryExclusive = async (name, fn) => {
    const c = await pool.connect();
    let broken: Error | undefined;
    try {
      const r = await c.query<{ ok: boolean }>("SELECT pg_try_advisory_lock(hashtextextended($1, 0)) AS ok", [
        `untorn:${name}`,
      ]);
      if (!r.rows[0]?.ok) return { acquired: false };
      try {
        return { acquired: true, value: await fn() };
      } finally {
        await c
          .query("SELECT pg_advisory_unlock(hashtextextended($1, 0))", [`untorn:${name}`])
          .catch((e: Error) => {
            broken = e;
          });
      }
    } catch (e) {
      broken ??= e as Error;
      throw e;
    } finally {
      // A connection whose unlock failed is destroyed, which releases the lock on the server.
      c.release(broken);
    }
  };
  return {
    db: drizzle({ client: pool }) as unknown as Db,
    tryExclusive,
    location: d.location,
    async close() {
      if (closed) return;
      closed = true;
      await pool.end();
    },
  };
}
