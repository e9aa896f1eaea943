/**
 * Synthetic untorn-exporter history for tests and the benchmark: OpenMetrics text for
 * `promtool tsdb create-blocks-from openmetrics`, one family at a time, every series contiguous with
 * increasing timestamps (what the backfiller needs). Metric names come from the catalog.
 *
 * The numbers follow the relations measured in docs/reference/iops-metering.md §11 (MariaDB 10.11): with doublewrite on, one
 * doublewrite page per flushed page, batches of ~120 pages, Innodb_data_writes = pages flushed +
 * doublewrite writes, Innodb_data_written = (flushed + doublewrite pages) × 16 KiB, about 10 fsyncs per
 * batch. They are plausible shapes, not measurements of any server.
 */
import { metrics as M, type MetricKey } from "@untorn/catalog/metrics";

export interface SyntheticInstance {
  readonly instance: string;
  readonly flavor: "mariadb" | "mysql";
  readonly version: string;
  readonly doublewrite: boolean;
  /** Buffer pool pages flushed per second. */
  readonly flushedPerSecond: number;
  readonly transactionsPerSecond: number;
  readonly freePageWaitsPerSecond: number;
  /** Device utilisation 0-1. */
  readonly utilisation: number;
  /** Average device write latency, seconds. */
  readonly writeLatencySeconds: number;
  readonly checkpointAgeShare: number;
  readonly bufferPoolBytes: number;
  /** Whole-disk device holding the datadir; atomicUnitBytes 0 = no atomic writes. */
  readonly atomicUnitBytes: number;
  /** Unix seconds at which the counters restart from 0 (a server restart), if any. */
  readonly restartAt?: number;
  /**
   * Unix seconds from which doublewrite is off (with `doublewrite: true` before): a rollout's step.
   * Pair it with `restartAt` for the restart innodb_doublewrite needs.
   */
  readonly doublewriteOffAt?: number;
  /** [from, to) Unix seconds with no samples at all (exporter unreachable). */
  readonly gap?: readonly [number, number];
  /**
   * A replica's replication collector: both threads running, this lag (seconds). Unset = no replication
   * series at all, which the pre-wave gate reads as no data.
   */
  readonly replication?: { readonly lagSeconds: number };
}

export interface HistoryOptions {
  readonly start: number;
  readonly end: number;
  readonly stepSeconds: number;
  /** Seconds between samples of constant configuration series (≤ 300 so a 5 min lookback finds one). */
  readonly slowStepSeconds?: number;
  /** Relative per-step noise on rates (0 = exact constant rates). */
  readonly noise?: number;
  readonly seed?: number;
}

/** Small deterministic PRNG (mulberry32). */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** A mixed fleet: a third idle, some write-heavy with doublewrite on, some off, a few on atomic storage. */
export function syntheticFleet(n: number, seed = 1): SyntheticInstance[] {
  const r = prng(seed);
  const out: SyntheticInstance[] = [];
  const width = String(n).length;
  for (let i = 0; i < n; i++) {
    const kind = r();
    const idle = kind < 0.33;
    const heavy = kind > 0.75;
    const mysql = r() < 0.4;
    const flushed = idle ? r() * 0.5 : heavy ? 1500 + r() * 2500 : 50 + r() * 400;
    out.push({
      instance: `db-${String(i).padStart(width, "0")}`,
      flavor: mysql ? "mysql" : "mariadb",
      version: mysql ? "8.0.35" : "10.11.19-MariaDB",
      doublewrite: r() < 0.85,
      flushedPerSecond: flushed,
      transactionsPerSecond: idle ? r() : flushed / (2 + r() * 4),
      freePageWaitsPerSecond: heavy ? r() * 20 : 0,
      utilisation: idle ? r() * 0.05 : heavy ? 0.7 + r() * 0.29 : 0.1 + r() * 0.4,
      writeLatencySeconds: heavy ? 0.003 + r() * 0.01 : 0.0005 + r() * 0.001,
      checkpointAgeShare: heavy ? 0.5 + r() * 0.4 : r() * 0.3,
      bufferPoolBytes: 2 ** (27 + Math.floor(r() * 8)),
      atomicUnitBytes: r() < 0.1 ? 16384 : 0,
    });
  }
  return out;
}

type Series = {
  readonly labels: Readonly<Record<string, string>>;
  /** Value at time t (gauges) or rate at time t (counters, integrated per step). */
  readonly at: (t: number) => number;
  /** Samples only in [from, until): an info series whose labels change at a moment. */
  readonly from?: number;
  readonly until?: number;
};

interface Family {
  readonly key: MetricKey;
  readonly slow?: boolean;
  readonly series: (x: SyntheticInstance) => readonly Series[];
}

const PAGE = 16384;
const CLASSES = ["doublewrite", "data", "system_tablespace", "redo", "undo", "temp", "binlog", "relay_log"];
const K = (v: number) => () => v;
const one = (at: (t: number) => number): Series[] => [{ labels: {}, at }];

/** Whether doublewrite is on at time t. */
const dwOn = (x: SyntheticInstance, t: number) =>
  x.doublewrite && (x.doublewriteOffAt === undefined || t < x.doublewriteOffAt);

function derived(x: SyntheticInstance, t: number) {
  const dblwrPages = dwOn(x, t) ? x.flushedPerSecond : 0;
  const dblwrWrites = dblwrPages / 120;
  const dataWrites = x.flushedPerSecond + dblwrWrites;
  const fsyncs = 2 + x.transactionsPerSecond * 0.1 + 10 * dblwrWrites;
  const deviceWrites = dataWrites + x.transactionsPerSecond * 0.5;
  return { dblwrPages, dblwrWrites, dataWrites, fsyncs, deviceWrites };
}

const FAMILIES: readonly Family[] = [
  // ---- counters (per-second rates) ----
  { key: "dblwrPagesWritten", series: (x) => one((t) => derived(x, t).dblwrPages) },
  { key: "dblwrWrites", series: (x) => one((t) => derived(x, t).dblwrWrites) },
  { key: "bufferPoolPagesFlushed", series: (x) => one(K(x.flushedPerSecond)) },
  { key: "pagesWritten", series: (x) => one(K(x.flushedPerSecond)) },
  { key: "dataWrites", series: (x) => one((t) => derived(x, t).dataWrites) },
  {
    key: "dataWrittenBytes",
    series: (x) => one((t) => (x.flushedPerSecond + derived(x, t).dblwrPages) * PAGE),
  },
  { key: "dataReads", series: (x) => one(K(x.flushedPerSecond * 0.3)) },
  { key: "dataReadBytes", series: (x) => one(K(x.flushedPerSecond * 0.3 * PAGE)) },
  { key: "dataFsyncs", series: (x) => one((t) => derived(x, t).fsyncs) },
  { key: "bufferPoolWaitFree", series: (x) => one(K(x.freePageWaitsPerSecond)) },
  { key: "logWrites", series: (x) => one(K(x.transactionsPerSecond)) },
  { key: "logWaits", series: () => one(K(0)) },
  { key: "osLogWrittenBytes", series: (x) => one(K(x.transactionsPerSecond * 2000)) },
  { key: "commits", series: (x) => one(K(x.transactionsPerSecond)) },
  { key: "rollbacks", series: () => one(K(0)) },
  { key: "handlerCommits", series: (x) => one(K(x.transactionsPerSecond * 5)) },
  { key: "queries", series: (x) => one(K(x.transactionsPerSecond * 7)) },
  {
    key: "rowOperations",
    series: (x) =>
      (
        [
          ["inserted", 1],
          ["updated", 2],
          ["deleted", 1],
          ["read", 20],
        ] as const
      ).map(([operation, k]) => ({ labels: { operation }, at: K(x.transactionsPerSecond * k) })),
  },
  ...(["fileWrites", "fileWriteBytes", "fileWriteSeconds", "fileMisc", "fileMiscSeconds"] as const).map(
    (key): Family => ({
      key,
      series: (x) => {
        // MariaDB counts doublewrite I/O under the system tablespace; MySQL 8.0.20+ has its own class.
        const dblwrClass = x.flavor === "mariadb" ? "system_tablespace" : "doublewrite";
        const per: Record<string, number> = {
          fileWrites: 1,
          fileWriteBytes: PAGE,
          fileWriteSeconds: x.writeLatencySeconds,
          fileMisc: 0.1,
          fileMiscSeconds: 0.1 * x.writeLatencySeconds * 2,
        };
        const k = per[key]!;
        return [
          { labels: { class: "data" }, at: K(x.flushedPerSecond * k) },
          { labels: { class: dblwrClass }, at: (t) => (derived(x, t).dblwrPages + 1) * k },
        ];
      },
    }),
  ),
  { key: "dblwrMutexWaits", series: (x) => [{ labels: { mutex: mutexOf(x) }, at: K(0) }] },
  { key: "dblwrMutexWaitSeconds", series: (x) => [{ labels: { mutex: mutexOf(x) }, at: K(0) }] },
  { key: "storageReads", series: (x) => one(K(x.flushedPerSecond * 0.3)) },
  { key: "storageWrites", series: (x) => one((t) => derived(x, t).deviceWrites) },
  { key: "storageReadBytes", series: (x) => one(K(x.flushedPerSecond * 0.3 * PAGE)) },
  {
    key: "storageWrittenBytes",
    series: (x) =>
      one((t) => (x.flushedPerSecond + derived(x, t).dblwrPages) * PAGE + x.transactionsPerSecond * 2000),
  },
  { key: "storageReadSeconds", series: (x) => one(K(x.flushedPerSecond * 0.3 * 0.0002)) },
  {
    key: "storageWriteSeconds",
    series: (x) => one((t) => derived(x, t).deviceWrites * x.writeLatencySeconds),
  },
  { key: "storageIoSeconds", series: (x) => one(K(x.utilisation)) },
  { key: "storageFlushes", series: (x) => one((t) => derived(x, t).fsyncs) },
  { key: "storageFlushSeconds", series: (x) => one((t) => derived(x, t).fsyncs * 0.0008) },

  // ---- gauges ----
  { key: "mysqlUp", series: () => one(K(1)) },
  { key: "uptime", series: () => one((t) => t) },
  {
    key: "checkpointAgeBytes",
    series: (x) => one((t) => Math.round(x.checkpointAgeShare * 5e8 * (1 + 0.2 * Math.sin(t / 300)))),
  },
  { key: "checkpointMaxAgeBytes", slow: true, series: () => one(K(5e8)) },
  {
    key: "bufferPoolPagesDirty",
    series: (x) => one((t) => Math.round((x.bufferPoolBytes / PAGE) * 0.1 * (1.1 + Math.sin(t / 200)))),
  },
  { key: "bufferPoolPagesTotal", slow: true, series: (x) => one(K(x.bufferPoolBytes / PAGE)) },
  { key: "dataPendingFsyncs", series: () => one(K(0)) },
  { key: "storageIoInProgress", series: (x) => one(K(x.utilisation > 0.6 ? 4 : 0)) },
  { key: "replicationIoThreadRunning", series: (x) => (x.replication ? one(K(1)) : []) },
  { key: "replicationSqlThreadRunning", series: (x) => (x.replication ? one(K(1)) : []) },
  {
    key: "replicationLagSeconds",
    series: (x) => (x.replication ? one(K(x.replication.lagSeconds)) : []),
  },

  // ---- configuration and storage (constant) ----
  {
    key: "serverInfo",
    slow: true,
    series: (x) => [
      {
        labels: { flavor: x.flavor, version: x.version, version_comment: "synthetic", managed: "none" },
        at: K(1),
      },
    ],
  },
  {
    key: "innodbConfigInfo",
    slow: true,
    series: (x) => {
      const labels = (doublewrite: boolean) => ({
        doublewrite: doublewrite ? "ON" : "OFF",
        doublewrite_dir: "",
        flush_method: "O_DIRECT",
        use_atomic_writes: x.flavor === "mariadb" ? "ON" : "",
        data_file_buffering: "",
        data_file_write_through: "",
        use_fdatasync: "",
        page_size: String(PAGE),
      });
      if (!x.doublewrite || x.doublewriteOffAt === undefined)
        return [{ labels: labels(x.doublewrite), at: K(1) }];
      return [
        { labels: labels(true), at: K(1), until: x.doublewriteOffAt },
        { labels: labels(false), at: K(1), from: x.doublewriteOffAt },
      ];
    },
  },
  {
    key: "doublewriteMode",
    slow: true,
    series: (x) =>
      ["on", "off"].map((mode) => ({
        labels: { mode },
        at: (t: number) => ((mode === "on") === dwOn(x, t) ? 1 : 0),
      })),
  },
  { key: "doublewriteEnabled", slow: true, series: (x) => one((t) => (dwOn(x, t) ? 1 : 0)) },
  { key: "pageSizeBytes", slow: true, series: () => one(K(PAGE)) },
  { key: "doublewritePages", slow: true, series: (x) => (x.flavor === "mysql" ? one(K(4)) : []) },
  { key: "bufferPoolSizeBytes", slow: true, series: (x) => one(K(x.bufferPoolBytes)) },
  { key: "writeIoThreads", slow: true, series: () => one(K(4)) },
  { key: "ioCapacity", slow: true, series: () => one(K(2000)) },
  { key: "ioCapacityMax", slow: true, series: () => one(K(4000)) },
  { key: "flushLogAtTrxCommit", slow: true, series: () => one(K(1)) },
  { key: "useAtomicWrites", slow: true, series: (x) => (x.flavor === "mariadb" ? one(K(1)) : []) },
  { key: "redoLogCapacityBytes", slow: true, series: () => one(K(5.12e8)) },
  { key: "perfSchemaEnabled", slow: true, series: () => one(K(1)) },
  {
    key: "fileIoInstrumented",
    slow: true,
    series: (x) =>
      CLASSES.map((cls) => ({
        labels: { class: cls },
        at: K(cls === "doublewrite" && x.flavor === "mariadb" ? 0 : cls === "redo" ? 0 : 1),
      })),
  },
  { key: "dblwrMutexInstrumented", slow: true, series: (x) => [{ labels: { mutex: mutexOf(x) }, at: K(0) }] },
  { key: "innodbMetricsDblwrEnabled", slow: true, series: () => one(K(0)) },
  { key: "storageDatadirVisible", slow: true, series: () => one(K(1)) },
  {
    key: "storageInfo",
    slow: true,
    series: () => [
      {
        labels: {
          device: "nvme1n1",
          disks: "nvme1n1",
          fstype: "ext4",
          mountpoint: "/var/lib/mysql",
          mount_options: "rw,noatime",
          model: "synthetic",
        },
        at: K(1),
      },
    ],
  },
  { key: "storageFsBlockSize", slow: true, series: () => one(K(4096)) },
  { key: "storageFsClusterSize", slow: true, series: (x) => one(K(x.atomicUnitBytes ? 16384 : 4096)) },
  { key: "storageLogicalBlockSize", slow: true, series: () => one(K(512)) },
  { key: "storagePhysicalBlockSize", slow: true, series: () => one(K(4096)) },
  { key: "storageAtomicWriteSupported", slow: true, series: () => one(K(1)) },
  { key: "storageAtomicWriteUnitMin", slow: true, series: (x) => one(K(x.atomicUnitBytes ? 512 : 0)) },
  { key: "storageAtomicWriteUnitMax", slow: true, series: (x) => one(K(x.atomicUnitBytes)) },
  { key: "storageAtomicWriteMax", slow: true, series: (x) => one(K(x.atomicUnitBytes)) },
  { key: "storageAtomicWriteBoundary", slow: true, series: () => one(K(0)) },
  { key: "storageWriteCache", slow: true, series: () => one(K(0)) },
  { key: "storageRotational", slow: true, series: () => one(K(0)) },
];

function mutexOf(x: SyntheticInstance): string {
  return x.flavor === "mariadb" ? "buf_dblwr_mutex" : "dblwr_mutex";
}

function labelText(instance: string, labels: Readonly<Record<string, string>>): string {
  let s = `instance="${instance}"`;
  for (const [k, v] of Object.entries(labels)) s += `,${k}="${v}"`;
  return s;
}

/** Resolution of the written values: counters advance in steps of this much (e.g. 1 ms of a timer). */
export const VALUE_RESOLUTION = 0.001;

const fmt = (v: number) => String(Math.round(v / VALUE_RESOLUTION) * VALUE_RESOLUTION);

/** Number of samples history() writes, to size a benchmark before generating it. */
export function sampleCount(instances: readonly SyntheticInstance[], o: HistoryOptions): number {
  const fast = Math.floor((o.end - o.start) / o.stepSeconds) + 1;
  const slow = Math.floor((o.end - o.start) / (o.slowStepSeconds ?? o.stepSeconds)) + 1;
  let n = 0;
  for (const f of FAMILIES) for (const x of instances) n += f.series(x).length * (f.slow ? slow : fast);
  return n;
}

/**
 * OpenMetrics text in chunks of about `chunkBytes`, ending with `# EOF`. Counters integrate their rate
 * step by step (with noise when asked), restart from 0 at `restartAt`, and skip samples inside `gap`.
 */
export function* history(
  instances: readonly SyntheticInstance[],
  o: HistoryOptions,
  chunkBytes = 1 << 20,
): Generator<string> {
  const rand = prng(o.seed ?? 7);
  const noise = o.noise ?? 0;
  let buf: string[] = [];
  let size = 0;
  const push = (line: string) => {
    buf.push(line);
    size += line.length;
  };
  for (const f of FAMILIES) {
    const def = M[f.key];
    const counter = def.type === "counter";
    const family = counter ? def.name.replace(/_total$/, "") : def.name;
    push(`# TYPE ${family} ${counter ? "counter" : "gauge"}\n`);
    const step = f.slow ? (o.slowStepSeconds ?? o.stepSeconds) : o.stepSeconds;
    for (const x of instances) {
      for (const s of f.series(x)) {
        const prefix = `${def.name}{${labelText(x.instance, s.labels)}} `;
        let total = 0;
        for (let t = o.start; t <= o.end; t += step) {
          if (counter) {
            if (x.restartAt !== undefined && t >= x.restartAt && t - step < x.restartAt) total = 0;
            else if (t > o.start) total += s.at(t) * step * (1 + (noise ? (rand() * 2 - 1) * noise : 0));
          }
          if (x.gap && t >= x.gap[0] && t < x.gap[1]) continue;
          if ((s.from !== undefined && t < s.from) || (s.until !== undefined && t >= s.until)) continue;
          const value = counter
            ? total
            : f.key === "uptime" && x.restartAt !== undefined && t >= x.restartAt
              ? t - x.restartAt
              : s.at(t);
          push(
            `${prefix}${fmt(counter ? Math.round(total / VALUE_RESOLUTION) * VALUE_RESOLUTION : value)} ${t}\n`,
          );
        }
        if (size >= chunkBytes) {
          yield buf.join("");
          buf = [];
          size = 0;
        }
      }
    }
  }
  push("# EOF\n");
  yield buf.join("");
}
