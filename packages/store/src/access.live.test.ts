import { createHash, randomBytes } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { MetadataConflictError, StoreQueryError } from "./errors.js";
import { rootMessage } from "./migrate.js";
import type { StoreOps } from "./repository.js";
import { openStore, type Store } from "./store.js";
import { BACKENDS, openTestBackend, type TestBackend } from "./testing/backends.js";

let seq = 0;
const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;
const hash = () => createHash("sha256").update(randomBytes(32)).digest("hex");

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected the promise to reject");
}

describe("API token use through openStore", () => {
  it("is kept in memory per read and written by flushTokenUse (and on close), not once per read", async () => {
    const t = await openTestBackend("pglite");
    const reopen = t.reopen;
    await t.backend.close();
    const store = await openStore({ ...reopen, durable: false });
    try {
      const u = await store.createUser({
        username: uniq("reader"),
        passwordHash: "h",
        role: "viewer",
        actor: "t",
      });
      const h = hash();
      await store.createApiToken({ userId: u.id, name: "r", tokenHash: h, actor: "t" });
      for (let i = 0; i < 50; i++) expect(await store.getApiTokenUser(h)).not.toBeNull();
      expect((await store.listApiTokens(u.id))[0]?.lastUsedAt).toBeNull();
      await store.flushTokenUse();
      const used = (await store.listApiTokens(u.id))[0]?.lastUsedAt;
      expect(used).not.toBeNull();
      await store.getApiTokenUser(h);
      await store.close();
      const again = await openStore({ ...reopen, durable: false });
      try {
        const after = (await again.listApiTokens(u.id))[0]?.lastUsedAt;
        expect(after!.getTime()).toBeGreaterThanOrEqual(used!.getTime());
      } finally {
        await again.close();
      }
    } finally {
      await store.close();
      await t.cleanup().catch(() => {});
    }
  });
});

describe.each(BACKENDS)("access tables on %s", (kind) => {
  let t: TestBackend;
  let store: StoreOps;
  beforeAll(async () => {
    t = await openTestBackend(kind);
    store = t.store;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  it("counts failed credentials per key in the database, until the window passes or they are cleared", async () => {
    const account = uniq("account:mallory");
    const other = uniq("address:192.0.2.1");
    expect(await store.authFailureWait(account, 3, 900)).toBe(0);
    for (let i = 0; i < 3; i++) await store.recordAuthFailure([account, other], 900);
    const wait = await store.authFailureWait(account, 3, 900);
    expect(wait).toBeGreaterThan(890);
    expect(wait).toBeLessThanOrEqual(900);
    expect(await store.authFailureWait(account, 4, 900)).toBe(0);
    // Failures older than the window no longer count.
    await new Promise((r) => setTimeout(r, 1100));
    expect(await store.authFailureWait(account, 3, 1)).toBe(0);
    await store.clearAuthFailures(account);
    expect(await store.authFailureWait(account, 1, 900)).toBe(0);
    expect(await store.authFailureWait(other, 3, 900)).toBeGreaterThan(0);
    await expect(store.recordAuthFailure([], 900)).rejects.toThrow(/keys/);
  });

  it("reserves at most `max` of 40 parallel attempts released by a barrier, across two connections", async () => {
    // On PostgreSQL the second store is another pool, as a second console on the same database is.
    const second: Store | null = kind === "postgres" ? await openStore(t.reopen) : null;
    try {
      const account = uniq("account:race");
      const address = uniq("address:race");
      let release!: () => void;
      const barrier = new Promise<void>((r) => {
        release = r;
      });
      const attempts = Array.from({ length: 40 }, (_, i) =>
        barrier.then(() =>
          (i % 2 === 1 && second ? second : store).reserveAuthAttempt(
            [
              { key: account, max: 10 },
              { key: address, max: 50 },
            ],
            900,
          ),
        ),
      );
      release();
      const results = await Promise.all(attempts);
      expect(results.filter((r) => r.reserved !== null)).toHaveLength(10);
      for (const r of results.filter((r) => r.reserved === null)) expect(r.wait).toBeGreaterThan(0);
      expect(await store.authFailureWait(account, 10, 900)).toBeGreaterThan(0);
      expect(await store.authFailureWait(address, 11, 900)).toBe(0);
      // A good attempt gives its reservation back.
      const other = uniq("account:ok");
      const r = await store.reserveAuthAttempt([{ key: other, max: 1 }], 900);
      expect(r.reserved).toHaveLength(1);
      expect((await store.reserveAuthAttempt([{ key: other, max: 1 }], 900)).reserved).toBeNull();
      await store.releaseAuthAttempt(r.reserved ?? []);
      expect(await store.authFailureWait(other, 1, 900)).toBe(1 - 1);
    } finally {
      await second?.close();
    }
  });

  it("creates users with unique names and audits it", async () => {
    const name = uniq("alice");
    const u = await store.createUser({
      username: name,
      passwordHash: "scrypt$x",
      role: "operator",
      actor: "setup",
    });
    expect(u.role).toBe("operator");
    expect((await store.getUserByName(name))?.id).toBe(u.id);
    expect(await store.getUserByName("no such user!")).toBeNull();
    const dup = await rejection(
      store.createUser({ username: name, passwordHash: "scrypt$y", role: "viewer", actor: "setup" }),
    );
    expect(dup).toBeInstanceOf(StoreQueryError);
    expect((dup as StoreQueryError).constraint).toBe("users_username_idx");
    const [audit] = await store.listAudit({ entity: "user", entityId: name });
    expect(audit).toMatchObject({ actor: "setup", action: "user.create", details: { role: "operator" } });
  });

  it("sessions expire, end on logout and when the user is disabled or changes password", async () => {
    const u = await store.createUser({
      username: uniq("bob"),
      passwordHash: "h",
      role: "viewer",
      actor: "t",
    });
    const live = hash();
    const old = hash();
    await store.createSession({ idHash: live, userId: u.id, expiresAt: new Date(Date.now() + 60_000) });
    await store.createSession({ idHash: old, userId: u.id, expiresAt: new Date(Date.now() - 1000) });
    expect((await store.getSessionUser(live))?.id).toBe(u.id);
    expect(await store.getSessionUser(old)).toBeNull();
    expect(await store.getSessionUser("not-a-hash")).toBeNull();
    expect(await store.deleteExpiredSessions()).toBeGreaterThanOrEqual(1);
    await store.updateUser({ id: u.id, passwordHash: "h2", actor: "admin" });
    expect(await store.getSessionUser(live)).toBeNull();
    const again = hash();
    await store.createSession({ idHash: again, userId: u.id, expiresAt: new Date(Date.now() + 60_000) });
    await store.deleteSession(again);
    expect(await store.getSessionUser(again)).toBeNull();
    const third = hash();
    await store.createSession({ idHash: third, userId: u.id, expiresAt: new Date(Date.now() + 60_000) });
    await store.updateUser({ id: u.id, disabled: true, actor: "admin" });
    expect(await store.getSessionUser(third)).toBeNull();
  });

  it("API tokens resolve to their user until revoked", async () => {
    const u = await store.createUser({ username: uniq("ci"), passwordHash: "h", role: "viewer", actor: "t" });
    const h = hash();
    const tok = await store.createApiToken({ userId: u.id, name: "health check", tokenHash: h, actor: "t" });
    const found = await store.getApiTokenUser(h);
    expect(found?.user.id).toBe(u.id);
    // A read writes nothing; the use is recorded in a batch.
    expect(found?.token.lastUsedAt).toBeNull();
    const at = new Date(Date.now() - 5000);
    await store.recordTokenUse([{ id: tok.id, at }]);
    await store.recordTokenUse([{ id: tok.id, at: new Date(at.getTime() - 60_000) }]);
    expect((await store.listApiTokens(u.id))[0]?.lastUsedAt?.getTime()).toBe(at.getTime());
    expect(await store.getApiTokenUser(hash())).toBeNull();
    expect(await store.revokeApiToken(tok.id, "admin")).toBe(true);
    expect(await store.revokeApiToken(tok.id, "admin")).toBe(false);
    expect(await store.getApiTokenUser(h)).toBeNull();
    expect((await store.listApiTokens(u.id))[0]?.revokedAt).not.toBeNull();
  });

  it("a password reset and disabling revoke the user's API tokens; re-enabling revives none", async () => {
    const u = await store.createUser({
      username: uniq("tok"),
      passwordHash: "h",
      role: "viewer",
      actor: "t",
    });
    const a = hash();
    const b = hash();
    await store.createApiToken({ userId: u.id, name: "a", tokenHash: a, actor: "t" });
    await store.updateUser({ id: u.id, passwordHash: "h2", actor: "admin" });
    expect(await store.getApiTokenUser(a)).toBeNull();
    await store.createApiToken({ userId: u.id, name: "b", tokenHash: b, actor: "t" });
    expect(await store.getApiTokenUser(b)).not.toBeNull();
    await store.updateUser({ id: u.id, disabled: true, actor: "admin" });
    await store.updateUser({ id: u.id, disabled: false, actor: "admin" });
    expect(await store.getApiTokenUser(b)).toBeNull();
    expect(await store.getApiTokenUser(a)).toBeNull();
    const [audit] = await store.listAudit({ entity: "user", entityId: u.username, action: "user.update" });
    expect(
      JSON.stringify((await store.listAudit({ entity: "user", entityId: u.username })).map((x) => x.details)),
    ).toContain("apiTokensRevoked");
    expect(audit).toBeDefined();
  });

  it("usernames are one account whatever their case", async () => {
    const name = uniq("CaseUser");
    await store.createUser({ username: name, passwordHash: "h", role: "viewer", actor: "t" });
    const dup = await rejection(
      store.createUser({ username: name.toLowerCase(), passwordHash: "h", role: "admin", actor: "t" }),
    );
    expect((dup as StoreQueryError).constraint).toBe("users_username_lower_idx");
    expect((await store.getUserByName(name.toUpperCase()))?.username).toBe(name);
  });

  it("a metadata save from a stale version is refused naming who changed what", async () => {
    const instance = uniq("db");
    const first = await store.upsertInstanceMetadata(
      { instance, cluster: "a", actor: "alice" },
      { expectedVersion: 0 },
    );
    expect(first.version).toBe(1);
    const second = await store.upsertInstanceMetadata(
      { instance, notes: "x", actor: "bob" },
      { expectedVersion: 1 },
    );
    expect(second.version).toBe(2);
    const e = await rejection(
      store.upsertInstanceMetadata({ instance, cluster: "b", actor: "carol" }, { expectedVersion: 1 }),
    );
    expect(e).toBeInstanceOf(MetadataConflictError);
    expect(e.message).toContain("changed by bob");
    expect(e.message).toContain("(notes)");
    expect((await store.getInstanceMetadata(instance))?.cluster).toBe("a");
    const racing = await rejection(
      store.upsertInstanceMetadata({ instance, cluster: "c", actor: "dave" }, { expectedVersion: 0 }),
    );
    expect(racing).toBeInstanceOf(MetadataConflictError);
  });

  it("the metadata stamp changes on every create, update and delete", async () => {
    const a = await store.instanceMetadataStamp();
    const instance = uniq("db");
    await store.upsertInstanceMetadata({ instance, cluster: "a", actor: "t" });
    const b = await store.instanceMetadataStamp();
    await store.upsertInstanceMetadata({ instance, cluster: "b", actor: "t" });
    const c = await store.instanceMetadataStamp();
    await store.deleteInstanceMetadata({ instance, actor: "t" });
    const d = await store.instanceMetadataStamp();
    // Each differs from the one before (d equals a: the table is back where it started).
    expect([b !== a, c !== b, d !== c]).toEqual([true, true, true]);
  });

  it("two concurrent saves from the same version: one wins, the other is a conflict", async () => {
    const instance = uniq("db");
    await store.upsertInstanceMetadata({ instance, cluster: "a", actor: "alice" });
    const results = await Promise.allSettled([
      store.upsertInstanceMetadata({ instance, cluster: "x", actor: "x" }, { expectedVersion: 1 }),
      store.upsertInstanceMetadata({ instance, cluster: "y", actor: "y" }, { expectedVersion: 1 }),
    ]);
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const lost = results.find((r) => r.status === "rejected") as PromiseRejectedResult;
    expect(lost.reason).toBeInstanceOf(MetadataConflictError);
  });

  it("the audit log is append-only and filterable", async () => {
    const actor = uniq("auditor");
    const entry = await store.audit({ actor, action: "test.thing", entity: "test" });
    const upd = await rejection(t.exec(`UPDATE untorn.audit_log SET actor = 'x' WHERE id = ${entry.id}`));
    expect(rootMessage(upd)).toMatch(/append-only: UPDATE refused/);
    const del = await rejection(t.exec(`DELETE FROM untorn.audit_log WHERE id = ${entry.id}`));
    expect(rootMessage(del)).toMatch(/append-only: DELETE refused/);
    const trunc = await rejection(t.exec("TRUNCATE untorn.audit_log"));
    expect(rootMessage(trunc)).toMatch(/append-only: TRUNCATE refused/);
    const found = await store.listAudit({ actor: actor.toUpperCase(), action: "test." });
    expect(found.map((a) => a.id)).toEqual([entry.id]);
    expect(await store.listAudit({ actor, before: entry.id })).toEqual([]);
  });
});
