/** Opens PGlite or PostgreSQL and applies pending migrations; the store's only entry to a database. */
import { StoreOpenError } from "./errors.js";
import { type Db, grantAppRole, migrate, requireMigrated, rootMessage } from "./migrate.js";
import { openPglite } from "./pglite.js";
import { describeDatabaseUrl, openPostgres, type TryExclusive } from "./postgres.js";

export type { TryExclusive } from "./postgres.js";

export interface BackendOptions {
  /** PGlite data directory (created if missing). */
  dataDir?: string;
  /** postgres:// URL; wins over dataDir. */
  databaseUrl?: string;
  /**
   * PostgreSQL only: the owner's URL, for migrations. When set, migrations run through it, then the
   * role of `databaseUrl` is granted what the console needs and no more (audit_log: SELECT and INSERT
   * only), and the store connects as that role, which owns nothing; it refuses to start on an
   * unmigrated database. Unset: `databaseUrl` migrates and owns the tables (the audit log's
   * append-only trigger then binds it only until it disables the trigger).
   */
  migrationDatabaseUrl?: string;
  /**
   * "apply" (default) brings the database to this build's migrations; "require" changes nothing and
   * refuses a database that is not already there (a reader such as `untorn audit verify`).
   */
  migrations?: "apply" | "require";
  /**
   * Embedded PGlite only: default true, every commit synced to disk. False is for tests and benchmarks
   * only (an OS crash can lose acknowledged writes); PostgreSQL keeps its own fsync setting.
   */
  durable?: boolean;
  /** PostgreSQL connect timeout; default 10 s. */
  connectTimeoutMs?: number;
}

export interface Backend {
  kind: "pglite" | "postgres";
  db: Db;
  /**
   * Single writer across processes: a PostgreSQL advisory lock; on PGlite the data directory lock
   * already keeps other processes out, so an in-process lock is enough.
   */
  tryExclusive: TryExclusive;
  /** Data directory, or `user@host:port/database`: safe to show, never holds a password. */
  location: string;
  /** Migration tags this open applied. */
  applied: string[];
  close(): Promise<void>;
}

export async function openBackend(options: BackendOptions): Promise<Backend> {
  if (options.databaseUrl) {
    const pg = await openPostgres(options.databaseUrl, {
      ...(options.connectTimeoutMs === undefined ? {} : { connectTimeoutMs: options.connectTimeoutMs }),
    });
    try {
      const applied =
        options.migrations === "require"
          ? await requireMigrated(pg.db, pg.location).then(() => [])
          : options.migrationDatabaseUrl
            ? await migrateAsOwner(options.migrationDatabaseUrl, options.databaseUrl, pg.db, pg.location)
            : await migrate(pg.db, pg.location);
      return {
        kind: "postgres",
        db: pg.db,
        tryExclusive: pg.tryExclusive,
        location: pg.location,
        applied,
        close: pg.close,
      };
    } catch (e) {
      await pg.close();
      throw migrationFailure(e, pg.location);
    }
  }
  if (!options.dataDir) {
    throw new StoreOpenError("", "the store needs a dataDir (embedded PGlite) or a databaseUrl (PostgreSQL)");
  }
  const lite = await openPglite(
    options.dataDir,
    options.durable === undefined ? {} : { durable: options.durable },
  );
  try {
    const applied =
      options.migrations === "require"
        ? await requireMigrated(lite.db, lite.location).then(() => [])
        : await migrate(lite.db, lite.location);
    lite.markReady();
    return {
      kind: "pglite",
      db: lite.db,
      tryExclusive: inProcessExclusive(),
      location: lite.location,
      applied,
      close: lite.close,
    };
  } catch (e) {
    await lite.close();
    throw migrationFailure(e, lite.location);
  }
}

/** Migrates through the owner's URL, grants the app role its share, then checks as the app role. */
async function migrateAsOwner(
  ownerUrl: string,
  appUrl: string,
  app: Db,
  appLocation: string,
): Promise<string[]> {
  const owner = await openPostgres(ownerUrl, { poolSize: 1 });
  let applied: string[];
  try {
    applied = await migrate(owner.db, owner.location);
    await grantAppRole(owner.db, describeDatabaseUrl(appUrl).user);
  } catch (e) {
    throw migrationFailure(e, owner.location);
  } finally {
    await owner.close();
  }
  await requireMigrated(app, appLocation);
  return applied;
}

function inProcessExclusive(): TryExclusive {
  const held = new Set<string>();
  return async (name, fn) => {
    if (held.has(name)) return { acquired: false };
    held.add(name);
    try {
      return { acquired: true, value: await fn() };
    } finally {
      held.delete(name);
    }
  };
}

function migrationFailure(e: unknown, location: string): StoreOpenError {
  if (e instanceof StoreOpenError) return e;
  return new StoreOpenError(location, `${location}: applying migrations failed: ${rootMessage(e)}`, {
    cause: e,
  });
}
