/**
 * Rollouts for tests, made by the real engine: InstanceFacts of a small replicated cluster whose safety
 * gate verifies (declared EBS torn-write protection), and a driver that plays the operator and the
 * reconciler's observations through @untorn/rollout's pure transitions.
 */
import { type InstanceFacts, parseInstanceFacts } from "@untorn/advisor/facts";
import { commandSchema, createCommandSchema } from "@untorn/rollout/commands";
import { type Observations, observationsSchema } from "@untorn/rollout/observations";
import {
  applyCommand,
  createRollout,
  nextActions,
  type RolloutState,
  reconcile,
} from "@untorn/rollout/state";

const EBS = {
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
};

/** A MySQL 8.0 server on declared torn-write-protected EBS, doublewrite ON. */
export function verifiedMysql(instance: string, role: "primary" | "replica", cluster = "c1"): InstanceFacts {
  return parseInstanceFacts({
    schemaVersion: 1,
    identity: { instance, cluster, role },
    server: { flavor: "mysql", version: "8.0.35" },
    platform: { managed: "none", cloud: "aws" },
    storage: EBS,
    config: {
      doublewrite: "on",
      doublewriteRaw: "ON",
      pageSizeBytes: 16384,
      flushMethod: "O_DIRECT",
      doublewritePages: 4,
    },
  });
}

/** One primary and three replicas of cluster c1 (canary r1 beside control r3). */
export const cluster = (suffix = "") => [
  verifiedMysql(`p1${suffix}`, "primary"),
  verifiedMysql(`r1${suffix}`, "replica"),
  verifiedMysql(`r2${suffix}`, "replica"),
  verifiedMysql(`r3${suffix}`, "replica"),
];

export const OPERATOR = { id: "alice", kind: "operator" } as const;

let n = 0;
const cmd = (c: Record<string, unknown>) => commandSchema.parse({ key: `t${++n}`, actor: OPERATOR, ...c });

/** Deterministic ±2% noise. */
const noise = (i: number, salt: number) => {
  const x = Math.sin(i * 12.9898 + salt * 78.233) * 43758.5453;
  return (x - Math.floor(x)) * 0.04 - 0.02;
};

function bakes(
  req: ReturnType<typeof nextActions>["observations"]["bakes"][number],
  effect: Record<string, number>,
) {
  const win = (start: number, end: number, scale: number, salt: number) => {
    const t: number[] = [];
    const v: number[] = [];
    for (let x = Math.ceil(start / 15) * 15, i = 0; x < end; x += 15, i++) {
      t.push(x);
      v.push(100 * scale * (1 + noise(i, salt)));
    }
    return { t, v };
  };
  return {
    wave: req.wave,
    windows: req.windows,
    instances: req.instances.map((inst, k) => ({
      id: inst.id,
      series: Object.fromEntries(
        req.metrics.map((m, j) => [
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
  let s = createRollout(
    createCommandSchema.parse({
      type: "create",
      key: `create-${++n}`,
      actor: OPERATOR,
      id: `test-${n}`,
      title: "doublewrite off on c1",
      input: {
        change: { kind: "doublewrite-off" },
        instances: facts,
        policy: { bakeSeconds: 600, warmupSeconds: 0 },
      },
    }),
    opts.t0,
  );
  let now = opts.t0;
  for (let round = 0; round < opts.rounds; round++) {
    now += 60;
    if (s.status !== "active") break;
    for (const h of nextActions(s, now).human) {
      const c =
        h.kind === "attest-backup"
          ? { type: "attest-backup", takenAt: now - 600 }
          : h.kind === "approve"
            ? { type: "approve", wave: h.wave }
            : h.kind === "apply-step"
              ? { type: "step-done", instance: h.instance }
              : null;
      if (c) {
        const t = applyCommand(s, cmd(c), now);
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
      readBacks: need.readBacks.map((i) => ({
        instance: i,
        at: now,
        up: true,
        doublewriteMode: "off",
        configInfo: { doublewrite: "OFF", flush_method: "O_DIRECT" },
        doublewritePages: 4,
        doublewritePagesPerSecond: 0,
        uptimeSeconds: 100,
      })),
      bakes: need.bakes.map((b) => bakes(b, opts.effect ?? {})),
    });
    s = reconcile(s, obs, now).state;
  }
  return s;
}
