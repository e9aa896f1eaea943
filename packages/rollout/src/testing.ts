/**
 * Rollouts for tests (`@untorn/rollout/testing`), made by the real engine: InstanceFacts of a small fleet
 * whose safety gate verifies (declared EBS torn-write protection), read-backs, synthetic bake series, and
 * a driver that plays the operator and the reconciler's observations through the pure transitions. Not
 * imported by the runtime entry points.
 */
import { type InstanceFacts, parseInstanceFacts } from "@untorn/advisor/facts";
import {
  type CommandInput,
  type CreateCommandInput,
  commandSchema,
  createCommandSchema,
} from "./commands.js";
import { type BakeSeries, type Observations, observationsSchema, type ReadBack } from "./observations.js";
import {
  applyCommand,
  createRollout,
  type NextActions,
  nextActions,
  type RolloutState,
  reconcile,
} from "./state.js";

/** AWS EBS with torn-write prevention, ext4 bigalloc 16 KiB, aligned partition: the gate verifies. */
const ebs = {
  platform: { managed: "none", cloud: "aws" },
  storage: {
    datadirVisible: true,
    device: "nvme1n1p1",
    layers: ["partition"],
    dataOffsetAlignmentBytes: 1048576,
    fsType: "ext4",
    fsBlockSizeBytes: 4096,
    fsClusterSizeBytes: 16384,
    logicalBlockSizeBytes: 512,
    physicalBlockSizeBytes: 4096,
    maxIoBytes: 524288,
    rotational: false,
    tornWriteProtection: { provider: "aws-ebs", unitBytes: 16384, source: "declared", note: "test" },
  },
};

/** A MySQL 8.0 server (by default) of cluster c1, doublewrite ON, on declared torn-write-protected EBS. */
export function mysql(
  instance: string,
  role: "primary" | "replica" | "standalone" | null,
  opts: {
    cluster?: string | null;
    /** false: no storage facts, so the safety gate does not verify. */
    verified?: boolean;
    version?: string;
    managed?: string;
    doublewrite?: string;
    flavor?: string;
  } = {},
): InstanceFacts {
  const dw = opts.doublewrite ?? "on";
  return parseInstanceFacts({
    schemaVersion: 1,
    identity: { instance, cluster: opts.cluster === undefined ? "c1" : opts.cluster, role },
    server: { flavor: opts.flavor ?? "mysql", version: opts.version ?? "8.0.35" },
    ...(opts.verified === false
      ? { platform: { managed: opts.managed ?? "none" } }
      : { ...ebs, platform: { ...ebs.platform, managed: opts.managed ?? "none" } }),
    config: {
      doublewrite: dw,
      doublewriteRaw: dw.toUpperCase(),
      pageSizeBytes: 16384,
      flushMethod: "O_DIRECT",
      doublewritePages: 4,
    },
  });
}

/** One primary and three replicas of cluster c1 (canary r1 beside control r3). */
export const cluster = (suffix = "") => [
  mysql(`p1${suffix}`, "primary"),
  mysql(`r1${suffix}`, "replica"),
  mysql(`r2${suffix}`, "replica"),
  mysql(`r3${suffix}`, "replica"),
];

export const operator = { id: "alice", kind: "operator" } as const;
/** A fixed start time (Unix seconds) for tests that need one. */
export const T0 = 1_760_000_000;

let n = 0;
/** A command without its key and actor (distributes over the union). */
type Loose<T> = T extends unknown
  ? Omit<T, "key" | "actor"> & { key?: string; actor?: CommandInput["actor"] }
  : never;
export type LooseCommand = Loose<CommandInput>;

/** A command with a fresh key, by the operator unless it names another actor. */
export function cmd(c: LooseCommand) {
  n += 1;
  return commandSchema.parse({ key: `k${n}`, actor: operator, ...c });
}

/** A create command for `instances` (id `r1` unless given). */
export function create(
  instances: InstanceFacts[],
  policy: Record<string, unknown> = {},
  change: object = { kind: "doublewrite-off" },
  id = "r1",
) {
  const input: CreateCommandInput = {
    type: "create",
    key: `create-${id}`,
    actor: operator,
    id,
    title: "doublewrite off on c1",
    input: { change: change as never, instances, policy },
  };
  return createCommandSchema.parse(input);
}

/** The read-back of an instance that is up with doublewrite `mode` and `flat` doublewrite pages/s. */
export function readBack(instance: string, at: number, mode: string, flat = 0): ReadBack {
  return {
    instance,
    at,
    up: true,
    doublewriteMode: mode,
    configInfo: { doublewrite: mode.toUpperCase(), flush_method: "O_DIRECT" },
    doublewritePages: 4,
    doublewritePagesPerSecond: flat,
    uptimeSeconds: 100,
  };
}

/** Deterministic noise in [-1, 1). */
function noise(i: number, salt: number): number {
  const x = Math.sin(i * 12.9898 + salt * 78.233) * 43758.5453;
  return (x - Math.floor(x)) * 2 - 1;
}

/**
 * Bake series for a request: every metric flat at 100 with 2% noise, one point every 15 s; `effect`
 * multiplies the treated instances' after window per metric (e.g. write_bytes_per_transaction: 0.6);
 * the metrics in `drop` have no series.
 */
export function bakeFor(
  req: NextActions["observations"]["bakes"][number],
  effect: Record<string, number>,
  drop: string[] = [],
): BakeSeries {
  const step = 15;
  const win = (start: number, end: number, scale: number, salt: number) => {
    const t: number[] = [];
    const v: (number | null)[] = [];
    for (let x = Math.ceil(start / step) * step, i = 0; x < end; x += step, i++) {
      t.push(x);
      v.push(100 * scale * (1 + 0.02 * noise(i, salt)));
    }
    return { t, v };
  };
  return {
    wave: req.wave,
    windows: req.windows,
    instances: req.instances.map((inst, k) => ({
      id: inst.id,
      series: Object.fromEntries(
        req.metrics
          .filter((m) => !drop.includes(m.metric))
          .map((m, j) => [
            m.metric,
            {
              before: win(req.windows.before.start, req.windows.before.end, 1, k * 31 + j),
              after: win(
                req.windows.after.start,
                req.windows.after.end,
                inst.role === "treated" ? (effect[m.metric] ?? 1) : 1,
                k * 31 + j + 7,
              ),
            },
          ]),
      ),
    })),
  };
}

/**
 * Creates a rollout at `t0` and plays it for `rounds` minutes: the operator attests, approves and marks
 * steps done; read-backs match; bakes see `effect` on the changed instances. Stops early when the
 * rollout waits for a person's decision.
 */
export function playedRollout(opts: {
  t0: number;
  rounds: number;
  effect?: Record<string, number>;
  facts?: InstanceFacts[];
}): RolloutState {
  const facts = opts.facts ?? cluster();
  const byId = new Map(facts.map((f) => [f.identity.instance, f]));
  n += 1;
  let s = createRollout(
    create(facts, { bakeSeconds: 600, warmupSeconds: 0 }, undefined, `test-${n}`),
    opts.t0,
  );
  let now = opts.t0;
  for (let round = 0; round < opts.rounds; round++) {
    now += 60;
    if (s.status !== "active") break;
    for (const h of nextActions(s, now).human) {
      const c: Record<string, unknown> | null =
        h.kind === "attest-backup"
          ? { type: "attest-backup", takenAt: now - 600 }
          : h.kind === "approve"
            ? { type: "approve", wave: h.wave }
            : h.kind === "apply-step"
              ? { type: "step-done", instance: h.instance }
              : null;
      if (c) {
        const t = applyCommand(s, cmd(c as LooseCommand), now);
        if (t.ok) s = t.state;
      }
    }
    const need = nextActions(s, now).observations;
    const obs: Observations = observationsSchema.parse({
      health: need.health.map((i) => ({
        instance: i,
        at: now,
        facts: byId.get(i) ?? null,
        replication: { ioRunning: true, sqlRunning: true, lagSeconds: 1 },
      })),
      activeRollouts: need.activeRollouts ? [] : null,
      readBacks: need.readBacks.map((i) => readBack(i, now, "off")),
      bakes: need.bakes.map((b) => bakeFor(b, opts.effect ?? {})),
    });
    s = reconcile(s, obs, now).state;
  }
  return s;
}
