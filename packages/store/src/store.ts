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
  /** Idempotent; releases the data directory lock. */
  close(): Promise<void>;
}

/**
 * Opens the store and applies pending migrations. Throws StoreOpenError (or its subclasses
 * StoreLockedError, StoreConnectionError, MigrationError) naming the location and what to do.
 */
export async function openStore(options: OpenStoreOptions): Promise<Store> {
  const b = await openBackend(options);
  return {
    ...createRepository(b.db),
    backend: b.kind,
    location: b.location,
    tryExclusive: b.tryExclusive,
    close: b.close,
  };
}
