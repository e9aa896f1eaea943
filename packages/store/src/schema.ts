/**
 * Store tables, all in the `untorn` PostgreSQL schema so a shared DATABASE_URL database stays tidy.
 * Source of the SQL migrations: change this file, then `npm run gen:migrations` and commit both.
 * Imports stay limited to drizzle-orm, the dependency-free @untorn/vocabulary and type-only imports:
 * drizzle-kit loads this file on its own.
 */

import { ACCESS_ROLES, type AccessRole, MANAGED_SERVICES, REPLICATION_ROLES } from "@untorn/vocabulary/words";
import { sql } from "drizzle-orm";
import {
  bigint,
  check,
  index,
  integer,
  jsonb,
  pgSchema,
  text,
  timestamp,
  uniqueIndex,
  uuid,
} from "drizzle-orm/pg-core";
import type { JsonArray, JsonObject, JsonValue, StorageFacts } from "./validation.js";

/** Access roles are the vocabulary's; the store keeps one per user. */
export type { AccessRole };

export const untorn = pgSchema("untorn");

const createdAt = () => timestamp("created_at", { withTimezone: true }).notNull().defaultNow();
const updatedAt = () => timestamp("updated_at", { withTimezone: true }).notNull().defaultNow();
const inList = (values: readonly string[]) => sql.raw(values.map((v) => `'${v}'`).join(", "));

/** What the user knows about an instance that Prometheus can't tell. */
export const instanceMetadata = untorn.table(
  "instance_metadata",
  {
    /** The Prometheus `instance` label (host:port, or the /probe target). */
    instance: text("instance").primaryKey(),
    cluster: text("cluster"),
    role: text("role", { enum: REPLICATION_ROLES }),
    notes: text("notes").notNull().default(""),
    /** Free label the user groups storage by, e.g. `ebs-gp3`, `local-nvme`, `zfs-pool-a`. */
    storageClass: text("storage_class"),
    /** Operator-declared storage facts (validation.ts storageFactsSchema); `{}` = nothing declared. */
    storageFacts: jsonb("storage_facts").$type<StorageFacts>().notNull().default({}),
    managedService: text("managed_service", { enum: MANAGED_SERVICES }),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    updatedBy: text("updated_by").notNull(),
    /** Starts at 1; every change adds 1. A writer that read version N saves only while it is still N. */
    version: integer("version").notNull().default(1),
  },
  (t) => [
    index("instance_metadata_cluster_idx").on(t.cluster),
    check("instance_metadata_role_check", sql`${t.role} IN (${inList(REPLICATION_ROLES)})`),
    check(
      "instance_metadata_managed_service_check",
      sql`${t.managedService} IN (${inList(MANAGED_SERVICES)})`,
    ),
    check("instance_metadata_storage_facts_check", sql`jsonb_typeof(${t.storageFacts}) = 'object'`),
  ],
);

/**
 * A staged change. The plan model and the state machine live in @untorn/rollout (pure); the store
 * keeps their JSON and guards concurrent writers with `version` (optimistic locking).
 */
export const rollouts = untorn.table(
  "rollouts",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    name: text("name").notNull(),
    change: jsonb("change").$type<JsonObject>().notNull(),
    /** Prometheus `instance` labels. */
    targets: jsonb("targets").$type<string[]>().notNull(),
    waves: jsonb("waves").$type<JsonArray>().notNull(),
    /** The state machine's phase, kept in a column to filter on (e.g. active rollouts). */
    state: text("state").notNull(),
    /**
     * The whole rollout state as @untorn/rollout models it; the caller validates it with the core's
     * zod schema before writing and after reading (the store only checks it is an object).
     */
    document: jsonb("document").$type<JsonObject>().notNull().default({}),
    createdBy: text("created_by").notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Who made the latest change: named in the conflict error a concurrent writer gets. */
    updatedBy: text("updated_by").notNull().default(""),
    /** Starts at 1; every state change adds 1. */
    version: integer("version").notNull().default(1),
  },
  (t) => [
    index("rollouts_created_at_idx").on(t.createdAt),
    index("rollouts_state_idx").on(t.state),
    check("rollouts_document_check", sql`jsonb_typeof(${t.document}) = 'object'`),
    check("rollouts_version_check", sql`${t.version} >= 1`),
    check("rollouts_change_check", sql`jsonb_typeof(${t.change}) = 'object'`),
    check("rollouts_targets_check", sql`jsonb_typeof(${t.targets}) = 'array'`),
    check("rollouts_waves_check", sql`jsonb_typeof(${t.waves}) = 'array'`),
  ],
);

/** One rollout's timeline: created, state changes, gate results, notes. Append-only. */
export const rolloutEvents = untorn.table(
  "rollout_events",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    rolloutId: uuid("rollout_id")
      .notNull()
      .references(() => rollouts.id),
    /** 1, 2, 3... per rollout, without gaps: the order of the rollout's own timeline. */
    sequence: integer("sequence").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    actor: text("actor").notNull(),
    /** Event type, e.g. `created`, `state-changed`, or a @untorn/rollout event type. */
    action: text("action").notNull(),
    /** The evidence: what a gate saw, the comparison result, a hook's output. */
    details: jsonb("details").$type<JsonObject>().notNull().default({}),
  },
  (t) => [
    index("rollout_events_rollout_id_idx").on(t.rolloutId, t.id),
    uniqueIndex("rollout_events_sequence_idx").on(t.rolloutId, t.sequence),
    check("rollout_events_sequence_check", sql`${t.sequence} >= 1`),
  ],
);

/**
 * Idempotency keys of rollout commands: a command sent again with the same key (a retried request,
 * a double click, a script re-run after a crash) gets the stored outcome instead of acting twice.
 */
export const rolloutCommands = untorn.table(
  "rollout_commands",
  {
    key: text("key").primaryKey(),
    rolloutId: uuid("rollout_id")
      .notNull()
      .references(() => rollouts.id),
    /** e.g. `create`, `approve`, `pause`. */
    command: text("command").notNull(),
    /** sha256 of the canonical request JSON: the same key with another request is refused. */
    requestHash: text("request_hash").notNull(),
    actor: text("actor").notNull(),
    /** The rollout version this command produced. */
    version: integer("version").notNull(),
    outcome: jsonb("outcome").$type<JsonObject>().notNull().default({}),
    createdAt: createdAt(),
  },
  (t) => [index("rollout_commands_rollout_id_idx").on(t.rolloutId)],
);

/** Saved before/after comparisons (@untorn/compare input and result), optionally tied to a rollout. */
export const comparisons = untorn.table(
  "comparisons",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    rolloutId: uuid("rollout_id").references(() => rollouts.id),
    input: jsonb("input").$type<JsonValue>().notNull(),
    result: jsonb("result").$type<JsonValue>().notNull(),
    createdAt: createdAt(),
    createdBy: text("created_by").notNull(),
  },
  (t) => [
    index("comparisons_rollout_id_idx").on(t.rolloutId),
    index("comparisons_created_at_idx").on(t.createdAt),
  ],
);

/**
 * Who did what to which entity; every store mutation writes one row in its own transaction. A hash
 * chain (src/audit-chain.ts): a BEFORE INSERT trigger (migration 0005) numbers each row `seq` under a
 * transaction lock and sets `hash` = sha256 over `prevHash` (the previous row's hash) and the row, so
 * rewriting, deleting or inserting a row anywhere breaks every link after it.
 */
export const auditLog = untorn.table(
  "audit_log",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
    actor: text("actor").notNull(),
    action: text("action").notNull(),
    entity: text("entity").notNull(),
    entityId: text("entity_id"),
    details: jsonb("details").$type<JsonObject>().notNull().default({}),
    /** Position in the chain, 1 up, set by the trigger. */
    seq: bigint("seq", { mode: "number" }).notNull().default(0),
    prevHash: text("prev_hash").notNull().default(""),
    hash: text("hash").notNull().default(""),
  },
  (t) => [
    index("audit_log_entity_idx").on(t.entity, t.entityId),
    index("audit_log_at_idx").on(t.at),
    uniqueIndex("audit_log_seq_idx").on(t.seq),
  ],
);

/** Console access roles, weakest first: each role can do what the ones before it can. */

/** Local console accounts (UNTORN_AUTH=local). Passwords are scrypt hashes (`scrypt$N$r$p$salt$hash`). */
export const users = untorn.table(
  "users",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    username: text("username").notNull(),
    passwordHash: text("password_hash").notNull(),
    role: text("role", { enum: ACCESS_ROLES }).notNull(),
    createdAt: createdAt(),
    updatedAt: updatedAt(),
    /** Set when the account is disabled: its sessions and tokens stop working. */
    disabledAt: timestamp("disabled_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("users_username_idx").on(t.username),
    /** Names differing only by case are one account (sign-in looks them up case-insensitively). */
    uniqueIndex("users_username_lower_idx").on(sql`lower(${t.username})`),
    check("users_role_check", sql`${t.role} IN (${inList(ACCESS_ROLES)})`),
  ],
);

/** Browser sessions. Only the sha256 of the cookie's random value is stored. */
export const sessions = untorn.table(
  "sessions",
  {
    idHash: text("id_hash").primaryKey(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    createdAt: createdAt(),
    expiresAt: timestamp("expires_at", { withTimezone: true }).notNull(),
  },
  (t) => [index("sessions_user_id_idx").on(t.userId)],
);

/** Per-user API tokens for the read API. Only the sha256 of the token is stored; revoked ones stay listed. */
export const apiTokens = untorn.table(
  "api_tokens",
  {
    id: uuid("id").primaryKey().defaultRandom(),
    userId: uuid("user_id")
      .notNull()
      .references(() => users.id),
    name: text("name").notNull(),
    tokenHash: text("token_hash").notNull(),
    createdAt: createdAt(),
    lastUsedAt: timestamp("last_used_at", { withTimezone: true }),
    revokedAt: timestamp("revoked_at", { withTimezone: true }),
  },
  (t) => [
    uniqueIndex("api_tokens_token_hash_idx").on(t.tokenHash),
    index("api_tokens_user_id_idx").on(t.userId),
  ],
);

/**
 * Failed credentials (a wrong password, an unknown API token), one row each, keyed by what is throttled
 * (`account:<name>`, `address:<client>`): in the database, so every console on one PostgreSQL counts the
 * same failures. Rows past the throttle window are pruned as new ones arrive.
 */
export const authFailures = untorn.table(
  "auth_failures",
  {
    id: bigint("id", { mode: "number" }).primaryKey().generatedAlwaysAsIdentity(),
    key: text("key").notNull(),
    at: timestamp("at", { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index("auth_failures_key_at_idx").on(t.key, t.at), index("auth_failures_at_idx").on(t.at)],
);

export type InstanceMetadata = typeof instanceMetadata.$inferSelect;
export type Rollout = typeof rollouts.$inferSelect;
export type RolloutEvent = typeof rolloutEvents.$inferSelect;
export type RolloutCommand = typeof rolloutCommands.$inferSelect;
export type Comparison = typeof comparisons.$inferSelect;
export type AuditEntry = typeof auditLog.$inferSelect;
export type User = typeof users.$inferSelect;
export type Session = typeof sessions.$inferSelect;
export type ApiToken = typeof apiTokens.$inferSelect;
