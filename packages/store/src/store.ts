/**
 * The store: what Prometheus can't hold (fleet metadata the user adds, rollouts, comparisons, audit
 * log). Embedded PGlite in a data directory by default, PostgreSQL when a DATABASE_URL is given;
 * same schema and migrations, applied on open.
 */
import { type BackendOptions, openBackend, type TryExclusive } from "./backend.js";
import { createRepository, type StoreOps } from "./repository.js";

export type { AuditVerification } from "./audit-chain.js";
export type { TryExclusive } from "./backend.js";
export type { CommitResult, StoreOps } from "./repository.js";
export type {
  AccessRole,
  ApiToken,
  AuditEntry,
  Comparison,
  InstanceMetadata,
  Rollout,
  RolloutCommand,
  RolloutEvent,
  User,
} from "./schema.js";

/** `dataDir` is the app's choice (e.g. `$UNTORN_DATA_DIR` or `.untorn-data/`); `databaseUrl` wins over it. */
export type OpenStoreOptions = BackendOptions;

export interface Store extends StoreOps {
  readonly backend: "pglite" | "postgres";
  /** Data directory, or `user@host:port/database`: safe to show, never holds a password. */
  readonly location: string;
  /**
   * Runs `fn` only if no other process (PostgreSQL advisory lock) or caller holds `name`; else
   * `{ acquired: false }` at once. The rollout reconciler's single-writer guard.
   */
  tryExclusive: TryExclusive;
  /** Writes the API token uses noted since the last flush (every TOKEN_USE_FLUSH_MS, and on close). */
  flushTokenUse(): Promise<void>;
  /** Idempotent; flushes the token uses, releases the data directory lock. */
  close(): Promise<void>;
}

/** How often noted API token uses are written: a token's last use is this stale at most. */
export const TOKEN_USE_FLUSH_MS = 60_000;

/**
 * Opens the store and applies pending migrations. Throws StoreOpenError (or its subclasses
 * StoreLockedError, StoreConnectionError, MigrationError) naming the location and what to do.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const b = await openBackend(options);
  const repo = createRepository(b.db);
  // A read with an API token is no durable write: its use is noted here and written in one batch.
  const pending = new Map<string, Date>();
  const flushTokenUse = async () => {
    if (pending.size === 0) return;
    const uses = [...pending].map(([id, at]) => ({ id, at }));
    pending.clear();
    await repo.recordTokenUse(uses);
  };
  const timer = setInterval(() => {
    flushTokenUse().catch((e: unknown) =>
      console.warn(`untorn: recording API token use failed: ${(e as Error).message}`),
    );
  }, TOKEN_USE_FLUSH_MS);
  timer.unref();
  let closing: Promise<void> | undefined;
  return {
    ...repo,
    async getApiTokenUser(tokenHash) {
      const found = await repo.getApiTokenUser(tokenHash);
      if (found) pending.set(found.token.id, new Date());
      return found;
    },
    flushTokenUse,
    backend: b.kind,
    location: b.location,
    tryExclusive: b.tryExclusive,
    close() {
      closing ??= (async () => {
        clearInterval(timer);
        await flushTokenUse().catch(() => {});
        await b.close();
      })();
      return closing;
    },
  };
}
