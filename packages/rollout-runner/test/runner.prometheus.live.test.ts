// The runner against real parts: a PGlite store in a temporary directory and a real Prometheus
// serving synthetic untorn-exporter history backfilled with promtool (so every read-back is known).
// The clock is injected and walks through that history. Replication state is injected (all threads
// running, no lag): the synthetic history has no replication series, and the exporter's replication
// collector is not part of this package.
import fs from "node:fs";
import { rm } from "node:fs/promises";
import os from "node:os";
import path from "node:path";
import type { SyntheticInstance } from "@untorn/fleet/testing/synthetic";
import { PromClient } from "@untorn/prom/client";
import type { PolicyInput } from "@untorn/rollout/policy";
import { VersionConflictError } from "@untorn/store/errors";
import { openStore, type Store } from "@untorn/store/store";
import { freePort, makeTempDir } from "@untorn/testkit/process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { candidateFacts, fetchReadBacks } from "../src/observe.js";
import {
  createStoredRollout,
  getRollout,
  RolloutConflictError,
  RolloutTargetsRefusedError,
  type RunnerDeps,
  reconcileRollouts,
  runCommand,
} from "../src/runner.js";
import {
  type HistoryServer,
  healthyReplication,
  historyEnd,
  replicaMetadata,
  startHistoryPrometheus,
  syntheticReplica,
  testClock,
  testPolicy,
} from "../src/testing/history.js";

const END = historyEnd();
const START = END - 120 * 60;
/** When the operator carries out the canary's step: doublewrite goes off, with a restart. */
const STEP_AT = END - 90 * 60;
const FLEET: SyntheticInstance[] = [
  syntheticReplica("canary:9105", { doublewriteOffAt: STEP_AT, restartAt: STEP_AT }),
  syntheticReplica("control:9105"),
  // No atomic write unit and nothing declared: its safety gate is not verified.
  syntheticReplica("unverified:9105", { atomicUnitBytes: 0 }),
];
const metadata = replicaMetadata(FLEET, () => "orders");

let dir = "";
let history: HistoryServer | undefined;
let api: PromClient;
let store: Store;
let storeDir = "";
const clock = testClock();
const logs: string[] = [];
const deps = (): RunnerDeps => clock.deps(store, (m) => logs.push(m));
const alice = { id: "alice", kind: "operator" as const };

beforeAll(async () => {
  dir = await makeTempDir("rollout-runner");
  history = await startHistoryPrometheus(FLEET, { start: START, end: END }, dir);
  api = history.api;
  storeDir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-runner-store-"));
  store = await openStore({ dataDir: path.join(storeDir, "data") });
}, 180_000);

afterAll(async () => {
  await store?.close();
  await history?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
  if (storeDir) fs.rmSync(storeDir, { recursive: true, force: true });
});

async function create(key: string, targets: string[], extra: PolicyInput = {}) {
  clock.now = END - 100 * 60;
  const c = await candidateFacts(api, { at: clock.now, metadata });
  return createStoredRollout(deps(), {
    type: "create",
    key,
    actor: alice,
    title: "doublewrite off on the orders canary",
    input: {
      change: { kind: "doublewrite-off" },
      instances: c.facts,
      targets,
      policy: { ...testPolicy, ...extra },
    },
  });
}

describe("observations from a real Prometheus", () => {
  it("reads back each instance's doublewrite mode, config and uptime through the catalog", async () => {
    const count = { n: 0 };
    const rbs = await fetchReadBacks(
      api,
      ["canary:9105", "control:9105", "missing:9105"],
      END - 60,
      "5m",
      count,
      [],
    );
    expect(count.n).toBe(6);
    expect(rbs[0]).toMatchObject({
      instance: "canary:9105",
      up: true,
      doublewriteMode: "off",
      doublewritePagesPerSecond: 0,
    });
    expect(rbs[1]).toMatchObject({ instance: "control:9105", up: true, doublewriteMode: "on" });
    // 800 pages/s with 2 % noise per step.
    expect(Math.abs(rbs[1]!.doublewritePagesPerSecond! / 800 - 1)).toBeLessThan(0.02);
    expect(rbs[0]!.uptimeSeconds).toBe(END - 60 - STEP_AT);
    // Absent series are "no data", never a value that could pass a gate.
    expect(rbs[2]).toMatchObject({ up: null, doublewriteMode: null, configInfo: null, uptimeSeconds: null });
  });
});

describe("a rollout driven by the runner", () => {
  it("refuses a target whose safety gate is not verified, naming the reason, and stores nothing", async () => {
    const before = (await store.listRollouts()).length;
    const e = await create("create-unverified-1", ["unverified:9105"]).catch((x: Error) => x);
    expect(e).toBeInstanceOf(RolloutTargetsRefusedError);
    expect((e as Error).message).toContain("unverified:9105: gate-not-verified");
    expect((await store.listRollouts()).length).toBe(before);
  });

  it("gives the second of two people acting on the same version a conflict naming the first", async () => {
    const { stored } = await create("create-conflict-1", ["canary:9105"], {});
    const id = stored.state.id;
    const v = stored.version;
    await runCommand(
      deps(),
      id,
      { type: "pause", key: "pause-bob", actor: { id: "bob", kind: "operator" }, reason: "change freeze" },
      { expectedVersion: v },
    );
    const e = await runCommand(
      deps(),
      id,
      {
        type: "abort",
        key: "abort-carol",
        actor: { id: "carol", kind: "operator" },
        reason: "wrong cluster",
      },
      { expectedVersion: v },
    ).catch((x: Error) => x);
    expect(e).toBeInstanceOf(VersionConflictError);
    expect((e as Error).message).toMatch(/was changed by bob at .* \(pause\)/);
    expect((await getRollout(deps(), id)).state.status).toBe("paused");
    // The reconciler's bookkeeping after bob's pause: the conflict still names bob and his pause.
    const row = (await store.getRollout(id))!;
    await store.commitRollout({
      id,
      expectedVersion: row.version,
      actor: "reconciler",
      command: "reconcile",
      state: row.state,
      document: row.document,
      events: [],
    });
    const late = await runCommand(
      deps(),
      id,
      { type: "abort", key: "abort-dave", actor: { id: "dave", kind: "operator" }, reason: "late" },
      { expectedVersion: v, expectedStatus: "active" },
    ).catch((x: Error) => x);
    expect(late).toBeInstanceOf(RolloutConflictError);
    const c = late as RolloutConflictError;
    expect(c.changedBy?.actor).toBe("bob");
    expect(c.lastPerson).toMatchObject({ actor: "bob", action: "pause", message: "Paused: change freeze" });
    expect(c.lastWriter?.actor).toBe("reconciler");
    expect(c.personSince).toBe(true);
    // Seen after bob's pause, only the reconciler's bookkeeping is newer: no conflict while it is paused.
    const resumed = await runCommand(
      deps(),
      id,
      { type: "resume", key: "resume-dave", actor: { id: "dave", kind: "operator" } },
      { expectedVersion: row.version, expectedStatus: "paused" },
    );
    expect(resumed).toMatchObject({ ok: true, replayed: false });
    expect(resumed.state.status).toBe("active");
    await runCommand(deps(), id, {
      type: "pause",
      key: "pause-dave",
      actor: { id: "dave", kind: "operator" },
      reason: "back as it was",
    });
    // Carol reloads and decides again: her abort applies to the paused rollout and frees the canary.
    const again = await runCommand(deps(), id, {
      type: "abort",
      key: "abort-carol-2",
      actor: { id: "carol", kind: "operator" },
      reason: "wrong cluster",
    });
    expect(again).toMatchObject({ ok: true, replayed: false });
    expect(again.state.status).toBe("aborted");
  });

  it("plans, gates, verifies the step from metrics and judges the bake against the control", async () => {
    const { stored, replayed } = await create("create-canary-1", ["canary:9105"]);
    expect(replayed).toBe(false);
    const id = stored.state.id;
    expect(stored.state.waves[0]).toMatchObject({ instances: ["canary:9105"], controls: ["control:9105"] });
    // The same key again: the same rollout, nothing new.
    expect((await create("create-canary-1", ["canary:9105"])).stored.state.id).toBe(id);

    clock.now = END - 99 * 60;
    await runCommand(deps(), id, {
      type: "attest-backup",
      key: "backup-1",
      actor: alice,
      takenAt: clock.now - 600,
    });
    await runCommand(deps(), id, { type: "approve", key: "approve-0", actor: alice, wave: 0 });

    // Prometheus down: nothing is recorded, no gate passes, the next pass picks it up.
    const down = new PromClient({
      baseUrl: `http://127.0.0.1:${await freePort()}`,
      timeoutMs: 2000,
      retries: 0,
    });
    const v0 = (await getRollout(deps(), id)).version;
    clock.now = END - 98 * 60;
    const dead = await reconcileRollouts(deps(), { api: down, replication: healthyReplication, metadata });
    expect(dead.rollouts.find((r) => r.id === id)).toMatchObject({ outcome: "observation-failed" });
    expect(dead.rollouts.find((r) => r.id === id)!.error).toContain("retried on the next pass");
    expect((await getRollout(deps(), id)).version).toBe(v0);

    const gate = await reconcileRollouts(deps(), { api, replication: healthyReplication, metadata });
    expect(gate.acquired).toBe(true);
    const pass = gate.rollouts.find((r) => r.id === id)!;
    expect(pass.outcome).toBe("advanced");
    expect(pass.events.map((e) => e.type)).toContain("wave-started");

    clock.now = STEP_AT;
    const applied = await runCommand(deps(), id, {
      type: "step-done",
      key: "done-canary",
      actor: alice,
      instance: "canary:9105",
    });
    expect(applied.ok).toBe(true);
    const appliedAt = clock.now;

    // The doublewrite counters must be flat over the whole rate window (5m) after the restart.
    for (const t of [appliedAt + 60, appliedAt + 360, appliedAt + 420]) {
      clock.now = t;
      await reconcileRollouts(deps(), { api, replication: healthyReplication, metadata });
    }
    let s = (await getRollout(deps(), id)).state;
    expect(s.instances.find((i) => i.instance === "canary:9105")!.status).toBe("verified");
    const verified = s.events.find((e) => e.type === "step-verified")!;
    expect(verified.instance).toBe("canary:9105");
    const bakeEnd = s.waves[0]!.bakeEnd!;
    expect(bakeEnd).toBeGreaterThan(appliedAt);

    // Before the bake ends nothing is judged; after it, compare runs against the control.
    clock.now = bakeEnd - 30;
    const early = await reconcileRollouts(deps(), { api, replication: healthyReplication, metadata });
    const ep = early.rollouts.find((r) => r.id === id)!;
    expect(ep.events).toEqual([]);
    expect(["unchanged", "observed"]).toContain(ep.outcome);
    clock.now = bakeEnd + 1;
    const judged = await reconcileRollouts(deps(), { api, replication: healthyReplication, metadata });
    const jp = judged.rollouts.find((r) => r.id === id)!;
    expect(jp.outcome).toBe("advanced");
    expect(jp.queries).toBeGreaterThan(0);
    s = (await getRollout(deps(), id)).state;
    const bake = s.events.find((e) => e.type === "gate" && e.gate?.gate === "bake");
    expect(bake?.gate?.comparison).toBeDefined();
    expect(["pass", "fail", "inconclusive", "no-data"]).toContain(bake!.gate!.outcome);
    // Doublewrite off halves the pages written per flushed page: the judge saw it, against the control.
    const bytes = bake!.gate!.judgement!.find((j) => j.metric === "write_bytes_per_transaction")!;
    expect(bytes.ratio).toBeGreaterThan(0.45);
    expect(bytes.ratio).toBeLessThan(0.7);
    // The synthetic history has no replication series: the canary's catch-up judgement (informative by
    // default) is no data, never a pass, and its evidence says so.
    expect(bake!.gate!.catchUp).toEqual([
      expect.objectContaining({ instance: "canary:9105", role: "informative", outcome: "no-data" }),
    ]);
    expect(bake!.gate!.catchUp![0]!.lag[0]!.after.samples).toBe(0);

    // The store's event log mirrors the core's audit, numbered without gaps, with the evidence.
    const events = await store.listRolloutEvents(id);
    expect(events.map((e) => e.sequence)).toEqual(events.map((_, i) => i + 1));
    expect(events.map((e) => e.action)).toEqual(s.events.map((e) => e.type));
    const storedBake = events.find(
      (e) => e.action === "gate" && (e.details as { gate?: { gate?: string } }).gate?.gate === "bake",
    );
    expect((storedBake!.details as { gate: { comparison: unknown } }).gate.comparison).toBeDefined();
    await runCommand(deps(), id, { type: "abort", key: "flow-abort", actor: alice, reason: "test over" });
  }, 120_000);

  it("runs the configured hook for each step, keeps its output, and pauses when a hook is missing", async () => {
    const hooks = {
      "apply-doublewrite": {
        kind: "command" as const,
        command: ["sh", "-c", 'echo "applying to $UNTORN_INSTANCE"; cat > /dev/null'],
        timeoutSeconds: 30,
      },
    };
    const { stored } = await create("create-hook-1", ["canary:9105"], {
      applier: { kind: "hook", hook: "apply-doublewrite" },
    });
    const id = stored.state.id;
    clock.now = END - 99 * 60;
    await runCommand(deps(), id, {
      type: "attest-backup",
      key: "hook-backup",
      actor: alice,
      takenAt: clock.now - 60,
    });
    await runCommand(deps(), id, { type: "approve", key: "hook-approve", actor: alice, wave: 0 });
    const r = await reconcileRollouts(deps(), { api, replication: healthyReplication, metadata, hooks });
    const pass = r.rollouts.find((x) => x.id === id)!;
    expect(pass.hooks).toHaveLength(1);
    expect(pass.hooks[0]!.result).toMatchObject({ ok: true, code: 0, output: "applying to canary:9105\n" });
    const s = (await getRollout(deps(), id)).state;
    expect(s.events.map((e) => e.type)).toEqual(
      expect.arrayContaining(["wave-started", "hook-started", "hook-result"]),
    );
    expect(s.events.find((e) => e.type === "hook-result")!.output).toContain("applying to canary:9105");
    expect(s.instances[0]!.status).toBe("applied");
    // Each hook runs once: the next pass finds the step applied and waits for the read-back.
    const again = await reconcileRollouts(deps(), { api, replication: healthyReplication, metadata, hooks });
    expect(again.rollouts.find((x) => x.id === id)!.hooks).toEqual([]);
    await runCommand(deps(), id, { type: "abort", key: "hook-abort", actor: alice, reason: "next case" });

    const missing = await create("create-hook-2", ["canary:9105"], {
      applier: { kind: "hook", hook: "not-configured" },
    });
    const mid = missing.stored.state.id;
    await runCommand(deps(), mid, {
      type: "attest-backup",
      key: "hook2-backup",
      actor: alice,
      takenAt: clock.now - 60,
    });
    await runCommand(deps(), mid, { type: "approve", key: "hook2-approve", actor: alice, wave: 0 });
    const p2 = (
      await reconcileRollouts(deps(), { api, replication: healthyReplication, metadata, hooks })
    ).rollouts.find((x) => x.id === mid)!;
    expect(p2.hooks[0]!.error).toBe(
      "no hook named not-configured is configured on this reconciler (--hooks)",
    );
    const s2 = (await getRollout(deps(), mid)).state;
    expect(s2.events.find((e) => e.type === "hook-result")!.message).toContain("failed");
    expect(s2.instances[0]!.status).not.toBe("applied");
    await runCommand(deps(), mid, { type: "abort", key: "hook2-abort", actor: alice, reason: "done" });
  });

  it("does nothing while another reconciler holds the lock", async () => {
    const inner = await store.tryExclusive("rollout-reconciler", () =>
      reconcileRollouts(deps(), { api, replication: healthyReplication, metadata }),
    );
    expect(inner).toEqual({ acquired: true, value: { acquired: false, at: clock.now, rollouts: [] } });
  });
});
