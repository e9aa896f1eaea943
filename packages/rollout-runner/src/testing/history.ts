/**
 * The runner against synthetic history (`@untorn/rollout-runner/testing`): MariaDB replicas of the
 * synthetic fleet whose safety gate verifies, their untorn-exporter history backfilled with promtool into
 * a real Prometheus, replication injected as healthy (the synthetic history has replication series
 * only for instances given `replication`), the tests' policy, and an injected clock that walks through that history. For this package's tests, the
 * CLI's and the e2e seed.
 */
import { join } from "node:path";
import { type SyntheticInstance, syntheticFleet } from "@untorn/fleet/testing/synthetic";
import { backfill } from "@untorn/fleet/tools/backfill";
import { PromClient } from "@untorn/prom/client";
import type { Replication } from "@untorn/rollout/observations";
import type { PolicyInput } from "@untorn/rollout/policy";
import type { Store } from "@untorn/store/store";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import type { ReplicationSource } from "../observe.js";
import type { RunnerDeps } from "../runner.js";

/** The history's last minute boundary, two minutes back: every sample is in the past. */
export function historyEnd(nowMs = Date.now()): number {
  return Math.floor(nowMs / 1000 / 60) * 60 - 120;
}

/**
 * A MariaDB 10.11 replica of the synthetic fleet: 800 pages flushed and 200 transactions a second, on
 * storage that writes 16 KiB atomically (its safety gate verifies), doublewrite ON. `over` changes any
 * of it: `doublewriteOffAt` and `restartAt` for the step, `atomicUnitBytes: 0` for an unverified gate.
 */
export function syntheticReplica(instance: string, over: Partial<SyntheticInstance> = {}): SyntheticInstance {
  return {
    ...syntheticFleet(1, 3)[0]!,
    flavor: "mariadb",
    version: "10.11.19-MariaDB",
    flushedPerSecond: 800,
    transactionsPerSecond: 200,
    atomicUnitBytes: 16384,
    doublewrite: true,
    instance,
    ...over,
  };
}

/** Declared metadata: every instance a replica of the cluster `clusterOf` names. */
export function replicaMetadata(
  fleet: readonly SyntheticInstance[],
  clusterOf: (instance: string) => string,
): Map<string, { cluster: string; role: "replica" }> {
  return new Map(
    fleet.map((f) => [f.instance, { cluster: clusterOf(f.instance), role: "replica" as const }]),
  );
}

/** Every replication thread running, no lag. */
export const healthyReplication: ReplicationSource = async (_api, instances) =>
  new Map<string, Replication>(
    instances.map((i) => [i, { ioRunning: true, sqlRunning: true, lagSeconds: 0 }]),
  );

/** No warm-up, a 20 min bake judged every minute, two matching read-backs, one replica per wave. */
export const testPolicy: PolicyInput = {
  // The fixed bake these tests' synthetic histories were laid out for (docs/rollout.md, "Sequential
  // judgement"): the seeded rollouts of the e2e and the runner's tests expect a judgement at its end.
  judgement: "fixed",
  warmupSeconds: 0,
  bakeSeconds: 1200,
  evaluationIntervalSeconds: 60,
  verifyConsecutive: 2,
  includePrimaries: false,
  maxInstancesPerWave: 1,
};

export interface HistoryServer {
  readonly prom: Prometheus;
  readonly api: PromClient;
  stop(): Promise<void>;
}

/**
 * Backfills the fleet's history from `start` to `end` (Unix seconds; 15 s steps, 2% noise) into `dir`
 * and starts a Prometheus serving it.
 */
export async function startHistoryPrometheus(
  fleet: readonly SyntheticInstance[],
  history: { start: number; end: number; noise?: number; seed?: number },
  dir: string,
): Promise<HistoryServer> {
  const b = await backfill(
    fleet,
    { stepSeconds: 15, noise: 0.02, seed: 5, ...history },
    join(dir, "history"),
  );
  const prom = await startPrometheus({ jobs: [], storagePath: b.dir });
  return { prom, api: new PromClient({ baseUrl: prom.url }), stop: () => prom.stop() };
}

/** An injected clock: the runner reads `now`, the test sets it. */
export interface TestClock {
  now: number;
  /** Runner dependencies over `store` that read this clock. */
  deps(store: Store, log?: (line: string) => void): RunnerDeps;
}

export function testClock(start = 0): TestClock {
  const c: TestClock = {
    now: start,
    deps: (store, log) => ({ store, clock: () => c.now, ...(log ? { log } : {}) }),
  };
  return c;
}
