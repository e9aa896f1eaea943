// The dry run's time to a verdict against a real Prometheus serving synthetic untorn-exporter history
// (backfilled with promtool): the baseline is read as the reconciler reads it, cut after a restart.
import { rm } from "node:fs/promises";
import type { SyntheticInstance } from "@untorn/fleet/testing/synthetic";
import { planInputSchema, planRollout } from "@untorn/rollout/plan";
import { makeTempDir } from "@untorn/testkit/process";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { planBakeEstimates } from "./bake-estimate.js";
import { candidateFacts } from "./observe.js";
import {
  type HistoryServer,
  historyEnd,
  replicaMetadata,
  startHistoryPrometheus,
  syntheticReplica,
} from "./testing/history.js";

const END = historyEnd();
const FLEET: SyntheticInstance[] = [
  syntheticReplica("a:9105"),
  syntheticReplica("b:9105"),
  // Restarted 20 minutes before the plan: its baseline starts after the restart and the warm-up.
  syntheticReplica("c:9105", { restartAt: END - 20 * 60 }),
  syntheticReplica("d:9105"),
];
const metadata = replicaMetadata(FLEET, (i) => (i === "a:9105" || i === "b:9105" ? "one" : "two"));

let dir = "";
let history: HistoryServer | undefined;

beforeAll(async () => {
  dir = await makeTempDir("bake-estimate");
  history = await startHistoryPrometheus(FLEET, { start: END - 90 * 60, end: END }, dir);
}, 180_000);

afterAll(async () => {
  await history?.stop();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("planBakeEstimates", () => {
  it("reads each wave's baseline from history and says how long its bake needs, or why it cannot", async () => {
    const api = history!.api;
    const facts = await candidateFacts(api, { at: END, metadata });
    const input = planInputSchema.parse({
      change: { kind: "doublewrite-off" },
      instances: facts.facts,
      targets: ["a:9105", "c:9105"],
      policy: { warmupSeconds: 600 },
    });
    const plan = planRollout(input);
    expect(plan.waves.map((w) => [w.instances, w.controls])).toEqual([
      [["a:9105"], ["b:9105"]],
      [["c:9105"], ["d:9105"]],
    ]);
    const { estimates, warnings } = await planBakeEstimates(api, plan, input.policy, { now: END });
    expect(warnings).toEqual([]);
    const [one, two] = estimates;
    // An hour of quiet synthetic history (2% noise) against its control: decided at an early look.
    expect(one).toMatchObject({ wave: 0, metric: "write_bytes_per_transaction", outcome: "decides" });
    expect(one!.bakeSeconds!).toBeLessThanOrEqual(300);
    expect(one!.baselineSeconds).toBeGreaterThanOrEqual(3600 - 60);
    expect(one!.instances[0]!.controls).toEqual(["b:9105"]);
    expect(one!.message).toMatch(
      /^Wave 0: about .* of bake to decide the expected [\d.]+% lower write bytes per transaction/,
    );
    // The restart 20 minutes ago and the 10-minute warm-up leave about 10 minutes of baseline, and say so.
    expect(two!.baselineSeconds!).toBeLessThanOrEqual(11 * 60);
    expect(two!.message).toMatch(/c:9105 restarted at/);
  }, 120_000);
});
