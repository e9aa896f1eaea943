/**
 * Rollouts for the rollout specs, made by the real engine: rollout-runner's createStoredRollout,
 * runCommand and reconcileRollouts against a real Prometheus serving synthetic untorn-exporter history
 * (backfilled with promtool; the canary's doublewrite goes off with a restart at its step), writing to
 * the console's own store before the console starts. The clock is injected and walks through that
 * history. Replication state is injected (threads running, no lag): the synthetic history has no
 * replication series.
 *
 * Leaves: one rollout that ran its canary wave to a judged bake against the control ("judged": an
 * inconclusive judgement is accepted by the operator, as a person would, which completes it), one in
 * progress, baking after a verified step ("baking"), and the newest, aborted ("aborted").
 */
import { join } from "node:path";
import { type SyntheticInstance, syntheticFleet } from "@untorn/fleet/testing/synthetic";
import { backfill } from "@untorn/fleet/tools/backfill";
import { PromClient } from "@untorn/prom/client";
import type { Replication } from "@untorn/rollout/observations";
import type { PolicyInput } from "@untorn/rollout/policy";
import { candidateFacts, type ReplicationSource } from "@untorn/rollout-runner/observe";
import {
  createStoredRollout,
  getRollout,
  reconcileRollouts,
  runCommand,
} from "@untorn/rollout-runner/runner";
import { openStore } from "@untorn/store/store";
import { startPrometheus } from "@untorn/testkit/prometheus";

export interface SeededRollouts {
  /** Canary wave judged against its control (completed, or halted when the judge failed it). */
  judged: { id: string; status: string };
  /** Active: the canary's step verified from metrics, its bake under way. */
  baking: { id: string; status: string };
  /** Aborted; created last. */
  aborted: { id: string; status: string };
}

const alice = { id: "alice", kind: "operator" as const };
const bob = { id: "bob", kind: "operator" as const };

export async function seedRollouts(
  dataDir: string,
  workDir: string,
  log: (line: string) => void,
): Promise<SeededRollouts> {
  const END = Math.floor(Date.now() / 1000 / 60) * 60 - 120;
  const START = END - 120 * 60;
  const STEP_A = END - 90 * 60;
  const STEP_B = END - 40 * 60;
  const base: SyntheticInstance = {
    ...syntheticFleet(1, 3)[0]!,
    flavor: "mariadb",
    version: "10.11.19-MariaDB",
    flushedPerSecond: 800,
    transactionsPerSecond: 200,
    atomicUnitBytes: 16384,
  };
  const fleet: SyntheticInstance[] = [
    { ...base, instance: "orders-r1:9105", doublewrite: true, doublewriteOffAt: STEP_A, restartAt: STEP_A },
    { ...base, instance: "orders-r2:9105", doublewrite: true },
    { ...base, instance: "billing-r1:9105", doublewrite: true, doublewriteOffAt: STEP_B, restartAt: STEP_B },
    { ...base, instance: "billing-r2:9105", doublewrite: true },
    { ...base, instance: "archive-r1:9105", doublewrite: true },
    { ...base, instance: "archive-r2:9105", doublewrite: true },
  ];
  const metadata = new Map(
    fleet.map((f) => [f.instance, { cluster: f.instance.split("-")[0]!, role: "replica" as const }] as const),
  );
  const healthy: ReplicationSource = async (_api, instances) =>
    new Map<string, Replication>(
      instances.map((i) => [i, { ioRunning: true, sqlRunning: true, lagSeconds: 0 }]),
    );
  const policy: PolicyInput = {
    warmupSeconds: 0,
    bakeSeconds: 1200,
    evaluationIntervalSeconds: 60,
    verifyConsecutive: 2,
    includePrimaries: false,
    maxInstancesPerWave: 1,
  };

  const b = await backfill(
    fleet,
    { start: START, end: END, stepSeconds: 15, noise: 0.02, seed: 5 },
    join(workDir, "rollout-history"),
  );
  const prom = await startPrometheus({ jobs: [], storagePath: b.dir });
  const store = await openStore({ dataDir });
  let clock = 0;
  const deps = { store, clock: () => clock, log };
  const api = new PromClient({ baseUrl: prom.url });
  const reconcile = () => reconcileRollouts(deps, { api, replication: healthy, metadata });
  try {
    const create = async (key: string, title: string, target: string, actor = alice) => {
      const c = await candidateFacts(api, { at: clock, metadata });
      const { stored } = await createStoredRollout(deps, {
        type: "create",
        key,
        actor,
        title,
        input: { change: { kind: "doublewrite-off" }, instances: c.facts, targets: [target], policy },
      });
      return stored.state.id;
    };
    const start = async (id: string, key: string) => {
      await runCommand(deps, id, {
        type: "attest-backup",
        key: `${key}-backup`,
        actor: alice,
        takenAt: clock - 600,
      });
      await runCommand(deps, id, { type: "approve", key: `${key}-approve`, actor: alice, wave: 0 });
      await reconcile();
    };
    const stepAndVerify = async (id: string, key: string, instance: string, at: number) => {
      clock = at;
      await runCommand(deps, id, { type: "step-done", key: `${key}-done`, actor: alice, instance });
      for (const t of [at + 60, at + 360, at + 420]) {
        clock = t;
        await reconcile();
      }
    };

    clock = END - 100 * 60;
    const judged = await create("e2e-seed-judged", "Doublewrite off on the orders canary", "orders-r1:9105");
    clock = END - 99 * 60;
    await start(judged, "e2e-seed-judged");
    await stepAndVerify(judged, "e2e-seed-judged", "orders-r1:9105", STEP_A);
    // Judged every evaluation interval after the bake until the wave is decided.
    const bakeEnd = (await getRollout(deps, judged)).state.waves[0]!.bakeEnd ?? STEP_A + 1500;
    for (clock = bakeEnd + 1; clock < END - 45 * 60; clock += 60) {
      await reconcile();
      const s = (await getRollout(deps, judged)).state;
      if (s.status !== "active" || s.waves[0]!.phase !== "baking") break;
    }
    // An inconclusive judgement waits for a person: Alice accepts it, which completes the rollout.
    const judgedState = (await getRollout(deps, judged)).state;
    if (judgedState.status === "paused" && judgedState.pause?.reason === "inconclusive")
      await runCommand(deps, judged, {
        type: "approve",
        key: "e2e-seed-judged-accept",
        actor: alice,
        wave: 0,
        note: "Bytes per transaction fell as expected; accepted after review.",
      });

    clock = END - 50 * 60;
    const baking = await create(
      "e2e-seed-baking",
      "Doublewrite off on the billing canary",
      "billing-r1:9105",
    );
    clock = END - 49 * 60;
    await start(baking, "e2e-seed-baking");
    await stepAndVerify(baking, "e2e-seed-baking", "billing-r1:9105", STEP_B);

    clock = END - 5 * 60;
    const aborted = await create("e2e-seed-aborted", "Doublewrite off, abandoned", "archive-r1:9105", bob);
    await runCommand(deps, aborted, {
      type: "abort",
      key: "e2e-seed-aborted-abort",
      actor: bob,
      reason: "change freeze",
    });

    const out: SeededRollouts = {
      judged: { id: judged, status: (await getRollout(deps, judged)).state.status },
      baking: { id: baking, status: (await getRollout(deps, baking)).state.status },
      aborted: { id: aborted, status: (await getRollout(deps, aborted)).state.status },
    };
    log(
      `rollouts seeded: ${Object.entries(out)
        .map(([k, v]) => `${k} ${v.id} (${v.status})`)
        .join(", ")}`,
    );
    return out;
  } finally {
    await store.close();
    await prom.stop();
  }
}
