/** Test-only builders: InstanceFacts of a small fleet and synthetic bake series. */
import { type InstanceFacts, parseInstanceFacts } from "@untorn/advisor/facts";
import type { CommandInput, CreateCommandInput } from "../src/commands.ts";
import { commandSchema, createCommandSchema } from "../src/commands.ts";
import type { BakeSeries, ReadBack } from "../src/observations.ts";
import type { NextActions } from "../src/state.ts";

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

export function mysql(
  instance: string,
  role: "primary" | "replica" | "standalone" | null,
  opts: {
    cluster?: string | null;
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

export const operator = { id: "alice", kind: "operator" } as const;
export const T0 = 1_760_000_000;

export function create(
  instances: InstanceFacts[],
  policy: Record<string, unknown> = {},
  change: object = { kind: "doublewrite-off" },
) {
  const input: CreateCommandInput = {
    type: "create",
    key: "create-1",
    actor: operator,
    id: "r1",
    title: "doublewrite off on c1",
    input: { change: change as never, instances, policy },
  };
  return createCommandSchema.parse(input);
}

let n = 0;
/** A command without its key and actor (distributes over the union). */
type Loose<T> = T extends unknown
  ? Omit<T, "key" | "actor"> & { key?: string; actor?: CommandInput["actor"] }
  : never;
export type LooseCommand = Loose<CommandInput>;

export function cmd(c: LooseCommand) {
  n += 1;
  return commandSchema.parse({ key: `k${n}`, actor: operator, ...c });
}

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
 * Bake series for a request: every metric flat with 2% noise; `effect` multiplies the treated
 * instances' after window per metric (e.g. write_bytes_per_transaction: 0.6).
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
