/**
 * Repository functions over one drizzle database (PGlite or node-postgres): inputs parsed with zod,
 * every write that touches two tables in one transaction, every mutation written to audit_log.
 */
import { createHash } from "node:crypto";
import { and, asc, desc, eq, gt, gte, ilike, inArray, isNull, like, lt, type SQL, sql } from "drizzle-orm";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { type AuditVerification, verifyAuditChain } from "./audit-chain.js";
import {
  IdempotencyKeyReuseError,
  MetadataConflictError,
  NotFoundError,
  StoreError,
  StoreQueryError,
  StoreValidationError,
  VersionConflictError,
} from "./errors.js";
import { type Db, rootMessage } from "./migrate.js";
import {
  type AccessRole,
  type ApiToken,
  type AuditEntry,
  apiTokens,
  auditLog,
  authFailures,
  type Comparison,
  comparisons,
  type InstanceMetadata,
  instanceMetadata,
  type Rollout,
  type RolloutCommand,
  type RolloutEvent,
  rolloutCommands,
  rolloutEvents,
  rollouts,
  sessions,
  type User,
  users,
} from "./schema.js";
import {
  type AppendRolloutEventInput,
  type AuditInput,
  appendRolloutEventInput,
  auditInput,
  authFailureWaitInput,
  type CommitRolloutInput,
  type CreateApiTokenInput,
  type CreateRolloutInput,
  type CreateSessionInput,
  type CreateUserInput,
  commitRolloutInput,
  createApiTokenInput,
  createRolloutInput,
  createSessionInput,
  createUserInput,
  type DeleteInstanceMetadataInput,
  type DeleteRolloutInput,
  deleteInstanceMetadataInput,
  deleteRolloutInput,
  expectedVersionInput,
  hashInput,
  idempotencyKey as idempotencyKeySchema,
  idInput,
  instanceInput,
  type JsonObject,
  type JsonValue,
  type ListAuditInput,
  type ListComparisonsInput,
  type ListInstanceMetadataInput,
  type ListRolloutsInput,
  listAuditInput,
  listComparisonsInput,
  listInstanceMetadataInput,
  listRolloutsInput,
  parseInput,
  recordAuthFailureInput,
  recordTokenUseInput,
  releaseAuthAttemptInput,
  reserveAuthAttemptInput,
  rolloutIdInput,
  type SaveComparisonInput,
  saveComparisonInput,
  type UpdateUserInput,
  type UpsertInstanceMetadataInput,
  updateUserInput,
  upsertInstanceMetadataInput,
  username as usernameSchema,
} from "./validation.js";

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

/** PostgreSQL SQLSTATE of a driver error, looking through drizzle's "Failed query" wrapper. */
export function sqlState(e: unknown): string | undefined {
  for (let cur: unknown = e; cur instanceof Error; cur = cur.cause) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

const FOREIGN_KEY_VIOLATION = "23503";
/** First key of the two-key advisory locks the sign-in throttle takes (pg_advisory_xact_lock(int, int)). */
const AUTH_LOCK_SPACE = 0x756e7430;
const UNIQUE_VIOLATION = "23505";

/** sha256 of the command, rollout and canonical request JSON. */
function requestHash(command: string, rolloutId: string | null, request: JsonValue): string {
  return createHash("sha256").update(canonical({ command, rolloutId, request })).digest("hex");
}

async function lastSequence(db: Db, rolloutId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`coalesce(max(${rolloutEvents.sequence}), 0)::int` })
    .from(rolloutEvents)
    .where(eq(rolloutEvents.rolloutId, rolloutId));
  return Number(row?.n ?? 0);
}

/** The conflict error, naming who made the change the caller missed, when, and the latest event. */
async function conflict(db: Db, cur: Rollout, expected: number): Promise<VersionConflictError> {
  const [last] = await db
    .select({ action: auditLog.action, actor: auditLog.actor })
    .from(auditLog)
    .where(and(eq(auditLog.entity, "rollout"), eq(auditLog.entityId, cur.id)))
    .orderBy(desc(auditLog.id))
    .limit(1);
  return new VersionConflictError("rollout", cur.id, expected, cur.version, cur.state, {
    actor: cur.updatedBy || last?.actor || "unknown",
    at: cur.updatedAt,
    action: last?.action.replace(/^rollout\./, "") ?? null,
  });
}

/**
 * Database failures become StoreQueryError with the server's message (drizzle's own message is
 * the SQL text plus every parameter); errors the caller's own code threw pass through unchanged.
 */
function storeError(operation: string, e: unknown): unknown {
  if (e instanceof StoreError) return e;
  const state = sqlState(e);
  if (state === undefined && !(e instanceof DrizzleQueryError)) return e;
  let constraint: string | undefined;
  for (let cur: unknown = e; cur instanceof Error; cur = cur.cause) {
    const c = (cur as { constraint?: unknown }).constraint;
    if (typeof c === "string" && c) constraint = c;
  }
  return new StoreQueryError(operation, state, constraint, rootMessage(e), { cause: e });
}

function guarded(ops: StoreOps): StoreOps {
  const out: Record<string, unknown> = {};
  for (const [name, fn] of Object.entries(ops) as [string, (...args: unknown[]) => Promise<unknown>][]) {
    out[name] = async (...args: unknown[]) => {
      try {
        return await fn(...args);
      } catch (e) {
        throw storeError(name, e);
      }
    };
  }
  return out as unknown as StoreOps;
}

async function rolloutMustExist<T>(rolloutId: string | null | undefined, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (rolloutId && sqlState(e) === FOREIGN_KEY_VIOLATION) throw new NotFoundError("rollout", rolloutId);
    throw e;
  }
}

const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** JSON text with object keys sorted, to compare values the way jsonb does. */
function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

const METADATA_FIELDS = [
  "cluster",
  "role",
  "notes",
  "storageClass",
  "storageFacts",
  "managedService",
] as const;

async function writeAudit(
  db: Db,
  actor: string,
  action: string,
  entity: string,
  entityId: string | null,
  details: JsonObject,
): Promise<AuditEntry> {
  const [row] = await db.insert(auditLog).values({ actor, action, entity, entityId, details }).returning();
  return row!;
}

export function createRepository(db: Db): StoreOps {
  const inTx = <T>(fn: (tx: Db) => Promise<T>): Promise<T> => db.transaction((tx) => fn(tx));

  return guarded({
    async upsertInstanceMetadata(input, options = {}) {
      const v = parseInput("upsertInstanceMetadata", upsertInstanceMetadataInput, input);
      const { expectedVersion } = parseInput("upsertInstanceMetadata", expectedVersionInput, options);
      const given: Partial<Pick<typeof instanceMetadata.$inferInsert, (typeof METADATA_FIELDS)[number]>> = {};
      for (const f of METADATA_FIELDS) if (v[f] !== undefined) (given as Record<string, unknown>)[f] = v[f];
      return inTx(async (tx) => {
        // Insert first so two writers racing on a new instance can't both miss it and collide.
        const [created] = await tx
          .insert(instanceMetadata)
          .values({ instance: v.instance, ...given, updatedBy: v.actor })
          .onConflictDoNothing({ target: instanceMetadata.instance })
          .returning();
        if (created) {
          await writeAudit(tx, v.actor, "instance-metadata.create", "instance_metadata", v.instance, {
            values: given as JsonObject,
          });
          return created;
        }
        const [before] = await tx
          .select()
          .from(instanceMetadata)
          .where(eq(instanceMetadata.instance, v.instance))
          .for("update");
        if (!before) throw new Error(`instance_metadata ${v.instance} vanished inside its transaction`);
        if (expectedVersion !== undefined && before.version !== expectedVersion) {
          const [last] = await tx
            .select()
            .from(auditLog)
            .where(and(eq(auditLog.entity, "instance_metadata"), eq(auditLog.entityId, v.instance)))
            .orderBy(desc(auditLog.id))
            .limit(1);
          const d = (last?.details ?? {}) as { changes?: JsonObject; values?: JsonObject };
          const fields = Object.keys(d.changes ?? d.values ?? {});
          throw new MetadataConflictError(
            v.instance,
            expectedVersion,
            before.version,
            before.updatedBy,
            before.updatedAt,
            fields,
          );
        }
        const set: Record<string, unknown> = {};
        const changes: JsonObject = {};
        for (const [field, value] of Object.entries(given)) {
          const old = before[field as keyof InstanceMetadata];
          if (canonical(old) === canonical(value)) continue;
          set[field] = value;
          changes[field] = { from: old as JsonValue, to: value as JsonValue };
        }
        if (Object.keys(set).length === 0) return before;
        const [after] = await tx
          .update(instanceMetadata)
          .set({ ...set, updatedAt: sql`now()`, updatedBy: v.actor, version: before.version + 1 })
          .where(eq(instanceMetadata.instance, v.instance))
          .returning();
        await writeAudit(tx, v.actor, "instance-metadata.update", "instance_metadata", v.instance, {
          changes,
        });
        return after!;
      });
    },

    async getInstanceMetadata(instance) {
      const { instance: i } = parseInput("getInstanceMetadata", instanceInput, { instance });
      const [row] = await db.select().from(instanceMetadata).where(eq(instanceMetadata.instance, i));
      return row ?? null;
    },

    async listInstanceMetadata(filter) {
      const f = parseInput("listInstanceMetadata", listInstanceMetadataInput, filter);
      const where: SQL[] = [];
      if (f.cluster !== undefined) where.push(eq(instanceMetadata.cluster, f.cluster));
      if (f.role !== undefined) where.push(eq(instanceMetadata.role, f.role));
      return db
        .select()
        .from(instanceMetadata)
        .where(and(...where))
        .orderBy(asc(instanceMetadata.instance));
    },

    async instanceMetadataStamp() {
      const [row] = await db
        .select({
          n: sql<number>`count(*)::int`,
          newest: sql<string | null>`max(${instanceMetadata.updatedAt})::text`,
          versions: sql<string | null>`sum(${instanceMetadata.version})::text`,
        })
        .from(instanceMetadata);
      return `${row?.n ?? 0}:${row?.newest ?? ""}:${row?.versions ?? 0}`;
    },

    async deleteInstanceMetadata(input) {
      const v = parseInput("deleteInstanceMetadata", deleteInstanceMetadataInput, input);
      return inTx(async (tx) => {
        const [gone] = await tx
          .delete(instanceMetadata)
          .where(eq(instanceMetadata.instance, v.instance))
          .returning();
        if (!gone) return false;
        const { instance: _i, createdAt: _c, updatedAt: _u, updatedBy: _b, ...values } = gone;
        await writeAudit(tx, v.actor, "instance-metadata.delete", "instance_metadata", v.instance, {
          values: values as JsonObject,
        });
        return true;
      });
    },

    async createRollout(input) {
      const v = parseInput("createRollout", createRolloutInput, input);
      // What the caller asked for; the id, document and events are derived (a random id, the time of
      // the attempt), so a retry that drew new ones is still the same request.
      const key = v.idempotencyKey;
      const hash = requestHash("create", null, { name: v.name, change: v.change, targets: v.targets });
      const replay = async (): Promise<Rollout | null> => {
        if (!key) return null;
        const [prior] = await db.select().from(rolloutCommands).where(eq(rolloutCommands.key, key));
        if (!prior) return null;
        if (prior.command !== "create" || prior.requestHash !== hash) {
          throw new IdempotencyKeyReuseError(key, prior.command, prior.rolloutId);
        }
        const [r] = await db.select().from(rollouts).where(eq(rollouts.id, prior.rolloutId));
        return r ?? null;
      };
      const seen = await replay();
      if (seen) return seen;
      try {
        return await inTx(async (tx) => {
          const [row] = await tx
            .insert(rollouts)
            .values({
              ...(v.id === undefined ? {} : { id: v.id }),
              name: v.name,
              change: v.change,
              targets: v.targets,
              waves: v.waves,
              state: v.state,
              document: v.document ?? {},
              createdBy: v.actor,
              updatedBy: v.actor,
            })
            .returning();
          const r = row!;
          await tx.insert(rolloutEvents).values(
            (v.events ?? [{ type: "created", evidence: { state: r.state } }]).map((e, i) => ({
              rolloutId: r.id,
              sequence: i + 1,
              actor: v.actor,
              action: e.type,
              details: e.evidence ?? {},
              ...(e.at === undefined ? {} : { at: e.at }),
            })),
          );
          if (key) {
            await tx.insert(rolloutCommands).values({
              key,
              rolloutId: r.id,
              command: "create",
              requestHash: hash,
              actor: v.actor,
              version: r.version,
              outcome: { rolloutId: r.id },
            });
          }
          await writeAudit(tx, v.actor, "rollout.create", "rollout", r.id, { name: r.name, state: r.state });
          return r;
        });
      } catch (e) {
        // Two creates with one key at once: the loser's insert hit the primary key; answer as a replay.
        if (key && sqlState(e) === UNIQUE_VIOLATION) {
          const r = await replay();
          if (r) return r;
        }
        throw e;
      }
    },

    async getRollout(id) {
      const { id: rid } = parseInput("getRollout", idInput, { id });
      const [row] = await db.select().from(rollouts).where(eq(rollouts.id, rid));
      return row ?? null;
    },

    async listRollouts(filter) {
      const f = parseInput("listRollouts", listRolloutsInput, filter);
      return db
        .select()
        .from(rollouts)
        .where(
          and(
            f.state === undefined ? undefined : eq(rollouts.state, f.state),
            f.states === undefined ? undefined : inArray(rollouts.state, f.states),
          ),
        )
        .orderBy(desc(rollouts.createdAt), desc(rollouts.id))
        .limit(f.limit);
    },

    async commitRollout(input) {
      const v = parseInput("commitRollout", commitRolloutInput, input);
      const hash = requestHash(v.command, v.id, v.request ?? null);
      return inTx(async (tx) => {
        const [cur] = await tx.select().from(rollouts).where(eq(rollouts.id, v.id)).for("update");
        if (!cur) throw new NotFoundError("rollout", v.id);
        if (v.idempotencyKey) {
          const [prior] = await tx
            .select()
            .from(rolloutCommands)
            .where(eq(rolloutCommands.key, v.idempotencyKey));
          if (prior) {
            if (prior.rolloutId !== v.id || prior.command !== v.command || prior.requestHash !== hash) {
              throw new IdempotencyKeyReuseError(v.idempotencyKey, prior.command, prior.rolloutId);
            }
            return {
              rollout: cur,
              events: [],
              replayed: true,
              outcome: prior.outcome,
              version: prior.version,
            };
          }
        }
        if (cur.version !== v.expectedVersion) throw await conflict(tx, cur, v.expectedVersion);
        if (v.refused && v.state !== cur.state) {
          throw new StoreValidationError("commitRollout", [
            {
              path: "refused",
              message: `a refused command leaves the status as it is (${cur.state}), but the commit sets ${v.state}`,
            },
          ]);
        }
        const [row] = await tx
          .update(rollouts)
          .set({
            state: v.state,
            document: v.document,
            version: cur.version + 1,
            updatedAt: sql`now()`,
            updatedBy: v.actor,
            ...(v.waves === undefined ? {} : { waves: v.waves }),
          })
          .where(and(eq(rollouts.id, v.id), eq(rollouts.version, v.expectedVersion)))
          .returning();
        const r = row!;
        const first = (await lastSequence(tx, r.id)) + 1;
        const events =
          v.events.length === 0
            ? []
            : await tx
                .insert(rolloutEvents)
                .values(
                  v.events.map((e, i) => ({
                    rolloutId: r.id,
                    sequence: first + i,
                    actor: v.actor,
                    action: e.type,
                    details: e.evidence ?? {},
                    ...(e.at === undefined ? {} : { at: e.at }),
                  })),
                )
                .returning();
        events.sort((a, b) => a.sequence - b.sequence);
        const outcome = v.outcome ?? {};
        if (v.idempotencyKey) {
          await tx.insert(rolloutCommands).values({
            key: v.idempotencyKey,
            rolloutId: r.id,
            command: v.command,
            requestHash: hash,
            actor: v.actor,
            version: r.version,
            outcome,
          });
        }
        await writeAudit(tx, v.actor, `rollout.${v.command}`, "rollout", r.id, {
          from: cur.state,
          to: r.state,
          version: r.version,
          events: events.length,
          ...(v.refused === undefined ? {} : { refused: v.refused }),
        });
        return { rollout: r, events, replayed: false, outcome, version: r.version };
      });
    },

    async getRolloutCommand(key) {
      const k = parseInput("getRolloutCommand", idempotencyKeySchema, key);
      const [row] = await db.select().from(rolloutCommands).where(eq(rolloutCommands.key, k));
      return row ?? null;
    },

    async appendRolloutEvent(input) {
      const v = parseInput("appendRolloutEvent", appendRolloutEventInput, input);
      return inTx(async (tx) => {
        // The row lock orders concurrent appenders, so sequences have no gaps and no duplicates.
        const [cur] = await tx
          .select({ id: rollouts.id })
          .from(rollouts)
          .where(eq(rollouts.id, v.rolloutId))
          .for("update");
        if (!cur) throw new NotFoundError("rollout", v.rolloutId);
        const [row] = await tx
          .insert(rolloutEvents)
          .values({
            rolloutId: v.rolloutId,
            sequence: (await lastSequence(tx, v.rolloutId)) + 1,
            actor: v.actor,
            action: v.action,
            details: v.details ?? {},
          })
          .returning();
        return row!;
      });
    },

    async listRolloutEvents(rolloutId) {
      const { rolloutId: rid } = parseInput("listRolloutEvents", rolloutIdInput, { rolloutId });
      return db
        .select()
        .from(rolloutEvents)
        .where(eq(rolloutEvents.rolloutId, rid))
        .orderBy(asc(rolloutEvents.sequence));
    },

    async deleteRollout(input) {
      const v = parseInput("deleteRollout", deleteRolloutInput, input);
      return inTx(async (tx) => {
        const [cur] = await tx.select().from(rollouts).where(eq(rollouts.id, v.id)).for("update");
        if (!cur) return false;
        await tx.delete(comparisons).where(eq(comparisons.rolloutId, v.id));
        await tx.delete(rolloutCommands).where(eq(rolloutCommands.rolloutId, v.id));
        await tx.delete(rolloutEvents).where(eq(rolloutEvents.rolloutId, v.id));
        await tx.delete(rollouts).where(eq(rollouts.id, v.id));
        await writeAudit(tx, v.actor, "rollout.delete", "rollout", v.id, {
          name: cur.name,
          state: cur.state,
          createdBy: cur.createdBy,
        });
        return true;
      });
    },

    async saveComparison(input) {
      const v = parseInput("saveComparison", saveComparisonInput, input);
      return rolloutMustExist(
        v.rolloutId,
        inTx(async (tx) => {
          const [row] = await tx
            .insert(comparisons)
            .values({ rolloutId: v.rolloutId ?? null, input: v.input, result: v.result, createdBy: v.actor })
            .returning();
          const c = row!;
          await writeAudit(tx, v.actor, "comparison.save", "comparison", c.id, { rolloutId: c.rolloutId });
          return c;
        }),
      );
    },

    async getComparison(id) {
      const { id: cid } = parseInput("getComparison", idInput, { id });
      const [row] = await db.select().from(comparisons).where(eq(comparisons.id, cid));
      return row ?? null;
    },

    async listComparisons(filter) {
      const f = parseInput("listComparisons", listComparisonsInput, filter);
      return db
        .select()
        .from(comparisons)
        .where(f.rolloutId === undefined ? undefined : eq(comparisons.rolloutId, f.rolloutId))
        .orderBy(desc(comparisons.createdAt), desc(comparisons.id))
        .limit(f.limit);
    },

    async audit(input) {
      const v = parseInput("audit", auditInput, input);
      return writeAudit(db, v.actor, v.action, v.entity, v.entityId ?? null, v.details ?? {});
    },

    async listAudit(filter) {
      const f = parseInput("listAudit", listAuditInput, filter);
      const where: SQL[] = [];
      if (f.entity !== undefined) where.push(eq(auditLog.entity, f.entity));
      if (f.entityId !== undefined) where.push(eq(auditLog.entityId, f.entityId));
      if (f.actor !== undefined) where.push(ilike(auditLog.actor, `%${escapeLike(f.actor)}%`));
      if (f.action !== undefined) where.push(like(auditLog.action, `${escapeLike(f.action)}%`));
      if (f.before !== undefined) where.push(lt(auditLog.id, f.before));
      if (f.from !== undefined) where.push(gte(auditLog.at, f.from));
      if (f.to !== undefined) where.push(lt(auditLog.at, f.to));
      return db
        .select()
        .from(auditLog)
        .where(and(...where))
        .orderBy(desc(auditLog.id))
        .limit(f.limit);
    },

    async verifyAudit() {
      return verifyAuditChain(db);
    },

    transaction(fn) {
      return inTx((tx) => fn(createRepository(tx)));
    },

    async createUser(input) {
      const v = parseInput("createUser", createUserInput, input);
      return inTx(async (tx) => {
        const [row] = await tx
          .insert(users)
          .values({ username: v.username, passwordHash: v.passwordHash, role: v.role })
          .returning();
        const u = row!;
        await writeAudit(tx, v.actor, "user.create", "user", u.username, { role: u.role });
        return u;
      });
    },

    async getUserByName(name) {
      const n = usernameSchema.safeParse(name);
      if (!n.success) return null;
      // Case-insensitive, as the unique index users_username_lower_idx is.
      const [row] = await db.select().from(users).where(sql`lower(${users.username}) = lower(${n.data})`);
      return row ?? null;
    },

    async getUser(userId) {
      const { id: uid } = parseInput("getUser", idInput, { id: userId });
      const [row] = await db.select().from(users).where(eq(users.id, uid));
      return row ?? null;
    },

    async listUsers() {
      return db.select().from(users).orderBy(asc(users.username));
    },

    async countUsers() {
      const [row] = await db.select({ n: sql<number>`count(*)::int` }).from(users);
      return row?.n ?? 0;
    },

    async updateUser(input) {
      const v = parseInput("updateUser", updateUserInput, input);
      return inTx(async (tx) => {
        const [before] = await tx.select().from(users).where(eq(users.id, v.id)).for("update");
        if (!before) throw new NotFoundError("user", v.id);
        const set: Partial<typeof users.$inferInsert> = {};
        const changes: JsonObject = {};
        if (v.role !== undefined && v.role !== before.role) {
          set.role = v.role;
          changes["role"] = { from: before.role, to: v.role };
        }
        if (v.passwordHash !== undefined) {
          set.passwordHash = v.passwordHash;
          changes["password"] = "changed";
        }
        if (v.disabled !== undefined && v.disabled !== (before.disabledAt !== null)) {
          set.disabledAt = v.disabled ? new Date() : null;
          changes["disabled"] = { from: !v.disabled, to: v.disabled };
        }
        if (Object.keys(changes).length === 0) return before;
        const [after] = await tx
          .update(users)
          .set({ ...set, updatedAt: sql`now()` })
          .where(eq(users.id, v.id))
          .returning();
        if (set.passwordHash !== undefined || v.disabled === true) {
          // A new password or disabling ends every session and revokes every API token (re-enabling
          // revives none: the user makes new ones).
          await tx.delete(sessions).where(eq(sessions.userId, v.id));
          const revoked = await tx
            .update(apiTokens)
            .set({ revokedAt: sql`now()` })
            .where(and(eq(apiTokens.userId, v.id), isNull(apiTokens.revokedAt)))
            .returning({ id: apiTokens.id });
          if (revoked.length > 0) changes["apiTokensRevoked"] = revoked.length;
        }
        await writeAudit(tx, v.actor, "user.update", "user", before.username, { changes });
        return after!;
      });
    },

    async createSession(input) {
      const v = parseInput("createSession", createSessionInput, input);
      await db.insert(sessions).values(v);
    },

    async getSessionUser(idHash) {
      const h = hashInput.safeParse({ hash: idHash });
      if (!h.success) return null;
      const [row] = await db
        .select({ user: users })
        .from(sessions)
        .innerJoin(users, eq(users.id, sessions.userId))
        .where(
          and(eq(sessions.idHash, h.data.hash), gt(sessions.expiresAt, sql`now()`), isNull(users.disabledAt)),
        );
      return row?.user ?? null;
    },

    async deleteSession(idHash) {
      await db.delete(sessions).where(eq(sessions.idHash, idHash));
    },

    async deleteExpiredSessions() {
      const gone = await db.delete(sessions).where(lt(sessions.expiresAt, sql`now()`)).returning();
      return gone.length;
    },

    async recordAuthFailure(keys, windowSeconds) {
      const v = parseInput("recordAuthFailure", recordAuthFailureInput, { keys: [...keys], windowSeconds });
      await inTx(async (tx) => {
        await tx.insert(authFailures).values(v.keys.map((key) => ({ key })));
        await tx
          .delete(authFailures)
          .where(lt(authFailures.at, sql`now() - ${v.windowSeconds}::int * interval '1 second'`));
      });
    },

    async authFailureWait(key, max, windowSeconds) {
      const v = parseInput("authFailureWait", authFailureWaitInput, { key, max, windowSeconds });
      const window = sql`${v.windowSeconds}::int * interval '1 second'`;
      const recent = db
        .select({ at: authFailures.at })
        .from(authFailures)
        .where(and(eq(authFailures.key, v.key), gt(authFailures.at, sql`now() - ${window}`)))
        .orderBy(desc(authFailures.at))
        .limit(v.max)
        .as("recent");
      const [row] = await db
        .select({
          n: sql<number>`count(*)::int`,
          wait: sql<number>`coalesce(ceil(extract(epoch from (min(${recent.at}) + ${window} - now())))::int, 0)`,
        })
        .from(recent);
      return row && row.n >= v.max ? Math.max(1, row.wait) : 0;
    },

    async clearAuthFailures(key) {
      await db.delete(authFailures).where(eq(authFailures.key, key));
    },

    async reserveAuthAttempt(limits, windowSeconds) {
      const v = parseInput("reserveAuthAttempt", reserveAuthAttemptInput, {
        limits: limits.map((l) => ({ ...l })),
        windowSeconds,
      });
      const window = sql`${v.windowSeconds}::int * interval '1 second'`;
      // Locks taken in one order (sorted keys), so two attempts sharing keys never deadlock.
      const sorted = [...v.limits].sort((a, b) => (a.key < b.key ? -1 : a.key > b.key ? 1 : 0));
      return inTx(async (tx) => {
        let wait = 0;
        for (const { key, max } of sorted) {
          await tx.execute(sql`select pg_advisory_xact_lock(${AUTH_LOCK_SPACE}::int, hashtext(${key}))`);
          const recent = tx
            .select({ at: authFailures.at })
            .from(authFailures)
            .where(and(eq(authFailures.key, key), gt(authFailures.at, sql`now() - ${window}`)))
            .orderBy(desc(authFailures.at))
            .limit(max)
            .as("recent");
          const [row] = await tx
            .select({
              n: sql<number>`count(*)::int`,
              wait: sql<number>`coalesce(ceil(extract(epoch from (min(${recent.at}) + ${window} - clock_timestamp())))::int, 0)`,
            })
            .from(recent);
          if (row && row.n >= max) wait = Math.max(wait, Math.max(1, row.wait));
        }
        if (wait > 0) return { reserved: null, wait };
        const rows = await tx
          .insert(authFailures)
          .values(sorted.map(({ key }) => ({ key, at: sql`clock_timestamp()` })))
          .returning({ id: authFailures.id });
        await tx.delete(authFailures).where(lt(authFailures.at, sql`now() - ${window}`));
        return { reserved: rows.map((r) => r.id), wait: 0 as const };
      });
    },

    async releaseAuthAttempt(ids) {
      const v = parseInput("releaseAuthAttempt", releaseAuthAttemptInput, { ids: [...ids] });
      if (v.ids.length > 0) await db.delete(authFailures).where(inArray(authFailures.id, v.ids));
    },

    async createApiToken(input) {
      const v = parseInput("createApiToken", createApiTokenInput, input);
      return inTx(async (tx) => {
        const [row] = await tx
          .insert(apiTokens)
          .values({ userId: v.userId, name: v.name, tokenHash: v.tokenHash })
          .returning();
        const t = row!;
        await writeAudit(tx, v.actor, "api-token.create", "api_token", t.id, {
          name: t.name,
          userId: t.userId,
        });
        return t;
      });
    },

    async getApiTokenUser(tokenHash) {
      const h = hashInput.safeParse({ hash: tokenHash });
      if (!h.success) return null;
      // A read, no write: the last use is batched (recordTokenUse, from store.ts).
      const [row] = await db
        .select()
        .from(apiTokens)
        .where(and(eq(apiTokens.tokenHash, h.data.hash), isNull(apiTokens.revokedAt)));
      if (!row) return null;
      const [user] = await db
        .select()
        .from(users)
        .where(and(eq(users.id, row.userId), isNull(users.disabledAt)));
      return user ? { user, token: row } : null;
    },

    async recordTokenUse(uses) {
      const v = parseInput("recordTokenUse", recordTokenUseInput, { uses: [...uses] });
      if (v.uses.length === 0) return;
      const values = sql.join(
        v.uses.map((u) => sql`(${u.id}::uuid, ${u.at.toISOString()}::timestamptz)`),
        sql`, `,
      );
      await db.execute(sql`
        UPDATE untorn.api_tokens t SET last_used_at = greatest(coalesce(t.last_used_at, u.at), u.at)
          FROM (VALUES ${values}) AS u(id, at) WHERE t.id = u.id`);
    },

    async listApiTokens(userId) {
      return db
        .select()
        .from(apiTokens)
        .where(userId === undefined ? undefined : eq(apiTokens.userId, userId))
        .orderBy(desc(apiTokens.createdAt));
    },

    async revokeApiToken(tokenId, actor) {
      const { id: tid } = parseInput("revokeApiToken", idInput, { id: tokenId });
      return inTx(async (tx) => {
        const [row] = await tx
          .update(apiTokens)
          .set({ revokedAt: sql`now()` })
          .where(and(eq(apiTokens.id, tid), isNull(apiTokens.revokedAt)))
          .returning();
        if (!row) return false;
        await writeAudit(tx, actor, "api-token.revoke", "api_token", row.id, {
          name: row.name,
          userId: row.userId,
        });
        return true;
      });
    },
  });
}
