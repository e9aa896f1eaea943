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
import type { SyntheticInstance } from "@untorn/fleet/testing/synthetic";
import { candidateFacts } from "@untorn/rollout-runner/observe";
import {
  createStoredRollout,
  getRollout,
  reconcileRollouts,
  runCommand,
} from "@untorn/rollout-runner/runner";
import {
  healthyReplication,
  historyEnd,
  replicaMetadata,
  startHistoryPrometheus,
  syntheticReplica,
  testClock,
  testPolicy,
} from "@untorn/rollout-runner/testing";
import { openStore } from "@untorn/store/store";

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
  const END = historyEnd();
  const START = END - 120 * 60;
  const STEP_A = END - 90 * 60;
  // Late enough that the baking rollout's bake (testPolicy: 20 min) still runs at the recording's end, where
  // the recorded console's reconciler stands: it must stay "not judged yet".
  const STEP_B = END - 10 * 60;
  const fleet: SyntheticInstance[] = [
    syntheticReplica("orders-r1:9105", { doublewriteOffAt: STEP_A, restartAt: STEP_A }),
    syntheticReplica("orders-r2:9105"),
    syntheticReplica("billing-r1:9105", { doublewriteOffAt: STEP_B, restartAt: STEP_B }),
    syntheticReplica("billing-r2:9105"),
    syntheticReplica("archive-r1:9105"),
    syntheticReplica("archive-r2:9105"),
  ];
  const metadata = replicaMetadata(fleet, (i) => i.split("-")[0]!);
  const history = await startHistoryPrometheus(fleet, { start: START, end: END }, join(workDir, "rollouts"));
  const store = await openStore({ dataDir });
  const clock = testClock();
  const deps = clock.deps(store, log);
  const { api } = history;
  const reconcile = () => reconcileRollouts(deps, { api, replication: healthyReplication, metadata });
  try {
    const create = async (key: string, title: string, target: string, actor = alice) => {
      const c = await candidateFacts(api, { at: clock.now, metadata });
      const { stored } = await createStoredRollout(deps, {
        type: "create",
        key,
        actor,
        title,
        input: {
          change: { kind: "doublewrite-off" },
          instances: c.facts,
          targets: [target],
          policy: testPolicy,
        },
      });
      return stored.state.id;
    };
    const start = async (id: string, key: string) => {
      await runCommand(deps, id, {
        type: "attest-backup",
        key: `${key}-backup`,
        actor: alice,
        takenAt: clock.now - 600,
      });
      await runCommand(deps, id, { type: "approve", key: `${key}-approve`, actor: alice, wave: 0 });
      await reconcile();
    };
    const stepAndVerify = async (id: string, key: string, instance: string, at: number) => {
      clock.now = at;
      await runCommand(deps, id, { type: "step-done", key: `${key}-done`, actor: alice, instance });
      for (const t of [at + 60, at + 360, at + 420]) {
        clock.now = t;
        await reconcile();
      }
    };

    clock.now = END - 100 * 60;
    const judged = await create("e2e-seed-judged", "Doublewrite off on the orders canary", "orders-r1:9105");
    clock.now = END - 99 * 60;
    await start(judged, "e2e-seed-judged");
    await stepAndVerify(judged, "e2e-seed-judged", "orders-r1:9105", STEP_A);
    // Judged every evaluation interval after the bake until the wave is decided.
    const bakeEnd = (await getRollout(deps, judged)).state.waves[0]!.bakeEnd ?? STEP_A + 1500;
    for (clock.now = bakeEnd + 1; clock.now < END - 45 * 60; clock.now += 60) {
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

    clock.now = END - 50 * 60;
    const baking = await create(
      "e2e-seed-baking",
      "Doublewrite off on the billing canary",
      "billing-r1:9105",
    );
    clock.now = END - 49 * 60;
    await start(baking, "e2e-seed-baking");
    await stepAndVerify(baking, "e2e-seed-baking", "billing-r1:9105", STEP_B);

    clock.now = END - 5 * 60;
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
    await history.stop();
  }
}
