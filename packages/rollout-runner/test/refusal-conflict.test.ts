// A command the engine refuses is recorded (its key and a `command-refused` event: a new version), but
// it changes nothing anyone decided on: another operator's page rendered before it (or the refuser's own
// page not yet rendered again) acts on the current state instead of getting a conflict naming the refuser
// (issue 11). A person's real change in between still conflicts and names them and what they did. A
// PGlite store in a temporary directory; no Prometheus (a created rollout needs no observation).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { cluster } from "@untorn/rollout/testing";
import { openStore, type Store } from "@untorn/store/store";
import { afterAll, beforeAll, expect, it } from "vitest";
import {
  createStoredRollout,
  getRollout,
  RolloutConflictError,
  type RunnerDeps,
  runCommand,
} from "../src/runner.js";

let store: Store;
let dir = "";
const T0 = 1_760_000_000;
const deps = (): RunnerDeps => ({ store, clock: () => T0 + 60 });
const alice = { id: "alice", kind: "operator" as const };
const bob = { id: "bob", kind: "operator" as const };

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-refusal-conflict-"));
  store = await openStore({ dataDir: path.join(dir, "data") });
}, 60_000);

afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

/** A rollout on r1-<n> (cluster c1-<n>) waiting for its first wave's approval: a step done now is refused. */
async function waiting(n: number) {
  const { stored } = await createStoredRollout(deps(), {
    type: "create",
    key: `create-refusal-${n}`,
    actor: alice,
    title: `flush method fsync on r1-${n}`,
    input: {
      change: { kind: "flush-method", method: "fsync" },
      instances: cluster(`-${n}`).map((f) => ({ ...f, identity: { ...f.identity, cluster: `c1-${n}` } })),
      targets: [`r1-${n}`],
      policy: {},
    },
  });
  expect(stored.state.status).toBe("active");
  return stored;
}

/** The reconciler's bookkeeping, committed as its pass does (same document, no event). */
async function bookkeeping(id: string) {
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
}

const stepDone = (n: number, key: string, actor = alice) => ({
  type: "step-done" as const,
  key,
  actor,
  instance: `r1-${n}`,
});

it("applies bob's pause sent from the version before alice's refused step, re-validated on the current state", async () => {
  const seen = await waiting(1);
  const refused = await runCommand(deps(), seen.state.id, stepDone(1, "step-alice-1"), {
    expectedVersion: seen.version,
    expectedStatus: "active",
  });
  expect(refused).toMatchObject({ ok: false, replayed: false, refusal: { code: "wave-not-applying" } });
  expect(refused.version).toBe(seen.version + 1);
  const [audit] = await store.listAudit({ entity: "rollout", entityId: seen.state.id });
  expect(audit).toMatchObject({ action: "rollout.step-done", details: { refused: true } });

  // The engine judges bob's own step on the current state: refused for its reason, not a conflict.
  const bobsStep = await runCommand(deps(), seen.state.id, stepDone(1, "step-bob-1", bob), {
    expectedVersion: seen.version,
  });
  expect(bobsStep).toMatchObject({ ok: false, refusal: { code: "wave-not-applying" } });

  // Without the status the page showed: refusals are all there is since, so the status is the one seen.
  const paused = await runCommand(
    deps(),
    seen.state.id,
    { type: "pause", key: "pause-bob-1", actor: bob, reason: "change freeze" },
    { expectedVersion: seen.version },
  );
  expect(paused).toMatchObject({ ok: true, replayed: false, refusal: null });
  expect(paused.state.status).toBe("paused");
  expect(paused.version).toBe(seen.version + 3);
  const after = await getRollout(deps(), seen.state.id);
  expect(after.state.status).toBe("paused");
  expect(after.state.events.at(-1)).toMatchObject({ type: "paused", actor: { id: "bob" } });
  expect((await store.listAudit({ entity: "rollout", entityId: seen.state.id }))[0]).toMatchObject({
    action: "rollout.pause",
    actor: "bob",
    details: { refused: false, from: "active", to: "paused" },
  });
}, 60_000);

it("goes through a refusal and the reconciler's bookkeeping together only given the status the page showed", async () => {
  const seen = await waiting(2);
  await runCommand(deps(), seen.state.id, stepDone(2, "step-alice-2"));
  await bookkeeping(seen.state.id);
  const pause = (key: string) => ({ type: "pause" as const, key, actor: bob, reason: "lag" });
  // The reconciler may have moved the status: without the one the page showed, a conflict, but no
  // person changed anything since, and alice's refusal is never named.
  const blind = await runCommand(deps(), seen.state.id, pause("pause-bob-2a"), {
    expectedVersion: seen.version,
  }).catch((x: Error) => x);
  expect(blind).toBeInstanceOf(RolloutConflictError);
  const c = blind as RolloutConflictError;
  expect(c).toMatchObject({ personSince: false, refusalsOnlySince: false, lastPerson: null });
  expect(c.message).not.toMatch(/alice/);
  const applied = await runCommand(deps(), seen.state.id, pause("pause-bob-2b"), {
    expectedVersion: seen.version,
    expectedStatus: "active",
  });
  expect(applied).toMatchObject({ ok: true, replayed: false });
  expect(applied.state.status).toBe("paused");
}, 60_000);

it("keeps alice's real pause a conflict for bob's abort from the old version, naming her pause, not a later refusal", async () => {
  const seen = await waiting(3);
  const id = seen.state.id;
  await runCommand(
    deps(),
    id,
    { type: "pause", key: "pause-alice-3", actor: alice, reason: "lag on orders" },
    { expectedVersion: seen.version, expectedStatus: "active" },
  );
  // Carol's refused step after the pause is recorded too, and is not who gets named.
  const carol = { id: "carol", kind: "operator" as const };
  const refused = await runCommand(deps(), id, stepDone(3, "step-carol-3", carol));
  expect(refused.ok).toBe(false);
  const e = await runCommand(
    deps(),
    id,
    { type: "abort", key: "abort-bob-3", actor: bob, reason: "wrong cluster" },
    { expectedVersion: seen.version, expectedStatus: "active" },
  ).catch((x: Error) => x);
  expect(e).toBeInstanceOf(RolloutConflictError);
  const c = e as RolloutConflictError;
  expect(c.personSince).toBe(true);
  expect(c.lastPerson).toMatchObject({ actor: "alice", action: "pause", message: "Paused: lag on orders" });
  expect(c.lastWriter?.actor).toBe("carol");
  expect(c.message).toMatch(/was changed by alice at .* \(pause\)/);
  expect((await getRollout(deps(), id)).state.status).toBe("paused");
  // Seen after alice's pause, only carol's refusal is newer: bob's abort applies to the paused rollout.
  const aborted = await runCommand(
    deps(),
    id,
    { type: "abort", key: "abort-bob-3b", actor: bob, reason: "wrong cluster" },
    { expectedVersion: refused.version - 1 },
  );
  expect(aborted).toMatchObject({ ok: true, replayed: false });
  expect(aborted.state.status).toBe("aborted");
}, 60_000);
