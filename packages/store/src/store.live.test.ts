import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { NotFoundError, StoreQueryError, StoreValidationError, VersionConflictError } from "./errors.js";
import type { StoreOps } from "./repository.js";
import { openStore } from "./store.js";
import { BACKENDS, openTestBackend, type TestBackend } from "./testing/backends.js";
import type { JsonObject } from "./validation.js";

let seq = 0;
/** Unique per test so tests sharing a database never see each other's rows. */
const uniq = (p: string) => `${p}-${Date.now().toString(36)}-${++seq}`;

async function rejection(p: Promise<unknown>): Promise<Error> {
  try {
    await p;
  } catch (e) {
    return e as Error;
  }
  throw new Error("expected the promise to reject");
}

const change = { variable: "innodb_doublewrite", from: "ON", to: "OFF" };

async function newRollout(store: StoreOps, target = uniq("db")) {
  return store.createRollout({
    name: uniq("rollout"),
    change,
    targets: [target],
    waves: [{ name: "canary", targets: [target] }],
    state: "draft",
    actor: "alice",
  });
}

/** A bare rollout command: new state, one event, the version the caller read. */
function commit(
  store: StoreOps,
  id: string,
  expectedVersion: number,
  state: string,
  actor: string,
  options: { evidence?: JsonObject; waves?: JsonObject[] } = {},
) {
  return store.commitRollout({
    id,
    expectedVersion,
    actor,
    command: "set-state",
    state,
    document: { state },
    ...(options.waves ? { waves: options.waves } : {}),
    events: [{ type: "state-changed", evidence: { ...options.evidence, to: state } }],
  });
}

describe.each(BACKENDS)("store on %s", (kind) => {
  let t: TestBackend;
  let store: StoreOps;
  beforeAll(async () => {
    t = await openTestBackend(kind);
    store = t.store;
  });
  afterAll(async () => {
    await t?.cleanup();
  });

  describe("instance metadata", () => {
    it("creates with defaults, records who, and writes an audit row in the same transaction", async () => {
      const instance = uniq("db1:3306");
      const row = await store.upsertInstanceMetadata({
        instance,
        cluster: "orders",
        role: "primary",
        storageFacts: { fsType: "ZFS", zfsRecordsizeBytes: 16384 },
        actor: "alice",
      });
      expect(row).toMatchObject({
        instance,
        cluster: "orders",
        role: "primary",
        notes: "",
        storageClass: null,
        managedService: null,
        storageFacts: { fsType: "zfs", zfsRecordsizeBytes: 16384 },
        updatedBy: "alice",
      });
      expect(row.createdAt).toBeInstanceOf(Date);
      expect(await store.getInstanceMetadata(instance)).toEqual(row);
      const audit = await store.listAudit({ entity: "instance_metadata", entityId: instance });
      expect(audit).toHaveLength(1);
      expect(audit[0]).toMatchObject({ actor: "alice", action: "instance-metadata.create" });
    });

    it("updates only the given fields, null clears, and a no-op writes nothing", async () => {
      const instance = uniq("db2:3306");
      await store.upsertInstanceMetadata({
        instance,
        cluster: "orders",
        role: "replica",
        notes: "canary candidate",
        managedService: "rds",
        storageFacts: { rdsOptimizedWrites: "auto", cloud: "aws", instanceClass: "db.r6g.2xlarge" },
        actor: "alice",
      });
      const updated = await store.upsertInstanceMetadata({
        instance,
        cluster: null,
        notes: "control",
        actor: "bob",
      });
      expect(updated).toMatchObject({
        cluster: null,
        role: "replica",
        notes: "control",
        managedService: "rds",
        storageFacts: { rdsOptimizedWrites: "auto", cloud: "aws", instanceClass: "db.r6g.2xlarge" },
        updatedBy: "bob",
      });
      expect(updated.updatedAt.getTime()).toBeGreaterThanOrEqual(updated.createdAt.getTime());

      const same = await store.upsertInstanceMetadata({
        instance,
        notes: "control",
        // Same facts, keys in another order: jsonb equality, not text equality.
        storageFacts: { instanceClass: "db.r6g.2xlarge", cloud: "aws", rdsOptimizedWrites: "auto" },
        actor: "carol",
      });
      expect(same.updatedBy).toBe("bob");

      const audit = await store.listAudit({ entityId: instance });
      expect(audit.map((a) => a.action)).toEqual(["instance-metadata.update", "instance-metadata.create"]);
      expect(audit[0]!.details).toEqual({
        changes: {
          cluster: { from: "orders", to: null },
          notes: { from: "canary candidate", to: "control" },
        },
      });
    });

    it("lists by cluster and role, ordered by instance", async () => {
      const cluster = uniq("cluster");
      for (const [i, role] of [
        ["c:3306", "replica"],
        ["a:3306", "primary"],
        ["b:3306", "replica"],
      ] as const) {
        await store.upsertInstanceMetadata({ instance: `${cluster}/${i}`, cluster, role, actor: "alice" });
      }
      expect((await store.listInstanceMetadata({ cluster })).map((r) => r.instance)).toEqual([
        `${cluster}/a:3306`,
        `${cluster}/b:3306`,
        `${cluster}/c:3306`,
      ]);
      expect((await store.listInstanceMetadata({ cluster, role: "replica" })).map((r) => r.instance)).toEqual(
        [`${cluster}/b:3306`, `${cluster}/c:3306`],
      );
    });

    it("deletes with an audit row holding what was deleted", async () => {
      const instance = uniq("db3:3306");
      await store.upsertInstanceMetadata({ instance, storageClass: "ebs-gp3", actor: "alice" });
      expect(await store.deleteInstanceMetadata({ instance, actor: "bob" })).toBe(true);
      expect(await store.getInstanceMetadata(instance)).toBeNull();
      expect(await store.deleteInstanceMetadata({ instance, actor: "bob" })).toBe(false);
      const [last] = await store.listAudit({ entityId: instance });
      expect(last).toMatchObject({ action: "instance-metadata.delete", actor: "bob" });
      expect(last!.details["values"]).toMatchObject({ storageClass: "ebs-gp3" });
    });

    it("rejects bad input naming the field, and writes nothing", async () => {
      const instance = uniq("db4:3306");
      const cases: [unknown, string][] = [
        [
          { instance, storageFacts: { zfsRecordsizeBytes: 12000 }, actor: "a" },
          "storageFacts.zfsRecordsizeBytes",
        ],
        [
          { instance, storageFacts: { zfsRecordSize: 16384 }, actor: "a" },
          "storageFacts.zfsRecordSize: unknown field",
        ],
        [{ instance, role: "leader", actor: "a" }, "role:"],
        [{ instance, notes: "a\u0000b", actor: "a" }, "notes: must not contain NUL"],
        [{ instance, actor: " " }, "actor: required"],
        [{ instance: "", actor: "a" }, "instance: required"],
        [
          {
            instance,
            storageFacts: { tornWriteProtection: { provider: "aws-ebs", unitBytes: 16384, source: "x" } },
            actor: "a",
          },
          "storageFacts.tornWriteProtection.source: unknown field",
        ],
      ];
      for (const [input, fragment] of cases) {
        const e = await rejection(store.upsertInstanceMetadata(input as never));
        expect(e).toBeInstanceOf(StoreValidationError);
        expect(e.message).toContain(fragment);
      }
      expect(await store.getInstanceMetadata(instance)).toBeNull();
      expect(await store.listAudit({ entityId: instance })).toEqual([]);
    });

    it("a failure at the audit write rolls the metadata change back", async () => {
      const instance = uniq("db5:3306");
      await store.upsertInstanceMetadata({ instance, notes: "original", actor: "alice" });
      await t.exec(
        `ALTER TABLE untorn.audit_log ADD CONSTRAINT test_sabotage CHECK (actor <> 'saboteur') NOT VALID`,
      );
      try {
        const e = await rejection(
          store.upsertInstanceMetadata({ instance, notes: "changed", actor: "saboteur" }),
        );
        expect(e).toBeInstanceOf(StoreQueryError);
        expect(e).toMatchObject({
          operation: "upsertInstanceMetadata",
          sqlState: "23514",
          constraint: "test_sabotage",
        });
        expect(e.message).toMatch(/^upsertInstanceMetadata: .*violates check constraint "test_sabotage"$/);
      } finally {
        await t.exec(`ALTER TABLE untorn.audit_log DROP CONSTRAINT test_sabotage`);
      }
      expect(await store.getInstanceMetadata(instance)).toMatchObject({
        notes: "original",
        updatedBy: "alice",
      });
    });
  });

  describe("rollouts", () => {
    it("creates with version 1, a created event and an audit row", async () => {
      const r = await newRollout(store);
      expect(r).toMatchObject({ state: "draft", version: 1, createdBy: "alice", change });
      expect(r.id).toMatch(/^[0-9a-f-]{36}$/);
      expect(await store.getRollout(r.id)).toEqual(r);
      expect(await store.listRolloutEvents(r.id)).toMatchObject([
        { action: "created", details: { state: "draft" } },
      ]);
      expect(await store.listAudit({ entity: "rollout", entityId: r.id })).toMatchObject([
        { action: "rollout.create" },
      ]);
    });

    it("changes state under optimistic locking and records the transition", async () => {
      const r = await newRollout(store);
      const waves = [{ name: "canary", targets: r.targets, gate: { passed: true } }];
      const running = await commit(store, r.id, 1, "running", "bob", { evidence: { wave: 0 }, waves });
      expect(running).toMatchObject({ replayed: false, version: 2 });
      expect(running.rollout).toMatchObject({ state: "running", version: 2, waves, updatedBy: "bob" });
      const stale = await rejection(commit(store, r.id, 1, "cancelled", "carol"));
      expect(stale).toBeInstanceOf(VersionConflictError);
      expect(stale).toMatchObject({ expectedVersion: 1, actualVersion: 2, actualState: "running" });
      expect(await store.getRollout(r.id)).toMatchObject({ state: "running", version: 2 });
      const events = await store.listRolloutEvents(r.id);
      expect(events.map((e) => e.action)).toEqual(["created", "state-changed"]);
      expect(events[1]).toMatchObject({ actor: "bob", sequence: 2, details: { wave: 0, to: "running" } });
      expect(await store.listAudit({ entity: "rollout", entityId: r.id })).toMatchObject([
        { action: "rollout.set-state", details: { from: "draft", to: "running", version: 2, events: 1 } },
        { action: "rollout.create" },
      ]);
    });

    it("lets exactly one of two concurrent writers with the same version win", async () => {
      const r = await newRollout(store);
      const results = await Promise.allSettled([
        commit(store, r.id, 1, "running", "bob"),
        commit(store, r.id, 1, "cancelled", "carol"),
      ]);
      const won = results.filter((x) => x.status === "fulfilled");
      const lost = results.filter((x) => x.status === "rejected");
      expect(won).toHaveLength(1);
      expect(lost).toHaveLength(1);
      expect((lost[0] as PromiseRejectedResult).reason).toBeInstanceOf(VersionConflictError);
      expect((await store.getRollout(r.id))!.version).toBe(2);
      expect(await store.listRolloutEvents(r.id)).toHaveLength(2);
    });

    it("a failure at the event write leaves state and version as they were", async () => {
      const r = await newRollout(store);
      await t.exec(
        `ALTER TABLE untorn.rollout_events ADD CONSTRAINT test_sabotage CHECK (NOT (details ? 'sabotage')) NOT VALID`,
      );
      try {
        await expect(
          commit(store, r.id, 1, "running", "bob", { evidence: { sabotage: true } }),
        ).rejects.toMatchObject({ name: "StoreQueryError", sqlState: "23514", constraint: "test_sabotage" });
      } finally {
        await t.exec(`ALTER TABLE untorn.rollout_events DROP CONSTRAINT test_sabotage`);
      }
      expect(await store.getRollout(r.id)).toMatchObject({ state: "draft", version: 1 });
      expect(await store.listRolloutEvents(r.id)).toHaveLength(1);
      expect(await store.listAudit({ entityId: r.id })).toHaveLength(1);
      expect((await commit(store, r.id, 1, "running", "bob")).version).toBe(2);
    });

    it("reports unknown rollouts and rejects bad ids and plans", async () => {
      const missing = "7b0c59a4-3e1a-4c55-9d7e-2f1f7f0b4a11";
      expect(await store.getRollout(missing)).toBeNull();
      await expect(commit(store, missing, 1, "running", "bob")).rejects.toBeInstanceOf(NotFoundError);
      await expect(
        store.appendRolloutEvent({ rolloutId: missing, action: "note", actor: "bob" }),
      ).rejects.toBeInstanceOf(NotFoundError);
      await expect(store.getRollout("42")).rejects.toThrow(/getRollout: invalid input: id: Invalid UUID/);
      await expect(
        store.createRollout({
          name: "x",
          change,
          targets: ["a:1", "a:1"],
          waves: [],
          state: "draft",
          actor: "a",
        }),
      ).rejects.toThrow(/targets: lists an instance twice/);
      await expect(
        store.createRollout({
          name: "x",
          change: [] as never,
          targets: ["a:1"],
          waves: [],
          state: "d",
          actor: "a",
        }),
      ).rejects.toThrow(/change: must be a JSON object/);
      await expect(commit(store, missing, 0, "running", "bob")).rejects.toThrow(/expectedVersion/);
    });

    it("appends events and lists rollouts newest first, by state", async () => {
      const a = await newRollout(store);
      const b = await newRollout(store);
      await commit(store, b.id, 1, uniq("state"), "bob");
      const ev = await store.appendRolloutEvent({
        rolloutId: a.id,
        action: "gate-passed",
        details: { wave: 0, gate: "replication-lag" },
        actor: "bob",
      });
      expect(ev).toMatchObject({ rolloutId: a.id, action: "gate-passed", actor: "bob" });
      expect((await store.listRolloutEvents(a.id)).map((e) => e.action)).toEqual(["created", "gate-passed"]);
      const drafts = (await store.listRollouts({ state: "draft", limit: 1000 })).map((r) => r.id);
      expect(drafts).toContain(a.id);
      expect(drafts).not.toContain(b.id);
      const latest = await store.listRollouts({ limit: 2 });
      expect(latest.map((r) => r.id)).toEqual([b.id, a.id]);
    });
  });

  describe("comparisons and audit", () => {
    it("saves comparisons with and without a rollout and lists them", async () => {
      const r = await newRollout(store);
      const input = { instances: [{ instance: "db:3306", before: [[0, 1]], after: [[60, 2]] }] };
      const result = { verdict: "improved", metrics: [{ metric: "tps", effect: 0.12 }] };
      const c1 = await store.saveComparison({ rolloutId: r.id, input, result, actor: "alice" });
      const c2 = await store.saveComparison({ input, result: { verdict: "inconclusive" }, actor: "bob" });
      expect(c1).toMatchObject({ rolloutId: r.id, input, result, createdBy: "alice" });
      expect(c2.rolloutId).toBeNull();
      expect(await store.getComparison(c2.id)).toEqual(c2);
      expect((await store.listComparisons({ rolloutId: r.id })).map((c) => c.id)).toEqual([c1.id]);
      expect((await store.listComparisons({ limit: 1000 })).map((c) => c.id)).toEqual(
        expect.arrayContaining([c1.id, c2.id]),
      );
      expect(await store.listAudit({ entity: "comparison", entityId: c1.id })).toHaveLength(1);
    });

    it("refuses a comparison for an unknown rollout and stores nothing", async () => {
      const missing = "0d4c8f5e-9a1b-4c7d-8e2f-3a4b5c6d7e8f";
      const before = (await store.listAudit({ entity: "comparison", limit: 1000 })).length;
      const e = await rejection(
        store.saveComparison({ rolloutId: missing, input: {}, result: {}, actor: "alice" }),
      );
      expect(e).toBeInstanceOf(NotFoundError);
      expect(e.message).toBe(`rollout ${missing} not found`);
      expect(await store.listComparisons({ rolloutId: missing })).toEqual([]);
      expect((await store.listAudit({ entity: "comparison", limit: 1000 })).length).toBe(before);
    });

    it("records generic audit entries", async () => {
      const id = uniq("advice");
      const a = await store.audit({
        actor: "alice",
        action: "advice.export",
        entity: "advice",
        entityId: id,
      });
      expect(a).toMatchObject({
        actor: "alice",
        action: "advice.export",
        entity: "advice",
        entityId: id,
        details: {},
      });
      expect(await store.listAudit({ entity: "advice", entityId: id })).toEqual([a]);
      await expect(store.audit({ actor: "alice", action: "", entity: "advice" })).rejects.toThrow(
        /action: required/,
      );
    });
  });

  describe("transactions", () => {
    it("an error thrown between two writes keeps neither, and earlier data stays intact", async () => {
      const instance = uniq("tx1:3306");
      await store.upsertInstanceMetadata({ instance, notes: "kept", actor: "alice" });
      const other = uniq("tx1b:3306");
      await expect(
        store.transaction(async (tx) => {
          await tx.upsertInstanceMetadata({ instance, notes: "lost", actor: "bob" });
          await tx.upsertInstanceMetadata({ instance: other, actor: "bob" });
          throw new Error("crash between writes");
        }),
      ).rejects.toThrow("crash between writes");
      expect(await store.getInstanceMetadata(instance)).toMatchObject({ notes: "kept", updatedBy: "alice" });
      expect(await store.getInstanceMetadata(other)).toBeNull();
      expect(await store.listAudit({ entityId: other })).toEqual([]);
    });

    it("a constraint violation mid-way rolls back the writes before it", async () => {
      const r = await newRollout(store);
      await expect(
        store.transaction(async (tx) => {
          await commit(tx, r.id, 1, "running", "bob");
          await tx.saveComparison({
            rolloutId: "5e5e5e5e-5e5e-4e5e-8e5e-5e5e5e5e5e5e",
            input: {},
            result: {},
            actor: "bob",
          });
        }),
      ).rejects.toBeInstanceOf(NotFoundError);
      expect(await store.getRollout(r.id)).toMatchObject({ state: "draft", version: 1 });
      expect(await store.listRolloutEvents(r.id)).toHaveLength(1);
    });

    it("commits every write of a successful transaction", async () => {
      const r = await newRollout(store);
      const c = await store.transaction(async (tx) => {
        await commit(tx, r.id, 1, "wave-1-done", "bob");
        return tx.saveComparison({
          rolloutId: r.id,
          input: { w: 1 },
          result: { verdict: "no change" },
          actor: "bob",
        });
      });
      expect(await store.getRollout(r.id)).toMatchObject({ state: "wave-1-done", version: 2 });
      expect(await store.getComparison(c.id)).toEqual(c);
    });
  });

  it("keeps the data across close and reopen", async () => {
    const instance = uniq("persist:3306");
    await store.upsertInstanceMetadata({ instance, storageFacts: { btrfsNodatacow: false }, actor: "alice" });
    const r = await newRollout(store);
    await t.backend.close();
    const reopened = await openStore(t.reopen);
    try {
      expect(reopened.backend).toBe(kind);
      expect(await reopened.getInstanceMetadata(instance)).toMatchObject({
        storageFacts: { btrfsNodatacow: false },
      });
      expect(await reopened.getRollout(r.id)).toMatchObject({ version: 1 });
    } finally {
      await reopened.close();
    }
  });
});
