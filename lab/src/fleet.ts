/**
 * The recorded demo fleet: which throwaway MariaDB servers run, with which settings and which load.
 * run-fleet.ts starts them; recordings.test.ts checks the committed recording against this list.
 */
import type { MetadataFile } from "@untorn/fleet/metadata";

/** One sysbench process against an instance. */
export interface LoadSpec {
  readonly test: "oltp_write_only" | "oltp_read_only";
  readonly threads: 1 | 2;
  /** Transactions/s cap (sysbench --rate); 0 = as fast as the server allows. */
  readonly rate: number;
}

/** An emulated IOPS-limited volume (docs/reference/iops-metering.md §11). */
export interface ThrottleSpec {
  readonly writeIops: number;
  /**
   * Largest request the loop device takes (max_sectors_kb): 16 charges every InnoDB page as one I/O, 256
   * counts a request up to 256 KiB as one, like AWS EBS SSD volumes (docs/reference/iops-metering.md §11).
   */
  readonly meterKiB: 16 | 256;
  /**
   * "loop" (default): an image file on a loop device, a remapping layer the safety gate never verifies.
   * "zram": a whole RAM disk with nothing between the file system and the disk, where a declared
   * torn-write protection can verify the gate (docs/reference/atomic-storage.md §8.7).
   */
  readonly backing?: "loop" | "zram";
}

/** Where the instance sits in a replicated cluster (real GTID replication, lab/src/shop.ts). */
export type ReplicationSpec =
  | { readonly role: "primary" }
  | {
      readonly role: "replica";
      readonly primary: string;
      /** What the recorded rollouts do with it: the canary changes first, the control stays as it was. */
      readonly rollout: "canary" | "control";
    };

export interface InstanceSpec {
  /** Prometheus `instance` label. */
  readonly name: string;
  /** Prometheus `cluster` label. */
  readonly cluster: string;
  readonly doublewrite: boolean;
  readonly bufferPoolSize: "8M" | "16M" | "256M";
  readonly flushLogAtTrxCommit: 1 | 2;
  readonly performanceSchema: boolean;
  /** null: an uncapped volume of its own (or the host's disk when volumes cannot be emulated). */
  readonly throttle: ThrottleSpec | null;
  /** Empty: idle. */
  readonly loads: readonly LoadSpec[];
  /** Also scraped by prometheus-mysqld-exporter under the same instance label. */
  readonly mysqldExporter: boolean;
  /** What the instance stands for in the demo. */
  readonly role: string;
  /** Set for the members of the replicated cluster; absent: a standalone server. */
  readonly replication?: ReplicationSpec;
  /** sysbench tables when not TABLES. */
  readonly tables?: { readonly tables: number; readonly tableSize: number };
  /** Extra server options (option file syntax). */
  readonly extra?: Readonly<Record<string, number | string>>;
  /**
   * The operator declares the volume writes 16 KiB pages atomically (a storage fact, as a real deployment
   * declares AWS EBS torn-write prevention). True of no lab volume: a declaration for the demo only, and
   * the metadata's note says so where the console shows it.
   */
  readonly declaredAtomic?: boolean;
}

/**
 * sysbench tables on every instance: 4 x 25k rows is about 26 MiB of data and indexes, 1.6x to 3x the
 * small buffer pools (so pages are flushed and read back) and a tenth of the large one.
 */
export const TABLES = { tables: 4, tableSize: 25_000 } as const;

/** Uncapped volumes take requests up to the loop device's max_hw_sectors_kb (1280 on Linux 6.x). */
export const UNCAPPED_METER_KIB = 1024;

const write = (threads: 1 | 2, rate: number): LoadSpec => ({ test: "oltp_write_only", threads, rate });
const read = (threads: 1 | 2, rate: number): LoadSpec => ({ test: "oltp_read_only", threads, rate });

/** 300 IOPS is "a few hundred": docs/reference/iops-metering.md §11 measured the doublewrite cost at 500. */
const IOPS = 300;

/** The replicated cluster's small, fully cached tables (as the rollout runner's live test). */
export const SHOP_TABLES = { tables: 2, tableSize: 5000 } as const;
/**
 * No dirty-page allowance: the page cleaner flushes all the time, so the doublewrite buffer carries a
 * large share of the replicas' data-file writes.
 */
const FLUSHY = { innodb_max_dirty_pages_pct: 0, innodb_max_dirty_pages_pct_lwm: 0, innodb_io_capacity: 2000 };
/** The replicas' volumes: a write-IOPS cap every 16 KiB page pays one I/O of, on a zram disk. */
const SHOP_VOLUME: ThrottleSpec = { writeIops: 600, meterKiB: 16, backing: "zram" };

/**
 * A MariaDB primary with two GTID replicas on identical capped volumes the operator declares atomic (for
 * the demo): the recorded rollouts turn the canary's doublewrite off while its sibling, the concurrent
 * control, keeps it on (lab/src/shop.ts).
 */
export const SHOP: readonly InstanceSpec[] = [
  {
    name: "db-shop-primary",
    cluster: "shop",
    doublewrite: true,
    bufferPoolSize: "16M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: null,
    loads: [write(2, 100)],
    mysqldExporter: false,
    role: "primary of the replicated cluster, under a paced write load",
    replication: { role: "primary" },
    tables: SHOP_TABLES,
    extra: FLUSHY,
  },
  {
    name: "db-shop-replica-1",
    cluster: "shop",
    doublewrite: true,
    bufferPoolSize: "16M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: SHOP_VOLUME,
    loads: [],
    mysqldExporter: false,
    role: "the rollout canary: doublewrite turned off mid-recording by the recorded rollout",
    replication: { role: "replica", primary: "db-shop-primary", rollout: "canary" },
    tables: SHOP_TABLES,
    extra: FLUSHY,
    declaredAtomic: true,
  },
  {
    name: "db-shop-replica-2",
    cluster: "shop",
    doublewrite: true,
    bufferPoolSize: "16M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: SHOP_VOLUME,
    loads: [],
    mysqldExporter: false,
    role: "the canary's sibling and concurrent control: keeps doublewrite on; the second rollout waits to change it",
    replication: { role: "replica", primary: "db-shop-primary", rollout: "control" },
    tables: SHOP_TABLES,
    extra: FLUSHY,
    declaredAtomic: true,
  },
];

/**
 * The ebs-sim cluster's twins on one IOPS-capped volume metered in `meterKiB` units: doublewrite ON
 * (`role` says what the volume does to it) and the same server with doublewrite OFF.
 */
function ebsSimPair(meterKiB: ThrottleSpec["meterKiB"], role: string): InstanceSpec[] {
  const on = `db-dw-on-iops${IOPS}-${meterKiB}k`;
  const twin = (doublewrite: boolean, name: string, what: string): InstanceSpec => ({
    name,
    cluster: "ebs-sim",
    doublewrite,
    bufferPoolSize: "8M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: { writeIops: IOPS, meterKiB },
    loads: [write(2, 0)],
    mysqldExporter: false,
    role: what,
  });
  return [
    twin(true, on, role),
    twin(false, `db-dw-off-iops${IOPS}-${meterKiB}k`, `${on} with doublewrite OFF`),
  ];
}

export const FLEET: readonly InstanceSpec[] = [
  {
    name: "db-dw-on-small-bp-1",
    cluster: "orders",
    doublewrite: true,
    bufferPoolSize: "8M",
    flushLogAtTrxCommit: 1,
    performanceSchema: true,
    throttle: null,
    loads: [write(2, 20)],
    mysqldExporter: true,
    role: "write-loaded, data 3x the buffer pool, durable commits",
  },
  {
    name: "db-dw-on-small-bp-2",
    cluster: "orders",
    doublewrite: true,
    bufferPoolSize: "16M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: null,
    loads: [write(2, 40)],
    mysqldExporter: false,
    role: "the busiest unthrottled writer",
  },
  {
    name: "db-dw-off-small-bp-1",
    cluster: "orders",
    doublewrite: false,
    bufferPoolSize: "8M",
    flushLogAtTrxCommit: 1,
    performanceSchema: true,
    throttle: null,
    loads: [write(2, 20)],
    mysqldExporter: false,
    role: "doublewrite-ON twin of db-dw-on-small-bp-1 with doublewrite OFF",
  },
  {
    name: "db-dw-off-small-bp-2",
    cluster: "orders",
    doublewrite: false,
    bufferPoolSize: "16M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: null,
    loads: [write(2, 40)],
    mysqldExporter: false,
    role: "db-dw-on-small-bp-2 with doublewrite OFF",
  },
  {
    name: "db-dw-on-large-bp-1",
    cluster: "catalog",
    doublewrite: true,
    bufferPoolSize: "256M",
    flushLogAtTrxCommit: 1,
    performanceSchema: true,
    throttle: null,
    loads: [write(1, 20)],
    mysqldExporter: false,
    role: "data fits in the buffer pool: few page flushes",
  },
  {
    name: "db-dw-on-large-bp-2",
    cluster: "catalog",
    doublewrite: true,
    bufferPoolSize: "256M",
    flushLogAtTrxCommit: 2,
    performanceSchema: false,
    throttle: null,
    loads: [write(1, 10)],
    mysqldExporter: false,
    role: "performance_schema off: no file-class facts",
  },
  {
    name: "db-dw-off-large-bp-1",
    cluster: "catalog",
    doublewrite: false,
    bufferPoolSize: "256M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: null,
    loads: [write(1, 20)],
    mysqldExporter: true,
    role: "doublewrite OFF on an unverified volume, also scraped by mysqld_exporter",
  },
  {
    name: "db-read-mostly-small-bp-1",
    cluster: "reporting",
    doublewrite: true,
    bufferPoolSize: "16M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: null,
    loads: [read(2, 20), write(1, 1)],
    mysqldExporter: false,
    role: "read-mostly: reads miss the buffer pool, a trickle of writes",
  },
  {
    name: "db-read-mostly-large-bp-1",
    cluster: "reporting",
    doublewrite: true,
    bufferPoolSize: "256M",
    flushLogAtTrxCommit: 1,
    performanceSchema: true,
    throttle: null,
    loads: [read(1, 20)],
    mysqldExporter: false,
    role: "read-only, everything cached",
  },
  {
    name: "db-idle-dw-on-1",
    cluster: "staging",
    doublewrite: true,
    bufferPoolSize: "16M",
    flushLogAtTrxCommit: 1,
    performanceSchema: true,
    throttle: null,
    loads: [],
    mysqldExporter: false,
    role: "idle",
  },
  {
    name: "db-idle-dw-off-1",
    cluster: "staging",
    doublewrite: false,
    bufferPoolSize: "8M",
    flushLogAtTrxCommit: 2,
    performanceSchema: false,
    throttle: null,
    loads: [],
    mysqldExporter: false,
    role: "idle, doublewrite OFF, performance_schema off",
  },
  {
    name: "db-light-dw-on-small-bp-1",
    cluster: "staging",
    doublewrite: true,
    bufferPoolSize: "8M",
    flushLogAtTrxCommit: 2,
    performanceSchema: true,
    throttle: null,
    loads: [write(1, 3)],
    mysqldExporter: false,
    role: "light writes",
  },
  ...ebsSimPair(16, "IOPS-bound, every 16 KiB metered: doublewrite pays one I/O per page"),
  ...ebsSimPair(256, "IOPS-bound, requests up to 256 KiB count as one (EBS-like)"),
  ...SHOP,
];

/**
 * Writes at least one transaction a second on average: the instances expected to flush pages. A replica
 * applies its primary's writes (`specs` finds the primary).
 */
export function writeLoaded(spec: InstanceSpec, specs: readonly InstanceSpec[] = FLEET): boolean {
  const r = spec.replication;
  const source = r?.role === "replica" ? (specs.find((s) => s.name === r.primary) ?? spec) : spec;
  return source.loads.some((l) => l.test === "oltp_write_only" && (l.rate === 0 || l.rate >= 5));
}

/** Idle: no load of its own and not a replica (a replica applies its primary's writes). */
export function idle(spec: InstanceSpec): boolean {
  return spec.loads.length === 0 && spec.replication?.role !== "replica";
}

/** The replicated cluster's members (lab/src/shop.ts runs them and the recorded rollouts). */
export function shopMembers(specs: readonly InstanceSpec[]): {
  primary: InstanceSpec;
  canary: InstanceSpec;
  control: InstanceSpec;
} | null {
  const primary = specs.find((s) => s.replication?.role === "primary");
  const replica = (r: "canary" | "control") =>
    specs.find((s) => s.replication?.role === "replica" && s.replication.rollout === r);
  const canary = replica("canary");
  const control = replica("control");
  return primary && canary && control ? { primary, canary, control } : null;
}

/** The `sysbench ... run` arguments besides the connection. */
export function sysbenchArgs(
  load: LoadSpec,
  seconds: number,
  tables: { readonly tables: number; readonly tableSize: number } = TABLES,
): string[] {
  return [
    load.test,
    `--tables=${tables.tables}`,
    `--table-size=${tables.tableSize}`,
    // Uniform access over more rows than the buffer pool holds: most updates dirty a page not yet dirty.
    "--rand-type=uniform",
    `--threads=${load.threads}`,
    `--rate=${load.rate}`,
    `--time=${seconds}`,
    "--percentile=95",
  ];
}

/** One line per instance for logs and the README table. */
export function describeSpec(s: InstanceSpec): string {
  const vol = s.throttle
    ? `${s.throttle.writeIops} write IOPS, ${s.throttle.meterKiB} KiB metering${s.throttle.backing === "zram" ? " (zram)" : ""}`
    : "uncapped";
  const r = s.replication;
  const load =
    r?.role === "replica"
      ? `replica of ${r.primary}`
      : s.loads.length
        ? s.loads
            .map((l) => `${l.test} ${l.threads}t ${l.rate === 0 ? "unlimited" : `${l.rate} tps`}`)
            .join(" + ")
        : "idle";
  return [
    `doublewrite ${s.doublewrite ? "ON" : "OFF"}`,
    `bp ${s.bufferPoolSize}`,
    `flush_log_at_trx_commit=${s.flushLogAtTrxCommit}`,
    `performance_schema ${s.performanceSchema ? "ON" : "OFF"}`,
    vol,
    ...(s.declaredAtomic ? ["declared atomic for the demo"] : []),
    load,
  ].join(", ");
}

/** The note a declared-for-the-demo torn-write protection carries (the console shows it beside the fact). */
export const DEMO_DECLARATION_NOTE =
  "Declared for the demo: a lab zram volume with ext4 bigalloc 16 KiB clusters, not verified atomic by anyone";

/**
 * What the lab knows about each instance and no probe sees, as a metadata file (docs/schemas/
 * metadata.schema.json) beside the recording: its cluster, its replication role (standalone unless it is
 * in the replicated cluster), the volume's write-IOPS cap and metering unit, and the torn-write
 * protection declared for the demo. The web app and `untorn --metadata` overlay it on the recorded facts.
 */
export function declaredMetadata(specs: readonly InstanceSpec[]): MetadataFile {
  const instances: MetadataFile["instances"] = {};
  for (const s of specs)
    instances[s.name] = {
      cluster: s.cluster,
      role: s.replication?.role ?? "standalone",
      notes: s.role,
      storageClass: s.throttle
        ? `lab ${s.throttle.backing ?? "loop"} volume, ${s.throttle.writeIops} write IOPS, ${s.throttle.meterKiB} KiB metering`
        : "lab volume, uncapped",
      storageFacts: {
        limits: s.throttle
          ? { writeIops: s.throttle.writeIops, ioUnitBytes: s.throttle.meterKiB * 1024 }
          : { metered: false },
        ...(s.declaredAtomic
          ? {
              tornWriteProtection: {
                provider: "other" as const,
                unitBytes: 16384,
                note: DEMO_DECLARATION_NOTE,
                demoOnly: true,
              },
            }
          : {}),
      },
    };
  return { instances };
}
