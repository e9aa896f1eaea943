// Migration 0005 on a store made before usernames were case-insensitive: accounts whose names differ only
// by case (Carol, carol, CAROL), one of them with a session and an API token, and a name the renaming
// would take (carol~2). The migration must succeed, keep the oldest name, rename and disable the others
// (sessions ended, tokens revoked), say so in the audit log, and leave the hash chain whole.
import { sql } from "drizzle-orm";
import { afterEach, describe, expect, it } from "vitest";
import { verifyAuditChain } from "./audit-chain.js";
import { type Db, migrate, readMigrations, requireMigrated } from "./migrate.js";
import { openPglite } from "./pglite.js";
import { openPostgres } from "./postgres.js";
import { tempDir } from "./testing/pglite.js";
import { createTestDatabase } from "./testing/postgres.js";

const ALL = readMigrations();
const AT = ALL.findIndex((m) => m.tag === "0005_audit_chain");
/** 0005 as first committed: its username index failed on case duplicates. */
const FIRST_0005_HASH = "4f52858e5db9027aff071f5baa7f0051532dcbc7004ae7ad09895e6e422ae5df";

interface Raw {
  db: Db;
  location: string;
  close(): Promise<void>;
}

// A fresh PGlite directory runs initdb: tens of seconds on a loaded 2-core machine.
const cleanups: (() => Promise<void>)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

async function rawDatabase(kind: "pglite" | "postgres"): Promise<Raw> {
  if (kind === "pglite") {
    const dir = tempDir("untorn-case-");
    const lite = await openPglite(dir.path, { durable: false });
    cleanups.push(async () => dir.remove());
    cleanups.push(lite.close);
    return lite;
  }
  const t = await createTestDatabase();
  const pg = await openPostgres(t.url);
  cleanups.push(t.drop);
  cleanups.push(pg.close);
  return pg;
}

async function rows<T>(db: Db, q: ReturnType<typeof sql>): Promise<T[]> {
  return ((await db.execute(q)) as unknown as { rows: T[] }).rows;
}

describe.each(["pglite", "postgres"] as const)("migration 0005 on %s", (kind) => {
  it("resolves usernames that differ only by case: the oldest keeps its name, the others are renamed, disabled and audited", async () => {
    const raw = await rawDatabase(kind);
    expect(await migrate(raw.db, raw.location, ALL.slice(0, AT))).toHaveLength(AT);
    const hash = "!test";
    // created_at decides who stays; ids are given so the tie on the two last is broken by id.
    await raw.db.execute(sql`
      INSERT INTO untorn.users (id, username, password_hash, role, created_at) VALUES
        ('00000000-0000-4000-8000-000000000002', 'carol', ${hash}, 'admin', '2026-01-02T00:00:00Z'),
        ('00000000-0000-4000-8000-000000000001', 'Carol', ${hash}, 'viewer', '2026-01-01T00:00:00Z'),
        ('00000000-0000-4000-8000-000000000004', 'CAROL', ${hash}, 'operator', '2026-01-03T00:00:00Z'),
        ('00000000-0000-4000-8000-000000000003', 'carol~2', ${hash}, 'viewer', '2026-01-03T00:00:00Z'),
        ('00000000-0000-4000-8000-000000000005', 'dave', ${hash}, 'viewer', '2026-01-01T00:00:00Z')`);
    await raw.db.execute(sql`
      INSERT INTO untorn.sessions (id_hash, user_id, expires_at) VALUES
        ('s-carol', '00000000-0000-4000-8000-000000000002', now() + interval '1 hour'),
        ('s-dave', '00000000-0000-4000-8000-000000000005', now() + interval '1 hour')`);
    await raw.db.execute(sql`
      INSERT INTO untorn.api_tokens (user_id, name, token_hash) VALUES
        ('00000000-0000-4000-8000-000000000002', 'ci', 't-carol'),
        ('00000000-0000-4000-8000-000000000005', 'ci', 't-dave')`);
    await raw.db.execute(sql`
      INSERT INTO untorn.audit_log (actor, action, entity, entity_id) VALUES ('admin (admin)', 'user.create', 'user', 'carol')`);

    // Before the fix: "could not create unique index "users_username_lower_idx"", and nothing migrated.
    expect(await migrate(raw.db, raw.location)).toEqual(ALL.slice(AT).map((m) => m.tag));

    const users = await rows<{ id: string; username: string; disabled: boolean }>(
      raw.db,
      sql`SELECT id::text, username, disabled_at IS NOT NULL AS disabled FROM untorn.users ORDER BY id`,
    );
    expect(users).toEqual([
      { id: "00000000-0000-4000-8000-000000000001", username: "Carol", disabled: false },
      // carol~2 is another account's name already: the next free number.
      { id: "00000000-0000-4000-8000-000000000002", username: "carol~3", disabled: true },
      { id: "00000000-0000-4000-8000-000000000003", username: "carol~2", disabled: false },
      { id: "00000000-0000-4000-8000-000000000004", username: "CAROL~4", disabled: true },
      { id: "00000000-0000-4000-8000-000000000005", username: "dave", disabled: false },
    ]);
    const sessions = await rows<{ id_hash: string }>(raw.db, sql`SELECT id_hash FROM untorn.sessions`);
    expect(sessions.map((s) => s.id_hash)).toEqual(["s-dave"]);
    const tokens = await rows<{ token_hash: string; revoked: boolean }>(
      raw.db,
      sql`SELECT token_hash, revoked_at IS NOT NULL AS revoked FROM untorn.api_tokens ORDER BY token_hash`,
    );
    expect(tokens).toEqual([
      { token_hash: "t-carol", revoked: true },
      { token_hash: "t-dave", revoked: false },
    ]);
    const audit = await rows<{ actor: string; action: string; entity_id: string; details: unknown }>(
      raw.db,
      sql`SELECT actor, action, entity_id, details FROM untorn.audit_log WHERE actor = 'store migration 0005' ORDER BY seq`,
    );
    expect(audit.map((a) => [a.action, a.entity_id, a.details])).toEqual([
      [
        "user.update",
        "carol~3",
        expect.objectContaining({
          changes: { username: { from: "carol", to: "carol~3" }, disabled: { from: false, to: true } },
        }),
      ],
      [
        "user.update",
        "CAROL~4",
        expect.objectContaining({
          changes: { username: { from: "CAROL", to: "CAROL~4" }, disabled: { from: false, to: true } },
        }),
      ],
    ]);
    expect(await verifyAuditChain(raw.db)).toMatchObject({ ok: true, entries: 3 });
    // And the rule holds from now on.
    const again = await raw.db
      .execute(sql`INSERT INTO untorn.users (username, password_hash, role) VALUES ('DAVE', '!x', 'viewer')`)
      .catch((e: unknown) => e);
    expect(again).toBeInstanceOf(Error);
  }, 240_000);

  it("accepts a store that applied 0005 as first committed (no case duplicates there)", async () => {
    const raw = await rawDatabase(kind);
    const first = ALL.map((m) => (m.tag === "0005_audit_chain" ? { ...m, hash: FIRST_0005_HASH } : m));
    await migrate(raw.db, raw.location, first);
    expect(await migrate(raw.db, raw.location)).toEqual([]);
    await expect(requireMigrated(raw.db, raw.location)).resolves.toBeUndefined();
  }, 240_000);
});
