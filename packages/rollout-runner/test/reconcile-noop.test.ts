// A reconciler pass that changes nothing commits nothing: the rollout's version stays, so a person who
// loaded the page before the pass acts on the version it still has (issue 11: the console's reconciler
// every 2 s bumped it on every pass, and two operators never saw one version). A PGlite store in a
// temporary directory; Prometheus is a closed port (a created rollout needs no observation).
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { PromClient } from "@untorn/prom/client";
import { cluster } from "@untorn/rollout/testing";
import { openStore, type Store } from "@untorn/store/store";
import { freePort } from "@untorn/testkit/process";
import { afterAll, beforeAll, expect, it } from "vitest";
import { createStoredRollout, getRollout, type RunnerDeps, reconcileRollouts } from "../src/runner.js";

let store: Store;
let dir = "";
let api: PromClient;
const T0 = 1_760_000_000;
let now = T0;
const deps = (): RunnerDeps => ({ store, clock: () => now });

beforeAll(async () => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-reconcile-noop-"));
  store = await openStore({ dataDir: path.join(dir, "data") });
  api = new PromClient({ baseUrl: `http://127.0.0.1:${await freePort()}`, timeoutMs: 2000, retries: 0 });
}, 60_000);

afterAll(async () => {
  await store?.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

it("two passes over a created rollout waiting for its approval leave its version and document alone", async () => {
  const { stored } = await createStoredRollout(deps(), {
    type: "create",
    key: "create-noop-rollout",
    actor: { id: "alice", kind: "operator" },
    title: "flush method fsync on r1",
    input: {
      change: { kind: "flush-method", method: "fsync" },
      instances: cluster(),
      targets: ["r1"],
      policy: {},
    },
  });
  const id = stored.state.id;
  for (const step of [10, 20]) {
    now = T0 + step;
    const pass = await reconcileRollouts(deps(), { api });
    expect(pass.acquired).toBe(true);
    expect(pass.rollouts.find((r) => r.id === id)).toMatchObject({ outcome: "unchanged", events: [] });
  }
  const after = await getRollout(deps(), id);
  expect(after.version).toBe(stored.version);
  expect(JSON.stringify(after.state)).toBe(JSON.stringify(stored.state));
  const commits = (await store.listAudit({ entity: "rollout", entityId: id, limit: 100 })).filter(
    (r) => r.action === "rollout.reconcile",
  );
  expect(commits).toHaveLength(0);
}, 60_000);
