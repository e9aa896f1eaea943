/**
 * The store's operations over one drizzle database (PGlite or node-postgres): inputs parsed with zod, every
 * write that touches two tables in one transaction, every mutation written to audit_log. One room per
 * aggregate in src/repository/ (metadata, rollouts, audit, accounts, tokens); StoreOps is their sum.
 */
import type { AuditVerification } from "./audit-chain.js";
import type { Db } from "./migrate.js";
import { accountsOps } from "./repository/accounts.js";
import { auditOps } from "./repository/audit.js";
import { metadataOps } from "./repository/metadata.js";
import { rolloutsOps } from "./repository/rollouts.js";
import { guarded } from "./repository/shared.js";
import { tokensOps } from "./repository/tokens.js";
import type {
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
import type {
  AppendRolloutEventInput,
  AuditInput,
  CommitRolloutInput,
  CreateApiTokenInput,
  CreateRolloutInput,
  CreateSessionInput,
  CreateUserInput,
  DeleteInstanceMetadataInput,
  DeleteRolloutInput,
  JsonObject,
  ListAuditInput,
  ListComparisonsInput,
  ListInstanceMetadataInput,
  ListRolloutsInput,
  SaveComparisonInput,
  UpdateUserInput,
  UpsertInstanceMetadataInput,
} from "./validation.js";

export { sqlState } from "./repository/shared.js";

/** What commitRollout did, or what the first call with the same idempotency key did. */
export interface CommitResult {
  rollout: Rollout;
  /** The events this call appended; [] on a replay. */
  events: RolloutEvent[];
  /** True when the idempotency key was seen before: nothing was written, `outcome` is the stored one. */
  replayed: boolean;
  outcome: JsonObject;
  /** The rollout version the command produced (on a replay, the version it produced then). */
  version: number;
}

export interface StoreOps {
  /** Creates or changes one instance's metadata; omitted fields keep their value, null clears. */
  upsertInstanceMetadata(
    input: UpsertInstanceMetadataInput,
    options?: {
      /** The version the writer read (0: no row); a save from an older one is MetadataConflictError. */
      expectedVersion?: number;
    },
  ): Promise<InstanceMetadata>;
  getInstanceMetadata(instance: string): Promise<InstanceMetadata | null>;
  listInstanceMetadata(filter?: ListInstanceMetadataInput): Promise<InstanceMetadata[]>;
  /**
   * Changes whenever any instance's metadata is created, changed or deleted (row count, newest change,
   * sum of versions): one cheap query to tell whether a cached copy is still the database's.
   */
  instanceMetadataStamp(): Promise<string>;
  /** True when a row was deleted. */
  deleteInstanceMetadata(input: DeleteInstanceMetadataInput): Promise<boolean>;

  createRollout(input: CreateRolloutInput): Promise<Rollout>;
  getRollout(id: string): Promise<Rollout | null>;
  /** Newest first. */
  listRollouts(filter?: ListRolloutsInput): Promise<Rollout[]>;
  /**
   * One rollout command, all or nothing: checks the idempotency key (seen before with the same
   * request: returns the stored outcome and writes nothing; with another request:
   * IdempotencyKeyReuseError), checks `expectedVersion` (else VersionConflictError naming who
   * changed it, when and how), writes the new state and document, appends the events with the
   * next sequence numbers, records the key and an audit row.
   */
  commitRollout(input: CommitRolloutInput): Promise<CommitResult>;
  /** The stored outcome of an idempotency key, or null. */
  getRolloutCommand(key: string): Promise<RolloutCommand | null>;
  appendRolloutEvent(input: AppendRolloutEventInput): Promise<RolloutEvent>;
  /** Oldest first. */
  listRolloutEvents(rolloutId: string): Promise<RolloutEvent[]>;
  /**
   * Removes a rollout, its events, idempotency keys and comparisons in one transaction, with an audit
   * row; false when there was none. For rollouts a recording loaded (a newer recording replaces them).
   */
  deleteRollout(input: DeleteRolloutInput): Promise<boolean>;

  saveComparison(input: SaveComparisonInput): Promise<Comparison>;
  getComparison(id: string): Promise<Comparison | null>;
  /** Newest first. */
  listComparisons(filter?: ListComparisonsInput): Promise<Comparison[]>;

  /** Records an action that is not a store mutation (e.g. advice exported, rollout gate overridden). */
  audit(input: AuditInput): Promise<AuditEntry>;
  /** Newest first. */
  listAudit(filter?: ListAuditInput): Promise<AuditEntry[]>;
  /** Recomputes the audit log's hash chain (src/audit-chain.ts); the first broken link, if any. */
  verifyAudit(): Promise<AuditVerification>;

  /**
   * Runs `fn` in one transaction (a savepoint when nested): all of its writes commit together or
   * none do, whatever `fn` throws.
   */
  transaction<T>(fn: (tx: StoreOps) => Promise<T>): Promise<T>;

  /** Local accounts. Throws StoreQueryError with constraint users_username_idx for a taken name. */
  createUser(input: CreateUserInput): Promise<User>;
  getUserByName(username: string): Promise<User | null>;
  getUser(id: string): Promise<User | null>;
  listUsers(): Promise<User[]>;
  countUsers(): Promise<number>;
  /** Changes role, password or disabled; disabling or a new password ends the user's sessions. */
  updateUser(input: UpdateUserInput): Promise<User>;

  createSession(input: CreateSessionInput): Promise<void>;
  /** The live session's user (not expired, user not disabled), or null. */
  getSessionUser(idHash: string): Promise<User | null>;
  deleteSession(idHash: string): Promise<void>;
  /** Removes expired sessions; returns how many. */
  deleteExpiredSessions(): Promise<number>;

  /**
   * Records one failed credential under each key (`account:<name>`, `address:<client>`) and prunes the
   * failures older than `windowSeconds`.
   */
  recordAuthFailure(keys: readonly string[], windowSeconds: number): Promise<void>;
  /**
   * Seconds until `key` may try again: 0 while it has fewer than `max` failures in the last
   * `windowSeconds`, else until the oldest of its last `max` leaves the window. The database's clock
   * decides, so consoles whose clocks differ agree.
   */
  authFailureWait(key: string, max: number, windowSeconds: number): Promise<number>;
  /** Forgets `key`'s failures (a successful sign-in). */
  clearAuthFailures(key: string): Promise<void>;
  /**
   * Counts an attempt before its credential is checked: atomically (a transaction-scoped advisory lock
   * per key, so parallel callers on every console queue), either every key has fewer than its `max` in
   * the window and one row per key is written (`reserved`: the row ids; a failed attempt leaves them
   * as its failures, a good one gives them back with releaseAuthAttempt), or nothing is written and
   * `wait` says how many seconds until the first full key frees a place. N parallel guesses check at
   * most `max` passwords.
   */
  reserveAuthAttempt(
    limits: readonly { key: string; max: number }[],
    windowSeconds: number,
  ): Promise<{ reserved: number[]; wait: 0 } | { reserved: null; wait: number }>;
  /** Deletes the rows reserveAuthAttempt wrote (the attempt succeeded: it is no failure). */
  releaseAuthAttempt(ids: readonly number[]): Promise<void>;

  createApiToken(input: CreateApiTokenInput): Promise<ApiToken>;
  /**
   * The token's user when the token is neither revoked nor its user disabled. Writes nothing: the
   * store returned by openStore notes the use and writes it with recordTokenUse in batches.
   */
  getApiTokenUser(tokenHash: string): Promise<{ user: User; token: ApiToken } | null>;
  /** Sets each token's last_used_at to the given time (never back); one statement for the batch. */
  recordTokenUse(uses: readonly { id: string; at: Date }[]): Promise<void>;
  listApiTokens(userId?: string): Promise<ApiToken[]>;
  /** True when a live token was revoked. */
  revokeApiToken(id: string, actor: string): Promise<boolean>;
}

export type { AccessRole };

/** The store's operations over `db`, one room per aggregate (src/repository/), each call's errors as StoreErrors. */
export function createRepository(db: Db): StoreOps {
  const inTx = <T>(fn: (tx: Db) => Promise<T>): Promise<T> => db.transaction((tx) => fn(tx));
  return guarded({
    ...metadataOps(db, inTx),
    ...rolloutsOps(db, inTx),
    ...auditOps(db),
    transaction(fn) {
      return inTx((tx) => fn(createRepository(tx)));
    },
    ...accountsOps(db, inTx),
    ...tokensOps(db, inTx),
  });
}
