/**
 * Fleet members for tests and the benchmark: untorn-exporter's answer shapes (through @untorn/fleet's
 * fakeReplay) with chosen loads and storage. Plausible, not measured: the relations follow the MariaDB
 * 10.11 sysbench runs of docs/reference/iops-metering.md §11 (one doublewrite page per flushed page, ~123-page batches, about
 * 10 fsyncs per batch, data bytes ×2 with doublewrite on).
 */
import type { FakeInstance } from "./fake-api.js";

export interface Load {
  /** Buffer pool pages flushed per second. */
  readonly flushed: number;
  readonly txn: number;
  readonly waitFree: number;
  /** Device utilisation 0-1. */
  readonly util: number;
  /** Average device write latency, seconds. */
  readonly writeLatency: number;
}

export interface FakeOptions {
  readonly flavor?: "mariadb" | "mysql";
  readonly doublewrite?: boolean;
  readonly load: Load;
  /**
   * "atomic": NVMe with a 16 KiB atomic write unit, ext4 bigalloc 16 KiB clusters, O_DIRECT (the
   * hardware path of the safety gate verifies); "plain": 4 KiB blocks on a kernel without atomic-write
   * attributes (unverified).
   */
  readonly storage?: "atomic" | "plain";
  readonly charts?: boolean;
}

const stat = (avg: number) => ({ avg, p95: avg * 1.3, max: avg * 1.6 });

const CLASSES_MARIADB = {
  doublewrite: 0,
  data: 1,
  system_tablespace: 1,
  redo: 0,
  undo: 1,
  temp: 1,
  binlog: 1,
  relay_log: 1,
};

/** The per-second rates a load implies (see the module comment for the relations). */
interface Derived {
  readonly dblwrPages: number;
  readonly dblwrWrites: number;
  readonly dataWrites: number;
  readonly fsyncs: number;
  readonly devWrites: number;
}

function derivedOf(l: Load, dw: boolean): Derived {
  const dblwrPages = dw ? l.flushed : 0;
  const dblwrWrites = dblwrPages / 123;
  const dataWrites = l.flushed + dblwrWrites;
  return {
    dblwrPages,
    dblwrWrites,
    dataWrites,
    fsyncs: 1 + l.txn * 0.05 + 10 * dblwrWrites,
    devWrites: dataWrites + l.txn * 0.2,
  };
}

const SERVERS = {
  mariadb: {
    flavor: "mariadb",
    version: "10.11.19-MariaDB-0+deb12u1",
    version_comment: "Debian 12",
    managed: "none",
  },
  mysql: {
    flavor: "mysql",
    version: "8.0.35",
    version_comment: "MySQL Community Server - GPL",
    managed: "none",
  },
} as const;

const STORAGE_INFO = {
  atomic: {
    device: "nvme0n1",
    disks: "nvme0n1",
    fstype: "ext4",
    mountpoint: "/data",
    mount_options: "rw,noatime",
    model: "",
  },
  plain: {
    device: "vda1",
    disks: "vda",
    fstype: "ext4",
    mountpoint: "/",
    mount_options: "rw,relatime",
    model: "",
  },
} as const;

function infoOf(flavor: "mariadb" | "mysql", dw: boolean, atomic: boolean) {
  return {
    server: { ...SERVERS[flavor] },
    doublewriteMode: { mode: dw ? "on" : "off" },
    innodbConfig: {
      doublewrite: dw ? "ON" : "OFF",
      doublewrite_dir: "",
      flush_method: "O_DIRECT",
      use_atomic_writes: flavor === "mariadb" ? "ON" : "",
      data_file_buffering: "",
      data_file_write_through: "",
      use_fdatasync: "",
      page_size: "16384",
    },
    storageInfo: { ...STORAGE_INFO[atomic ? "atomic" : "plain"] },
  };
}

function numbersOf(flavor: "mariadb" | "mysql", atomic: boolean) {
  return {
    "config.pageSizeBytes": 16384,
    ...(flavor === "mariadb" ? { "config.useAtomicWrites": 1 } : { "config.doublewritePages": 128 }),
    "config.writeIoThreads": 4,
    "config.bufferPoolSizeBytes": 1073741824,
    "config.ioCapacity": 2000,
    "config.ioCapacityMax": 4000,
    "config.flushLogAtTrxCommit": 1,
    "config.redoLogCapacityBytes": 1073741824,
    "config.perfSchemaEnabled": 1,
    "storage.datadirVisible": 1,
    "storage.fsBlockSizeBytes": 4096,
    "storage.fsClusterSizeBytes": atomic ? 16384 : 4096,
    "storage.logicalBlockSizeBytes": atomic ? 4096 : 512,
    "storage.physicalBlockSizeBytes": 4096,
    "storage.rotational": 0,
    "storage.writeCacheVolatile": atomic ? 0 : 1,
    "storage.atomicWrite.attributesPresent": atomic ? 1 : 0,
    ...(atomic
      ? {
          "storage.atomicWrite.unitMinBytes": 4096,
          "storage.atomicWrite.unitMaxBytes": 16384,
          "storage.atomicWrite.maxBytes": 16384,
          "storage.atomicWrite.boundaryBytes": 0,
        }
      : {}),
    uptimeSeconds: 86_400,
    dblwrMutexInstrumented: 0,
    innodbMetricsDblwrEnabled: 0,
  };
}

/** The server's status counters and gauges over the window. */
function innodbWindowed(l: Load, d: Derived) {
  return {
    "rates.dblwrPagesWritten": stat(d.dblwrPages),
    "rates.dblwrWrites": stat(d.dblwrWrites),
    "rates.dataWrites": stat(d.dataWrites),
    "rates.dataWrittenBytes": stat((l.flushed + d.dblwrPages) * 16384),
    "rates.dataReads": stat(l.flushed * 0.4),
    "rates.dataReadBytes": stat(l.flushed * 0.4 * 16384),
    "rates.dataFsyncs": stat(d.fsyncs),
    "rates.pagesWritten": stat(l.flushed),
    "rates.bufferPoolPagesFlushed": stat(l.flushed),
    "rates.bufferPoolWaitFree": stat(l.waitFree),
    "rates.logWrites": stat(l.txn * 0.9),
    "rates.logWaits": 0,
    "rates.osLogWrittenBytes": stat(l.txn * 1800),
    "rates.commits": stat(l.txn),
    "rates.handlerCommits": stat(l.txn * 5),
    "rates.queries": stat(l.txn * 7),
    "rates.rows": {
      inserted: stat(l.txn),
      updated: stat(l.txn * 2),
      deleted: stat(l.txn),
      read: stat(l.txn * 14),
    },
    "rates.dblwrMutexWaitSeconds": 0,
    "gauges.checkpointAgeBytes": {
      avg: 5e8 * Math.min(1, l.util),
      p95: 8.5e8 * Math.min(1, l.util),
      max: 9e8,
    },
    "gauges.checkpointMaxAgeBytes": 1e9,
    "gauges.dirtyPages": stat(3000),
    "gauges.bufferPoolPages": 65536,
    "gauges.pendingFsyncs": 0,
  };
}

/** performance_schema file I/O by file class (the doublewrite buffer is in the system tablespace). */
function fileIoWindowed(l: Load, d: Derived) {
  return {
    "fileIo.writesPerSecond": { data: stat(l.flushed), system_tablespace: stat(d.dblwrWrites + 2) },
    "fileIo.writeBytesPerSecond": {
      data: stat(l.flushed * 16384),
      system_tablespace: stat(d.dblwrPages * 16384 + 32768),
    },
    "fileIo.writeSecondsPerSecond": {
      data: stat(l.flushed * 5e-5),
      system_tablespace: stat(d.dblwrWrites * 4e-4),
    },
    "fileIo.miscPerSecond": { data: stat(d.fsyncs * 0.6), system_tablespace: stat(d.fsyncs * 0.4) },
    "fileIo.miscSecondsPerSecond": {
      data: stat(d.fsyncs * 0.6 * 0.002),
      system_tablespace: stat(d.fsyncs * 0.4 * 0.003),
    },
  };
}

/** The datadir device's I/O counters. */
function deviceWindowed(l: Load, d: Derived) {
  return {
    "device.readIops": stat(l.flushed * 0.4),
    "device.writeIops": stat(d.devWrites),
    "device.readBytesPerSecond": stat(l.flushed * 0.4 * 16384),
    "device.writeBytesPerSecond": stat((l.flushed + d.dblwrPages) * 16384 + l.txn * 1800),
    "device.utilisationRatio": {
      avg: l.util,
      p95: Math.min(1, l.util * 1.1),
      max: Math.min(1, l.util * 1.2),
    },
    "device.readSecondsPerSecond": stat(l.flushed * 0.4 * 2e-4),
    "device.writeSecondsPerSecond": stat(d.devWrites * l.writeLatency),
    "device.flushesPerSecond": stat(d.fsyncs),
    "device.flushSecondsPerSecond": stat(d.fsyncs * 0.004),
    "device.ioInProgress": stat(l.util * 8),
  };
}

const chartsOf = (l: Load, d: Derived) => ({
  "doublewrite pages": d.dblwrPages,
  "data pages flushed": l.flushed,
  "misc latency": { data: 0.002, system_tablespace: 0.003 },
  "write IOPS": d.devWrites,
  utilisation: l.util,
  transactions: l.txn,
  fsyncs: d.fsyncs,
});

export function fakeInstance(instance: string, o: FakeOptions): FakeInstance {
  const flavor = o.flavor ?? "mariadb";
  const dw = o.doublewrite ?? true;
  const atomic = o.storage === "atomic";
  const d = derivedOf(o.load, dw);
  return {
    instance,
    info: infoOf(flavor, dw, atomic),
    presence: { untorn: 1 },
    numbers: numbersOf(flavor, atomic),
    classFlags: CLASSES_MARIADB,
    windowed: { ...innodbWindowed(o.load, d), ...fileIoWindowed(o.load, d), ...deviceWindowed(o.load, d) },
    ...(o.charts === false ? {} : { charts: chartsOf(o.load, d) }),
  };
}

export const HEAVY: Load = { flushed: 1700, txn: 320, waitFree: 45, util: 0.92, writeLatency: 0.004 };
export const MEDIUM: Load = { flushed: 300, txn: 80, waitFree: 0, util: 0.35, writeLatency: 0.0008 };
export const IDLE: Load = { flushed: 0.2, txn: 0.05, waitFree: 0, util: 0.01, writeLatency: 0.0005 };

/** A small mixed fleet: write-bound on plain and on atomic storage, doublewrite off, idle, MySQL. */
export const SMALL_FLEET: readonly FakeInstance[] = [
  fakeInstance("db-heavy-plain:9105", { load: HEAVY }),
  fakeInstance("db-heavy-atomic:9105", { load: HEAVY, storage: "atomic" }),
  fakeInstance("db-off:9105", { load: HEAVY, doublewrite: false }),
  fakeInstance("db-idle:9105", { load: IDLE }),
  fakeInstance("mysql-medium:9105", { load: MEDIUM, flavor: "mysql" }),
  { instance: "db-down:9105", presence: { untorn: 0 }, sampledSteps: 0 },
];
