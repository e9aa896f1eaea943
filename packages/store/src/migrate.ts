/**
 * Applies the drizzle-kit SQL migrations in migrations/ (same files for PGlite and PostgreSQL).
 * Own runner instead of drizzle-orm's migrate(): that one reads the history outside its
 * transaction with no lock (two processes starting at once both apply), records no tag and never
 * checks hashes, so a database migrated by a newer Untorn or an edited migration goes unnoticed.
 * Here all pending migrations run in one transaction under an advisory lock, and the recorded
 * history must be a prefix of this build's migrations with identical hashes.
 */
import { createHash } from "node:crypto";
import fs from "node:fs";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { sql } from "drizzle-orm";
import type { PgDatabase, PgQueryResultHKT } from "drizzle-orm/pg-core";
import { z } from "zod";
import { MigrationError } from "./errors.js";

export type Db = PgDatabase<PgQueryResultHKT>;

export const MIGRATIONS_FOLDER = fileURLToPath(new URL("../migrations/", import.meta.url));

/** Key of the transaction-scoped advisory lock that serialises concurrent migrators ("untorn" in ASCII). */
const MIGRATION_LOCK_KEY = 0x756e746f726e;

/**
 * Earlier texts of a migration that a store may have applied and that leave it as the current text does
 * (sha256 by tag): 0005 once created the case-insensitive username index without first resolving names
 * that differ only by case, so it failed on such a store; where it succeeded there were none to resolve.
 */
const SUPERSEDED: Readonly<Record<string, readonly string[]>> = {
  "0005_audit_chain": ["4f52858e5db9027aff071f5baa7f0051532dcbc7004ae7ad09895e6e422ae5df"],
};

/** Whether `applied` (a hash recorded for `m`) is this build's text of `m` or one it supersedes. */
const sameMigration = (m: Migration, applied: string) =>
  m.hash === applied || (SUPERSEDED[m.tag]?.includes(applied) ?? false);

export interface Migration {
  idx: number;
  tag: string;
  /** sha256 of the .sql file, hex. */
  hash: string;
  statements: string[];
}

const journalSchema = z.object({
  dialect: z.literal("postgresql"),
  entries: z.array(z.object({ idx: z.number().int().nonnegative(), tag: z.string().min(1) })),
});

/** Reads meta/_journal.json and the .sql files it lists, split at drizzle-kit's statement breakpoints. */
export function readMigrations(folder: string = MIGRATIONS_FOLDER): Migration[] {
  const journal = journalSchema.parse(
    JSON.parse(fs.readFileSync(path.join(folder, "meta", "_journal.json"), "utf8")),
  );
  return journal.entries.map(({ idx, tag }, i) => {
    if (idx !== i) throw new Error(`${folder}: journal entry ${i} has idx ${idx}`);
    const text = fs.readFileSync(path.join(folder, `${tag}.sql`), "utf8");
    return {
      idx,
      tag,
      hash: createHash("sha256").update(text).digest("hex"),
      statements: text
        .split("--> statement-breakpoint")
        .map((s) => s.trim())
        .filter((s) => s.length > 0),
    };
  });
}

export interface AppliedMigration {
  idx: number;
  tag: string;
  hash: string;
  appliedAt: Date;
}

async function rows<T>(db: Db, query: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(query)) as unknown as { rows: T[] }).rows;
}

/** The recorded history, or [] when the store has never been migrated. */
export async function appliedMigrations(db: Db): Promise<AppliedMigration[]> {
  const exists = await rows<{ t: string | null }>(
    db,
    sql`SELECT to_regclass('untorn_meta.migrations')::text AS t`,
  );
  if (!exists[0]?.t) return [];
  const r = await rows<{ idx: number; tag: string; hash: string; applied_at: Date | string }>(
    db,
    sql`SELECT idx, tag, hash, applied_at FROM untorn_meta.migrations ORDER BY idx`,
  );
  return r.map((m) => ({ idx: m.idx, tag: m.tag, hash: m.hash, appliedAt: new Date(m.applied_at) }));
}

/**
 * Brings the database to the latest migration in one transaction; returns the tags it applied.
 * `location` names the store in errors (data directory, or host:port/database).
 */
export async function migrate(db: Db, location: string, migrations = readMigrations()): Promise<string[]> {
  return db.transaction(async (tx) => {
    await tx.execute(sql`SELECT pg_advisory_xact_lock(${MIGRATION_LOCK_KEY})`);
    await tx.execute(sql`CREATE SCHEMA IF NOT EXISTS untorn_meta`);
    await tx.execute(sql`
      CREATE TABLE IF NOT EXISTS untorn_meta.migrations (
        idx integer PRIMARY KEY,
        tag text NOT NULL,
        hash text NOT NULL,
        applied_at timestamptz NOT NULL DEFAULT now()
      )`);
    const applied = await appliedMigrations(tx);
    for (const [i, a] of applied.entries()) {
      const known = migrations[a.idx];
      if (a.idx !== i) {
        throw new MigrationError(
          location,
          `${location}: migration history has a gap before ${a.tag}; restore a backup`,
        );
      }
      if (!known) {
        throw new MigrationError(
          location,
          `${location} was migrated by a newer Untorn (migration ${a.tag}); this build knows migrations up to ${migrations.at(-1)?.tag ?? "none"}. Upgrade Untorn; never run an older build against it.`,
        );
      }
      if (known.tag !== a.tag || !sameMigration(known, a.hash)) {
        throw new MigrationError(
          location,
          `${location}: applied migration ${a.tag} (sha256 ${a.hash.slice(0, 12)}) differs from this build's ${known.tag} (sha256 ${known.hash.slice(0, 12)}); a committed migration was edited. Restore the original file and add a new migration instead.`,
        );
      }
    }
    const pending = migrations.slice(applied.length);
    for (const m of pending) {
      for (const [n, statement] of m.statements.entries()) {
        try {
          await tx.execute(sql.raw(statement));
        } catch (e) {
          throw new MigrationError(
            location,
            `${location}: migration ${m.tag} failed at statement ${n + 1}: ${rootMessage(e)}; rolled back, nothing was changed`,
            { cause: e },
          );
        }
      }
      await tx.execute(
        sql`INSERT INTO untorn_meta.migrations (idx, tag, hash) VALUES (${m.idx}, ${m.tag}, ${m.hash})`,
      );
    }
    return pending.map((m) => m.tag);
  });
}

/**
 * What the console's role (DATABASE_URL's user, when migrations run as another) may do: read and write
 * the store's tables, but on audit_log only SELECT and INSERT; it owns nothing, so it can neither
 * ALTER the table nor disable its triggers. Idempotent; run by the owner after every migration.
 */
export async function grantAppRole(db: Db, role: string): Promise<void> {
  const r = sql.identifier(role);
  await db.transaction(async (tx) => {
    const [who] = await rows<{ owner: string; me: string; super: boolean }>(
      tx,
      sql`SELECT pg_get_userbyid(c.relowner) AS owner, current_user AS me,
                 (SELECT rolsuper FROM pg_roles WHERE rolname = ${role}) AS super
            FROM pg_class c WHERE c.oid = 'untorn.audit_log'::regclass`,
    );
    if (who?.owner === role)
      throw new Error(
        `the console's role ${role} owns the store's tables; migrate as another role (the owner) and connect the console as ${role}`,
      );
    if (who?.super)
      throw new Error(
        `the console's role ${role} is a superuser: give it a role of its own without SUPERUSER`,
      );
    await tx.execute(sql`GRANT USAGE ON SCHEMA untorn, untorn_meta TO ${r}`);
    await tx.execute(sql`GRANT SELECT ON untorn_meta.migrations TO ${r}`);
    await tx.execute(sql`GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA untorn TO ${r}`);
    await tx.execute(sql`REVOKE UPDATE, DELETE, TRUNCATE, REFERENCES, TRIGGER ON untorn.audit_log FROM ${r}`);
    await tx.execute(sql`GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA untorn TO ${r}`);
  });
}

/** Refuses a database this build has migrations for that are not applied (the app role cannot apply them). */
export async function requireMigrated(
  db: Db,
  location: string,
  migrations = readMigrations(),
): Promise<void> {
  const applied = await appliedMigrations(db);
  const last = applied.at(-1);
  const want = migrations.at(-1);
  if (applied.length !== migrations.length || !last || !want || !sameMigration(want, last.hash))
    throw new MigrationError(
      location,
      `${location}: the store is at migration ${last?.tag ?? "none"}, this build needs ${want?.tag ?? "none"}; run the migrations as the owner (UNTORN_MIGRATION_DATABASE_URL)`,
    );
}

/** The database's own message under drizzle's "Failed query: ..." wrapper. */
export function rootMessage(e: unknown): string {
  let cur: unknown = e;
  while (cur instanceof Error && cur.cause instanceof Error) cur = cur.cause;
  return cur instanceof Error ? cur.message : String(cur);
}
