/**
 * The lab's replicated cluster and the rollouts recorded on it: a MariaDB primary with two GTID replicas
 * (@untorn/testkit's replica set), the replicas on identical IOPS-capped zram volumes the operator declares
 * atomic for the demo, and the rollout engine's real flow against the recording's own Prometheus and a
 * throwaway store: create, attest the backup, approve, the pre-wave gate, the step (restart with
 * doublewrite off, then step-done), the read-back verification, the bake and the comparison against the
 * control; then a second rollout left waiting at its approval gate. The store's state of both is what the
 * recording ships beside the replay (lab/recordings/*.rollouts.json).
 */
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import type { MetadataByInstance } from "@untorn/fleet/pipeline";
import { PromClient } from "@untorn/prom/client";
import type { PolicyInput } from "@untorn/rollout/policy";
import { nextActions, type RolloutState } from "@untorn/rollout/state";
import { candidateFacts } from "@untorn/rollout-runner/observe";
import { exportRollouts, type RecordedRolloutsFile } from "@untorn/rollout-runner/recorded";
import { prometheusReplication } from "@untorn/rollout-runner/replication";
import {
  createStoredRollout,
  getRollout,
  type RunnerDeps,
  reconcileRollouts,
  runCommand,
} from "@untorn/rollout-runner/runner";
import { openStore, type Store } from "@untorn/store/store";
import type { MariaDb, MariaDbOptions } from "@untorn/testkit/mariadb";
import { makeTempDir, removeDir } from "@untorn/testkit/process";
import { type ReplicaSet, startReplicaSet } from "@untorn/testkit/replication";
import { prepareSysbench } from "@untorn/testkit/sysbench";
import { createThrottledVolume, type ThrottledVolume, type ThrottleOptions } from "@untorn/testkit/throttle";
import { declaredMetadata, type InstanceSpec, shopMembers, UNCAPPED_METER_KIB } from "./fleet.js";
import type { Scope } from "./scope.js";

/** Who acts in the recorded rollouts: the lab's run, as an operator would. */
export const LAB_OPERATOR = { id: "lab-recording/operator", kind: "operator" as const };

/** Bake of the canary wave: compare needs at least three 60 s blocks per window; five give it a chance. */
export const BAKE_SECONDS = 300;

/** The rollouts' knobs, sized for a 20-minute recording (the live rollout test's, with a longer bake). */
export const SHOP_POLICY: PolicyInput = {
  includePrimaries: false,
  maxInstancesPerWave: 1,
  // The capped replicas lag while doublewrite is on: the gate allows it, up to five minutes.
  maxReplicationLagSeconds: 300,
  verifyConsecutive: 2,
  verifyTimeoutSeconds: 180,
  warmupSeconds: 30,
  bakeSeconds: BAKE_SECONDS,
  evaluationIntervalSeconds: 30,
  consecutiveSuccessLimit: 1,
  failureLimit: 1,
  inconclusiveLimit: 2,
  minSamples: 6,
  minBlocks: 3,
  // No latency guardrail: on two shared cores the write latency of a few minutes is noise.
  metrics: [
    { metric: "transactions_per_second", kind: "throughput", role: "guardrail", margin: 0.1 },
    { metric: "write_bytes_per_transaction", kind: "efficiency", role: "expected", expect: "decrease" },
    { metric: "write_ops_per_transaction", kind: "efficiency", role: "expected", expect: "decrease" },
    { metric: "fsyncs_per_transaction", kind: "efficiency", role: "informative" },
  ],
};

/** rate() window of the read-backs and bake series: four 15 s scrapes. */
const RATE_WINDOW = "60s";

export interface ShopMember {
  readonly spec: InstanceSpec;
  readonly db: MariaDb;
  readonly volume: ThrottledVolume;
}

export interface Shop {
  readonly set: ReplicaSet;
  readonly members: readonly ShopMember[];
  /** Puts the replicas' write-IOPS caps on (after sysbench prepare and catch-up). */
  capReplicas(): Promise<void>;
}

const options = (s: InstanceSpec): MariaDbOptions => ({
  doublewrite: s.doublewrite,
  bufferPoolSize: s.bufferPoolSize,
  flushLogAtTrxCommit: s.flushLogAtTrxCommit,
  performanceSchema: s.performanceSchema,
  extra: { ...s.extra },
});

/**
 * Starts the cluster: a volume per member (the primary's uncapped, the replicas' on zram, capped later),
 * the replica set, sysbench tables prepared on the primary and replicated. Everything is registered on
 * `scope` for cleanup.
 */
export async function startShop(
  specs: readonly InstanceSpec[],
  scope: Scope,
  layers: { volume: number; db: number },
  log: (line: string) => void,
  /** Creates a volume; run-fleet serialises them (testkit names a volume's cgroup after Date.now()). */
  createVolume: (o: ThrottleOptions) => Promise<ThrottledVolume> = createThrottledVolume,
): Promise<Shop> {
  const shop = shopMembers(specs);
  if (!shop) throw new Error("the fleet has no complete replicated cluster (a primary, a canary, a control)");
  const ordered = [shop.primary, shop.canary, shop.control];
  const volumes: ThrottledVolume[] = [];
  for (const s of ordered) {
    const v = await scope.use(
      layers.volume,
      `volume of ${s.name}`,
      () =>
        createVolume({
          writeIops: 0,
          meterKiB: s.throttle?.meterKiB ?? UNCAPPED_METER_KIB,
          backing: s.throttle?.backing ?? "loop",
          sizeMiB: 1024,
        }),
      (x) => x.destroy(),
    );
    volumes.push(v);
    // testkit names a volume's cgroup after Date.now(): a few ms apart.
    await sleep(5);
  }
  const onVolume = async (v: ThrottledVolume): Promise<MariaDbOptions> => {
    const tmpdir = join(v.mountPoint, "tmp");
    await mkdir(tmpdir, { recursive: true });
    return { datadirParent: v.mountPoint, spawnPrefix: v.spawnPrefix, extra: { tmpdir } };
  };
  const place = [await onVolume(volumes[0]!), await onVolume(volumes[1]!), await onVolume(volumes[2]!)];
  const merge = (a: MariaDbOptions, b: MariaDbOptions): MariaDbOptions => ({
    ...a,
    ...b,
    extra: { ...a.extra, ...b.extra },
  });
  const set = await scope.use(
    layers.db,
    "the replicated cluster",
    () =>
      startReplicaSet({
        replicas: 2,
        primary: merge(options(shop.primary), place[0]!),
        replica: (i) => merge(options(i === 0 ? shop.canary : shop.control), place[i + 1]!),
      }),
    async (x) => {
      // Shutdown flushes the buffer pool: not through the caps.
      for (const v of volumes.slice(1)) await v.setLimits({ writeIops: 0 }).catch(() => undefined);
      await x.destroy();
    },
  );
  await prepareSysbench(set.primary, shop.primary.tables);
  await set.waitForCatchUp({ timeoutMs: 180_000 });
  const members: ShopMember[] = [
    { spec: shop.primary, db: set.primary, volume: volumes[0]! },
    { spec: shop.canary, db: set.replicas[0]!, volume: volumes[1]! },
    { spec: shop.control, db: set.replicas[1]!, volume: volumes[2]! },
  ];
  for (const m of members) log(`${m.spec.name}: up (${m.volume.device}, ${m.spec.role})`);
  return {
    set,
    members,
    async capReplicas() {
      for (const m of members.slice(1))
        if (m.spec.throttle) await m.volume.setLimits({ writeIops: m.spec.throttle.writeIops });
    },
  };
}

export interface RolloutRun {
  /** The stored state of both rollouts, ready to write beside the replay. */
  readonly exported: (recording: string, note: string) => Promise<RecordedRolloutsFile>;
  readonly completed: RolloutState;
  readonly waiting: RolloutState;
  close(): Promise<void>;
}

const now = () => Math.floor(Date.now() / 1000);

export interface ShopRolloutOptions {
  shop: Shop;
  specs: readonly InstanceSpec[];
  prometheusUrl: string;
  loadStart: number;
  deadline: number;
  log: (line: string) => void;
  signal: AbortSignal;
}

/**
 * The engine's real flow on the cluster, timed from `loadStart`: the first rollout starts once the
 * before window has a bake's worth of history; it must finish, and the second must be waiting at its
 * gate, before `deadline` (the end of the load, when the recording is taken).
 */
export async function runShopRollouts(opts: ShopRolloutOptions): Promise<RolloutRun> {
  const { shop, log } = opts;
  const names = shopMembers(opts.specs)!;
  const api = new PromClient({ baseUrl: opts.prometheusUrl });
  const metadata = new Map(Object.entries(declaredMetadata(opts.specs).instances));
  const dir = await makeTempDir("lab-rollout-store");
  let store: Store | undefined;
  const close = async () => {
    await store?.close();
    await removeDir(dir);
  };
  try {
    store = await openStore({ dataDir: join(dir, "data") });
    const driver = rolloutDriver(store, api, metadata, opts);

    // The before window: a bake's worth of steady load, plus a minute and a half.
    const start = opts.loadStart + BAKE_SECONDS + 90;
    log(`first rollout at +${start - opts.loadStart} s of load`);
    while (now() < start) await driver.wait(5000);

    const first = await runCanaryRollout(driver, shop, names.canary.name, log);
    const second = await leaveControlRolloutWaiting(driver, names.control.name, log);
    return {
      completed: first.state,
      waiting: second.state,
      exported: (recording, note) => exportRollouts(store!, [first.id, second.id], { recording, note }),
      close,
    };
  } catch (err) {
    await close().catch(() => undefined);
    throw err;
  }
}

type RolloutDriver = ReturnType<typeof rolloutDriver>;

/**
 * What the lab's operator does through the runner, as the console would: commands, reads, the
 * reconciler's pass, and the waits between them, bounded by the deadline.
 */
function rolloutDriver(
  store: Store,
  api: PromClient,
  metadata: MetadataByInstance,
  opts: Pick<ShopRolloutOptions, "deadline" | "log" | "signal">,
) {
  const { log, signal } = opts;
  const deps: RunnerDeps = { store, log: (m) => log(`  runner: ${m}`) };
  return {
    wait: async (ms: number) => {
      signal.throwIfAborted();
      await sleep(ms, undefined, { signal });
    },
    late: (what: string) => {
      if (now() > opts.deadline) throw new Error(`the recorded rollout ran out of time: ${what}`);
    },
    reconcile: () =>
      reconcileRollouts(deps, {
        api,
        replication: prometheusReplication,
        metadata,
        rateWindow: RATE_WINDOW,
      }),
    cmd: async (id: string, input: Parameters<typeof runCommand>[2]) => {
      const r = await runCommand(deps, id, input);
      if (!r.ok) throw new Error(`rollout ${id}: ${input.type} refused: ${JSON.stringify(r.refusal)}`);
      return r.state;
    },
    state: async (id: string) => (await getRollout(deps, id)).state,
    create: async (key: string, title: string, target: string) => {
      const facts = await candidateFacts(api, { at: now(), window: "5m", metadata });
      const { stored } = await createStoredRollout(deps, {
        type: "create",
        key,
        actor: LAB_OPERATOR,
        title,
        input: {
          change: { kind: "doublewrite-off" },
          instances: facts.facts,
          targets: [target],
          policy: SHOP_POLICY,
        },
      });
      const w = stored.state.waves[0];
      log(
        `rollout ${stored.state.id} "${title}": wave 0 changes ${w?.instances.join(", ")} against control ${w?.controls.join(", ") || "(none)"}`,
      );
      return stored.state.id;
    },
  };
}

/**
 * The first rollout: the canary, against its sibling, through the pre-wave gate, the restart with
 * doublewrite off, the read-back, bake and judgement, to completed or reverted.
 */
async function runCanaryRollout(
  d: RolloutDriver,
  shop: Shop,
  canaryName: string,
  log: (line: string) => void,
): Promise<{ id: string; state: RolloutState }> {
  const first = await d.create(
    "lab-recording-rollout-1",
    "Doublewrite off on the shop canary (recorded in the lab)",
    canaryName,
  );
  await d.cmd(first, {
    type: "attest-backup",
    key: "lab-recording-attest-1",
    actor: LAB_OPERATOR,
    takenAt: now() - 60,
    note: "Lab recording: throwaway servers whose data sysbench prepare re-creates.",
  });
  await d.cmd(first, { type: "approve", key: "lab-recording-approve-1", actor: LAB_OPERATOR, wave: 0 });

  // The pre-wave gate: backup, no other rollout, safety gate, replication of canary and control.
  let s = await d.state(first);
  while (s.waves[0]!.phase === "pending") {
    d.late("the pre-wave gate did not pass");
    await d.reconcile();
    s = await d.state(first);
    if (s.waves[0]!.phase === "pending") await d.wait(10_000);
  }
  const canary = shop.members.find((m) => m.spec.name === canaryName)!;
  log(`wave 0 started; restarting ${canary.spec.name} with innodb_doublewrite=OFF`);
  await shop.set.restartReplica(canary.db, { doublewrite: false });
  await d.cmd(first, {
    type: "step-done",
    key: "lab-recording-step-1",
    actor: LAB_OPERATOR,
    instance: canary.spec.name,
    note: "Restarted with innodb_doublewrite=OFF (option file + restart).",
  });

  // Read-back, bake, judgement: the reconciler moves it, as the console's would.
  const decided = (x: RolloutState) => x.status !== "active" || x.waves.every((w) => w.phase === "passed");
  while (!decided(s)) {
    d.late(`wave 0 is still ${s.waves[0]!.phase}`);
    await d.wait(10_000);
    await d.reconcile();
    s = await d.state(first);
  }
  const bake = s.events.filter((e) => e.type === "gate" && e.gate?.gate === "bake").at(-1)?.gate;
  log(`first rollout: ${s.status}, wave 0 ${s.waves[0]!.phase}${bake ? `: ${bake.summary}` : ""}`);
  s = await settleCanaryRollout(d, shop, canary, first, s);
  if (s.status !== "completed" && s.status !== "reverted")
    throw new Error(`the first rollout ended ${s.status}, expected completed or reverted`);
  return { id: first, state: s };
}

/**
 * What the engine asks of a human once the bake is judged: an inconclusive bake is accepted (the report
 * keeps the verdict), a failed one reverted, as the engine proposes, until the revert is verified.
 */
async function settleCanaryRollout(
  d: RolloutDriver,
  shop: Shop,
  canary: ShopMember,
  first: string,
  judged: RolloutState,
): Promise<RolloutState> {
  let s = judged;
  if (s.status === "paused" && s.pause?.reason === "inconclusive") {
    s = await d.cmd(first, {
      type: "approve",
      key: "lab-recording-accept-1",
      actor: LAB_OPERATOR,
      wave: 0,
      note: "Accepted in the lab recording so the demo has a finished rollout; the bake's verdict stays inconclusive in the report.",
    });
  } else if (s.status === "halted") {
    s = await d.cmd(first, {
      type: "revert",
      key: "lab-recording-revert-1",
      actor: LAB_OPERATOR,
      reason: "The bake failed: reverting, as the engine proposes.",
    });
    await shop.set.restartReplica(canary.db, { doublewrite: true });
    await d.cmd(first, {
      type: "revert-done",
      key: "lab-recording-revert-done-1",
      actor: LAB_OPERATOR,
      instance: canary.spec.name,
      note: "Restarted with innodb_doublewrite=ON.",
    });
    while (s.status === "reverting" || s.status === "halted") {
      d.late("the revert was not verified");
      await d.wait(10_000);
      await d.reconcile();
      s = await d.state(first);
    }
  }
  return s;
}

/** The second rollout: the control replica, left at its approval gate. */
async function leaveControlRolloutWaiting(
  d: RolloutDriver,
  controlName: string,
  log: (line: string) => void,
): Promise<{ id: string; state: RolloutState }> {
  const second = await d.create(
    "lab-recording-rollout-2",
    "Doublewrite off on the shop control replica (recorded in the lab)",
    controlName,
  );
  let w = await d.cmd(second, {
    type: "attest-backup",
    key: "lab-recording-attest-2",
    actor: LAB_OPERATOR,
    takenAt: now() - 60,
    note: "Lab recording: throwaway servers whose data sysbench prepare re-creates.",
  });
  await d.reconcile();
  w = await d.state(second);
  const asks = nextActions(w, now()).human.map((h) => h.kind);
  if (w.status !== "active" || !asks.includes("approve"))
    throw new Error(`the second rollout is ${w.status}, waiting for ${asks.join(", ") || "nothing"}`);
  log(`second rollout ${second}: waiting for approval of wave 0`);
  d.late("the second rollout");
  return { id: second, state: w };
}
