/**
 * The audit log's hash chain on both backends: concurrent appends stay one chain, and a rewrite by a
 * superuser (triggers disabled, a row changed or deleted) is found by verify at the entry it touched.
 * On PostgreSQL with the owner and the console's role apart: as the console's role, UPDATE, DELETE,
 * TRUNCATE and ALTER TABLE ... DISABLE TRIGGER on the audit log are all refused.
 */
import { randomBytes } from "node:crypto";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { entryHash, GENESIS_HASH } from "./audit-chain.js";
import { openStore } from "./store.js";
import { BACKENDS, openTestBackend, type TestBackend } from "./testing/backends.js";
import { ADMIN_URL, adminClient, createTestDatabase } from "./testing/postgres.js";

describe.each(BACKENDS)("audit hash chain on %s", (kind) => {
  let t: TestBackend;
  beforeAll(async () => {
    t = await openTestBackend(kind);
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("chains 60 appends made at once (a barrier) into one unbroken chain, seq 1 to n", async () => {
    let release!: () => void;
    const barrier = new Promise<void>((r) => {
      release = r;
    });
    const writes = Array.from({ length: 60 }, (_, i) =>
      barrier.then(() =>
        t.store.audit({
          actor: `writer-${i}`,
          action: "test.append",
          entity: "test",
          details: { i, s: "é✓" },
        }),
      ),
    );
    release();
    const rows = await Promise.all(writes);
    const seqs = rows.map((r) => r.seq).sort((a, b) => a - b);
    expect(new Set(seqs).size).toBe(60);
    const v = await t.store.verifyAudit();
    expect(v).toMatchObject({ ok: true });
    if (!v.ok) return;
    expect(v.entries).toBeGreaterThanOrEqual(60);
    const [last] = await t.store.listAudit({ limit: 1 });
    expect(v.head).toBe(last?.hash);
    const first = (await t.store.listAudit({ limit: 500 })).at(-1)!;
    expect(first.prevHash).toBe(GENESIS_HASH);
  });

  it("finds a superuser's rewrite of one entry, and a deleted entry, at that entry", async () => {
    for (let i = 0; i < 5; i++)
      await t.store.audit({ actor: "alice (operator)", action: "test.keep", entity: "test" });
    // The third newest: entries after it are there to break (cutting the end off needs an outside head).
    const victim = (await t.store.listAudit({ action: "test.keep", limit: 3 }))[2];
    await t.exec(`ALTER TABLE untorn.audit_log DISABLE TRIGGER USER`);
    await t.exec(`UPDATE untorn.audit_log SET actor = 'mallory (admin)' WHERE id = ${victim!.id}`);
    const v = await t.store.verifyAudit();
    expect(v).toMatchObject({ ok: false, brokenAt: victim!.seq, id: victim!.id });
    if (v.ok) return;
    expect(v.reason).toMatch(/changed after it was written/);
    expect(v.entries).toBe(victim!.seq - 1);
    // Put back, then delete one in the middle: the gap is found.
    await t.exec(`UPDATE untorn.audit_log SET actor = 'alice (operator)' WHERE id = ${victim!.id}`);
    expect(await t.store.verifyAudit()).toMatchObject({ ok: true });
    await t.exec(`DELETE FROM untorn.audit_log WHERE id = ${victim!.id}`);
    await t.exec(`ALTER TABLE untorn.audit_log ENABLE TRIGGER USER`);
    expect(await t.store.verifyAudit()).toMatchObject({ ok: false, brokenAt: victim!.seq });
  });
});

describe("entryHash", () => {
  it("is the digest the database's trigger writes, for text in any script and a null entity id", async () => {
    const t = await openTestBackend("pglite");
    try {
      const row = await t.store.audit({
        actor: "ü 名前",
        action: "a",
        entity: "e",
        details: { b: [1, "x"], a: null },
      });
      const r = (await t.backend.db.execute(
        `SELECT to_char(at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') AS at, details::text AS d FROM untorn.audit_log WHERE id = ${row.id}` as never,
      )) as unknown as { rows: { at: string; d: string }[] };
      const f = {
        seq: row.seq,
        id: row.id,
        at: r.rows[0]!.at,
        actor: row.actor,
        action: "a",
        entity: "e",
        entityId: null,
        details: r.rows[0]!.d,
      };
      expect(entryHash(row.prevHash, f)).toBe(row.hash);
      expect(entryHash(row.prevHash, { ...f, entityId: "" })).not.toBe(row.hash);
    } finally {
      await t.cleanup();
    }
  });
});

describe("PostgreSQL: the console's role cannot rewrite the audit log", () => {
  const role = `untorn_app_${randomBytes(4).toString("hex")}`;
  let db: Awaited<ReturnType<typeof createTestDatabase>>;
  let appUrl: string;
  beforeAll(async () => {
    const admin = await adminClient();
    try {
      await admin.query(`CREATE ROLE ${role} LOGIN`);
    } finally {
      await admin.end();
    }
    db = await createTestDatabase();
    const u = new URL(db.url);
    u.username = role;
    appUrl = u.toString();
  });
  afterAll(async () => {
    await db?.drop();
    const admin = await adminClient();
    try {
      await admin.query(`DROP ROLE IF EXISTS ${role}`);
    } finally {
      await admin.end();
    }
  });

  it("migrates as the owner, connects as a role that may only SELECT and INSERT the audit log", async () => {
    const store = await openStore({ databaseUrl: appUrl, migrationDatabaseUrl: db.url });
    try {
      expect(store.location).toContain(role);
      const entry = await store.audit({ actor: "app", action: "test.app-role", entity: "test" });
      expect(entry.seq).toBeGreaterThan(0);
      const c = new pg.Client({ connectionString: appUrl });
      await c.connect();
      try {
        const refused = async (q: string) => {
          const e = await c.query(q).then(
            () => null,
            (err: { code?: string; message: string }) => err,
          );
          expect(e, q).not.toBeNull();
          expect(["42501", "42809"], `${q}: ${e?.message}`).toContain(e?.code);
        };
        await refused(`UPDATE untorn.audit_log SET actor = 'x' WHERE id = ${entry.id}`);
        await refused(`DELETE FROM untorn.audit_log WHERE id = ${entry.id}`);
        await refused(`TRUNCATE untorn.audit_log`);
        await refused(`ALTER TABLE untorn.audit_log DISABLE TRIGGER USER`);
        await refused(`ALTER TABLE untorn.audit_log DISABLE TRIGGER audit_log_chain`);
        await refused(`DROP TABLE untorn.audit_log`);
        await refused(
          `CREATE OR REPLACE FUNCTION untorn.audit_entry_hash(prev text, seq bigint, id bigint, at timestamptz, actor text, action text, entity text, entity_id text, details jsonb) RETURNS text LANGUAGE sql AS $$ SELECT 'x' $$`,
        );
        // Its writes elsewhere still work (a user, which audits).
        await store.createUser({ username: `u${role}`, passwordHash: "h", role: "viewer", actor: "t" });
      } finally {
        await c.end();
      }
      // A superuser (the owner here) can rewrite it: verify finds where.
      const su = new pg.Client({ connectionString: db.url });
      await su.connect();
      try {
        await su.query(`ALTER TABLE untorn.audit_log DISABLE TRIGGER USER`);
        await su.query(`UPDATE untorn.audit_log SET details = '{"forged": true}' WHERE id = ${entry.id}`);
        await su.query(`ALTER TABLE untorn.audit_log ENABLE TRIGGER USER`);
      } finally {
        await su.end();
      }
      expect(await store.verifyAudit()).toMatchObject({ ok: false, brokenAt: entry.seq, id: entry.id });
    } finally {
      await store.close();
    }
  });

  it("refuses to connect as a role that owns the tables or to an unmigrated database", async () => {
    const fresh = await createTestDatabase();
    try {
      const u = new URL(fresh.url);
      u.username = role;
      await expect(openStore({ databaseUrl: u.toString() })).rejects.toThrow();
      const ownerOnly = new URL(fresh.url);
      await expect(
        openStore({
          databaseUrl: ownerOnly.toString(),
          migrationDatabaseUrl: ADMIN_URL.replace(/\/[^/]*$/, `/${fresh.name}`),
        }),
      ).rejects.toThrow(/superuser|owns/);
    } finally {
      await fresh.drop();
    }
  });
});
