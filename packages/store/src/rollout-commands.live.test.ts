import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { IdempotencyKeyReuseError, StoreValidationError, VersionConflictError } from "./errors.js";
import { openStore, type Store } from "./store.js";
import { BACKENDS, openTestBackend, type TestBackend } from "./testing/backends.js";
import { migratedDataDir } from "./testing/pglite.js";
import { child, killChildren } from "./testing/spawn-child.js";

let seq = 0;
const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected the promise to reject");
}

afterEach(() => killChildren());

describe.each(BACKENDS)("rollout commands on %s", (kind) => {
  let t: TestBackend;
  let store: Store;
  beforeAll(async () => {
    t = await openTestBackend(kind);
    store = t.store;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  const create = (actor = "alice", key?: string, target = uniq("db")) =>
    store.createRollout({
      name: "doublewrite off, orders",
      change: { kind: "doublewrite-off" },
      targets: [target],
      waves: [],
      state: "draft",
      document: { phase: "draft" },
      ...(key ? { idempotencyKey: key } : {}),
      actor,
    });

  it("commits state, document and numbered events in one step, and audits the command", async () => {
    const r = await create();
    expect(r).toMatchObject({ version: 1, document: { phase: "draft" }, updatedBy: "alice" });
    const at = new Date("2026-11-24T10:00:00Z");
    const c = await store.commitRollout({
      id: r.id,
      expectedVersion: 1,
      actor: "bob",
      command: "approve",
      state: "running",
      document: { phase: "running", wave: 0 },
      events: [
        { type: "approved", evidence: { backupAttested: true }, at },
        { type: "wave-started", evidence: { wave: 0 } },
      ],
      outcome: { ok: true },
    });
    expect(c.replayed).toBe(false);
    expect(c.rollout).toMatchObject({ state: "running", version: 2, updatedBy: "bob" });
    expect(c.events.map((e) => [e.sequence, e.action])).toEqual([
      [2, "approved"],
      [3, "wave-started"],
    ]);
    expect(c.events[0]!.at.toISOString()).toBe(at.toISOString());
    expect((await store.getRollout(r.id))!.document).toEqual({ phase: "running", wave: 0 });
    const events = await store.listRolloutEvents(r.id);
    expect(events.map((e) => e.sequence)).toEqual([1, 2, 3]);
    expect(events[1]!.details).toEqual({ backupAttested: true });
    const audit = await store.listAudit({ entity: "rollout", entityId: r.id });
    expect(audit[0]).toMatchObject({ actor: "bob", action: "rollout.approve", details: { version: 2 } });
  });

  it("marks a refused command in its audit row, and refuses a 'refused' commit that changes the status", async () => {
    const r = await create();
    const refused = await store.commitRollout({
      id: r.id,
      expectedVersion: 1,
      actor: "bob",
      command: "step-done",
      idempotencyKey: uniq("key-step"),
      state: "draft",
      document: { phase: "draft", refusals: 1 },
      events: [{ type: "command-refused", evidence: { code: "wave-not-applying" } }],
      outcome: { ok: false, code: "wave-not-applying" },
      refused: true,
    });
    expect(refused.version).toBe(2);
    const [audit] = await store.listAudit({ entity: "rollout", entityId: r.id });
    expect(audit).toMatchObject({
      action: "rollout.step-done",
      details: { from: "draft", to: "draft", version: 2, refused: true },
    });
    const applied = await store.commitRollout({
      id: r.id,
      expectedVersion: 2,
      actor: "bob",
      command: "pause",
      state: "paused",
      document: { phase: "paused" },
      events: [{ type: "paused" }],
      refused: false,
    });
    expect(applied.version).toBe(3);
    expect((await store.listAudit({ entity: "rollout", entityId: r.id }))[0]!.details).toMatchObject({
      refused: false,
      version: 3,
    });
    const bad = await rejection(
      store.commitRollout({
        id: r.id,
        expectedVersion: 3,
        actor: "bob",
        command: "resume",
        state: "running",
        document: { phase: "running" },
        events: [],
        refused: true,
      }),
    );
    expect(bad).toBeInstanceOf(StoreValidationError);
    expect(bad.message).toContain(
      "a refused command leaves the status as it is (paused), but the commit sets running",
    );
    expect((await store.getRollout(r.id))!).toMatchObject({ version: 3, state: "paused" });
  });

  it("creates with the caller's id and first events", async () => {
    const id = "7d4e3b6a-1f0c-4c8e-9a51-0b7b1d2c3e4f";
    const at = new Date("2026-11-24T09:00:00Z");
    const r = await store.createRollout({
      id,
      name: "with id",
      change: {},
      targets: [uniq("db")],
      waves: [],
      state: "active",
      document: { id },
      events: [{ type: "created", evidence: { message: "2 waves" }, at }],
      actor: "alice",
    });
    expect(r.id).toBe(id);
    const events = await store.listRolloutEvents(id);
    expect(events).toMatchObject([{ sequence: 1, action: "created", details: { message: "2 waves" } }]);
    expect(events[0]!.at.toISOString()).toBe(at.toISOString());
  });

  it("answers a command sent again with the same key with the stored outcome, writing nothing", async () => {
    const r = await create();
    const cmd = {
      id: r.id,
      expectedVersion: 1,
      actor: "bob",
      command: "pause",
      idempotencyKey: uniq("key-pause"),
      request: { reason: "lunch" },
      state: "paused",
      document: { phase: "paused" },
      events: [{ type: "paused" }],
      outcome: { paused: true },
    };
    const first = await store.commitRollout(cmd);
    const again = await store.commitRollout(cmd);
    expect(again).toMatchObject({ replayed: true, version: 2, outcome: { paused: true }, events: [] });
    expect(first.version).toBe(2);
    expect((await store.getRollout(r.id))!.version).toBe(2);
    expect(await store.listRolloutEvents(r.id)).toHaveLength(2);
    expect(await store.getRolloutCommand(cmd.idempotencyKey)).toMatchObject({
      command: "pause",
      rolloutId: r.id,
      version: 2,
      outcome: { paused: true },
    });

    const reused = await rejection(
      store.commitRollout({ ...cmd, expectedVersion: 2, request: { reason: "something else" } }),
    );
    expect(reused).toBeInstanceOf(IdempotencyKeyReuseError);
    expect(reused.message).toContain(`already used for another request (pause on rollout ${r.id})`);
    expect((await store.getRollout(r.id))!.version).toBe(2);
  });

  it("creates once per idempotency key, even when two creates race", async () => {
    const key = uniq("key-create");
    const target = uniq("db");
    const [a, b] = await Promise.all([create("alice", key, target), create("alice", key, target)]);
    expect(a.id).toBe(b.id);
    expect((await create("alice", key, target)).id).toBe(a.id);
    expect(await store.listRolloutEvents(a.id)).toHaveLength(1);
    const other = await rejection(
      store.createRollout({
        name: "another",
        change: {},
        targets: ["x:3306"],
        waves: [],
        state: "draft",
        idempotencyKey: key,
        actor: "alice",
      }),
    );
    expect(other).toBeInstanceOf(IdempotencyKeyReuseError);
  });

  it("gives the second of two concurrent writers a conflict naming who changed what and when", async () => {
    const r = await create();
    // PostgreSQL: a second store = a second pool; PGlite is single-process, so one store serves both.
    const other = kind === "postgres" ? await openStore(t.reopen) : store;
    try {
      const command = (s: Store, actor: string, c: string) =>
        s.commitRollout({
          id: r.id,
          expectedVersion: 1,
          actor,
          command: c,
          state: c,
          document: { phase: c, by: actor },
          events: [{ type: c }],
        });
      const results = await Promise.allSettled([
        command(store, "alice", "pause"),
        command(other, "bob", "abort"),
      ]);
      const won = results.findIndex((x) => x.status === "fulfilled");
      expect(won).toBeGreaterThanOrEqual(0);
      const lost = results[1 - won] as PromiseRejectedResult;
      expect(lost.status).toBe("rejected");
      const winner = won === 0 ? { actor: "alice", c: "pause" } : { actor: "bob", c: "abort" };
      const e = lost.reason as VersionConflictError;
      expect(e).toBeInstanceOf(VersionConflictError);
      expect(e.changedBy).toMatchObject({ actor: winner.actor, action: winner.c });
      expect(e.message).toMatch(
        new RegExp(
          `was changed by ${winner.actor} at \\d{4}-\\d\\d-\\d\\dT[^ ]+ \\(${winner.c}\\): expected version 1, found version 2`,
        ),
      );
      // The loser wrote nothing: one command's state and event.
      const now = await store.getRollout(r.id);
      expect(now).toMatchObject({ version: 2, state: winner.c, document: { by: winner.actor } });
      expect((await store.listRolloutEvents(r.id)).map((x) => x.action)).toEqual(["created", winner.c]);
    } finally {
      if (other !== store) await other.close();
    }
  });

  it("rejects a malformed command before it reaches the database", async () => {
    const r = await create();
    const e = await rejection(
      store.commitRollout({
        id: r.id,
        expectedVersion: 0,
        actor: "",
        command: "approve",
        idempotencyKey: "short",
        state: "running",
        document: [] as never,
        events: [{ type: "" }],
      }),
    );
    expect(e).toBeInstanceOf(StoreValidationError);
    for (const field of ["expectedVersion", "actor", "idempotencyKey", "document", "events.0.type"]) {
      expect(e.message).toContain(`${field}:`);
    }
    expect((await store.getRollout(r.id))!.version).toBe(1);
  });

  it("deletes a rollout with its events, keys and comparisons, audited, and nothing else", async () => {
    const gone = await create("lab recording", uniq("create"));
    const kept = await create();
    await store.commitRollout({
      id: gone.id,
      expectedVersion: 1,
      actor: "lab recording",
      command: "approve",
      idempotencyKey: uniq("approve"),
      request: { wave: 0 },
      state: "active",
      document: { phase: "active" },
      events: [{ type: "wave-approved", evidence: { wave: 0 } }],
    });
    await store.saveComparison({
      rolloutId: gone.id,
      input: { a: 1 },
      result: { b: 2 },
      actor: "lab recording",
    });
    await store.saveComparison({ rolloutId: kept.id, input: { a: 1 }, result: { b: 2 }, actor: "alice" });

    expect(await store.deleteRollout({ id: gone.id, actor: "lab recording" })).toBe(true);
    expect(await store.getRollout(gone.id)).toBeNull();
    expect(await store.listRolloutEvents(gone.id)).toEqual([]);
    expect(await store.listComparisons({ rolloutId: gone.id })).toEqual([]);
    // The other rollout keeps everything.
    expect(await store.getRollout(kept.id)).toMatchObject({ id: kept.id, version: 1 });
    expect(await store.listRolloutEvents(kept.id)).toHaveLength(1);
    expect(await store.listComparisons({ rolloutId: kept.id })).toHaveLength(1);
    const [audit] = await store.listAudit({ action: "rollout.delete", entityId: gone.id });
    expect(audit).toMatchObject({ actor: "lab recording", entity: "rollout" });
    // Again: nothing to delete.
    expect(await store.deleteRollout({ id: gone.id, actor: "lab recording" })).toBe(false);
    expect((await rejection(store.deleteRollout({ id: "nope", actor: "x" }))).name).toBe(
      "StoreValidationError",
    );
  });

  it("lets one caller at a time hold a named exclusive lock", async () => {
    const other = kind === "postgres" ? await openStore(t.reopen) : store;
    try {
      const name = uniq("reconciler");
      let inner: unknown;
      const outer = await store.tryExclusive(name, async () => {
        inner = await other.tryExclusive(name, async () => "should not run");
        return "ran";
      });
      expect(outer).toEqual({ acquired: true, value: "ran" });
      expect(inner).toEqual({ acquired: false });
      expect(await other.tryExclusive(name, async () => 1)).toEqual({ acquired: true, value: 1 });
    } finally {
      if (other !== store) await other.close();
    }
  });

  it("loses no acknowledged command when the writer is killed -9 mid-write, and resumes from there", async () => {
    // PGlite is single-process: the child gets a data directory of its own.
    const dir = kind === "pglite" ? migratedDataDir() : null;
    const reopen = dir ? { dataDir: dir.path } : t.reopen;
    const where = "dataDir" in reopen ? reopen.dataDir : reopen.databaseUrl;
    let s = dir ? await openStore(reopen) : store;
    const r = await s.createRollout({
      name: "killed mid-write",
      change: {},
      targets: [uniq("db")],
      waves: [],
      state: "running",
      actor: "alice",
    });
    if (dir) await s.close();
    const c = child(["rollout", where, r.id]);
    await c.waitFor((l) => l.filter((x) => x.startsWith("wrote ")).length >= 15, "15 commits");
    c.proc.kill("SIGKILL");
    await c.exited;
    const acknowledged = Math.max(
      ...c.lines.filter((x) => x.startsWith("wrote ")).map((x) => Number(x.slice(6))),
    );

    if (dir) s = await openStore(reopen);
    try {
      const now = (await s.getRollout(r.id))!;
      const done = now.version - 1;
      // Every acknowledged command survived whole; the one in flight either committed whole or not at all.
      expect(done).toBeGreaterThanOrEqual(acknowledged);
      expect(done).toBeLessThanOrEqual(acknowledged + 1);
      expect(now.document).toMatchObject({ ticks: done });
      const events = await s.listRolloutEvents(r.id);
      expect(events).toHaveLength(1 + 3 * done);
      expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
      // The client retrying its last acknowledged command gets the stored outcome, not a second write.
      const retry = await s.commitRollout({
        id: r.id,
        expectedVersion: acknowledged,
        actor: "child",
        command: "tick",
        idempotencyKey: `tick-${r.id}-${acknowledged}`,
        request: { n: acknowledged },
        state: "running",
        document: {},
        events: [],
      });
      expect(retry).toMatchObject({
        replayed: true,
        outcome: { n: acknowledged },
        version: acknowledged + 1,
      });
      const resumed = await s.commitRollout({
        id: r.id,
        expectedVersion: now.version,
        actor: "alice",
        command: "resume",
        state: "running",
        document: { ticks: done, resumed: true },
        events: [{ type: "resumed" }],
      });
      expect(resumed.events[0]!.sequence).toBe(events.length + 1);
    } finally {
      if (dir) {
        await s.close();
        dir.remove();
      }
    }
  }, 120_000); // a PGlite child process: slow on a busy 2-core machine
});
