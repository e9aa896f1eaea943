/** Helpers every room of the repository shares: errors, audit rows, canonical JSON. */
import { createHash } from "node:crypto";
import { and, desc, eq, sql } from "drizzle-orm";
import { DrizzleQueryError } from "drizzle-orm/errors";
import { NotFoundError, StoreError, StoreQueryError, VersionConflictError } from "../errors.js";
import { type Db, rootMessage } from "../migrate.js";
import type { StoreOps } from "../repository.js";
import { type AuditEntry, auditLog, type Rollout, rolloutEvents } from "../schema.js";
import type { JsonObject, JsonValue } from "../validation.js";

/** PostgreSQL SQLSTATE of a driver error, looking through drizzle's "Failed query" wrapper. */
export function sqlState(e: unknown): string | undefined {
  for (let cur: unknown = e; cur instanceof Error; cur = cur.cause) {
    const code = (cur as { code?: unknown }).code;
    if (typeof code === "string" && /^[0-9A-Z]{5}$/.test(code)) return code;
  }
  return undefined;
}

export const FOREIGN_KEY_VIOLATION = "23503";
/** First key of the two-key advisory locks the sign-in throttle takes (pg_advisory_xact_lock(int, int)). */
export const AUTH_LOCK_SPACE = 0x756e7430;
export const UNIQUE_VIOLATION = "23505";

/** sha256 of the command, rollout and canonical request JSON. */
export function requestHash(command: string, rolloutId: string | null, request: JsonValue): string {
  return createHash("sha256").update(canonical({ command, rolloutId, request })).digest("hex");
}

export async function lastSequence(db: Db, rolloutId: string): Promise<number> {
  const [row] = await db
    .select({ n: sql<number>`coalesce(max(${rolloutEvents.sequence}), 0)::int` })
    .from(rolloutEvents)
    .where(eq(rolloutEvents.rolloutId, rolloutId));
  return Number(row?.n ?? 0);
}

/** The conflict error, naming who made the change the caller missed, when, and the latest event. */
export async function conflict(db: Db, cur: Rollout, expected: number): Promise<VersionConflictError> {
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
export function storeError(operation: string, e: unknown): unknown {
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

export function guarded(ops: StoreOps): StoreOps {
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

export async function rolloutMustExist<T>(rolloutId: string | null | undefined, p: Promise<T>): Promise<T> {
  try {
    return await p;
  } catch (e) {
    if (rolloutId && sqlState(e) === FOREIGN_KEY_VIOLATION) throw new NotFoundError("rollout", rolloutId);
    throw e;
  }
}

export const escapeLike = (s: string) => s.replace(/[\\%_]/g, (c) => `\\${c}`);

/** JSON text with object keys sorted, to compare values the way jsonb does. */
export function canonical(v: unknown): string {
  return JSON.stringify(v, (_k, x: unknown) =>
    x !== null && typeof x === "object" && !Array.isArray(x)
      ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
      : x,
  );
}

export const METADATA_FIELDS = [
  "cluster",
  "role",
  "notes",
  "storageClass",
  "storageFacts",
  "managedService",
] as const;

export async function writeAudit(
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

export type InTx = <T>(fn: (tx: Db) => Promise<T>) => Promise<T>;
