/**
 * Fleet fixtures for the fake replay: the shapes untorn-exporter reports (labels as in
 * exporters/untorn-exporter/testdata/servers/mariadb-10.11.19/expected.prom) with chosen loads, storage
 * and server sizes. Recorded-looking, not recorded: the relations follow the MariaDB 10.11 sysbench runs
 * of docs/reference/iops-metering.md §11 (one doublewrite page per flushed page, ~123-page batches, about
 * 10 fsyncs per batch, data bytes ×2 with doublewrite on); the numbers are chosen, not measured.
 */
import type { FakeInstance, FakeStat } from "./fake-api.js";

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
  /** The server's size (default: a 1 GiB buffer pool and redo log, up a day). */
  readonly server?: ServerProfile;
}

/** A server's size: the numbers it changes and the gauges its buffer pool and redo log bound. */
export interface ServerProfile {
  /** Numbers, by spec id, that differ from numbersOf's (the default server's). */
  readonly numbers: Readonly<Record<string, number>>;
  readonly bufferPoolPages: number;
  readonly dirtyPages: number;
  readonly checkpointMaxAgeBytes: number;
  /** avg and p95 at full device utilisation (they scale with it), and max. */
  readonly checkpointAgeBytes: { readonly avg: number; readonly p95: number; readonly max: number };
}

const DEFAULT_SERVER: ServerProfile = {
  numbers: {},
  bufferPoolPages: 65536,
  dirtyPages: 3000,
  checkpointMaxAgeBytes: 1e9,
  checkpointAgeBytes: { avg: 5e8, p95: 8.5e8, max: 9e8 },
};

/**
 * The exporter's MariaDB 10.11.19 test server (values of
 * exporters/untorn-exporter/testdata/servers/mariadb-10.11.19/expected.prom): 8 MiB buffer pool, 64 MiB
 * redo log, on a virtual disk with 512-byte sectors.
 */
const TEST_SERVER: ServerProfile = {
  numbers: {
    "config.bufferPoolSizeBytes": 8388608,
    "config.ioCapacity": 200,
    "config.ioCapacityMax": 2000,
    "config.flushLogAtTrxCommit": 2,
    "config.redoLogCapacityBytes": 67108864,
    "storage.physicalBlockSizeBytes": 512,
    uptimeSeconds: 3600,
  },
  bufferPoolPages: 507,
  dirtyPages: 300,
  checkpointMaxAgeBytes: 53640439,
  checkpointAgeBytes: { avg: 2.6e7, p95: 4.4e7, max: 5e7 },
};

const stat = (avg: number) => ({ avg, p95: avg * 1.3, max: avg * 1.6 });

/** MariaDB has no doublewrite file instrument: its doublewrite I/O is in system_tablespace (docs/reference/performance-schema.md §5.1). */
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
function innodbWindowed(l: Load, d: Derived, s: ServerProfile) {
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
      avg: s.checkpointAgeBytes.avg * Math.min(1, l.util),
      p95: s.checkpointAgeBytes.p95 * Math.min(1, l.util),
      max: s.checkpointAgeBytes.max,
    },
    "gauges.checkpointMaxAgeBytes": s.checkpointMaxAgeBytes,
    "gauges.dirtyPages": stat(s.dirtyPages),
    "gauges.bufferPoolPages": s.bufferPoolPages,
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

/** part ÷ whole, 0 when nothing was written (as the catalog's ratio reads an idle server). */
const shareOf = (part: number, whole: number) => (whole > 0 ? part / whole : 0);

const chartsOf = (l: Load, d: Derived) => ({
  "doublewrite pages": d.dblwrPages,
  // The sparklines' share series, from the same counters as deviceWindowed and innodbWindowed.
  "doublewrite share of device writes": shareOf(
    d.dblwrPages * 16384,
    (l.flushed + d.dblwrPages) * 16384 + l.txn * 1800,
  ),
  "doublewrite share of InnoDB writes": shareOf(d.dblwrPages * 16384, (l.flushed + d.dblwrPages) * 16384),
  "data pages flushed": l.flushed,
  "misc latency": { data: 0.002, system_tablespace: 0.003 },
  "write IOPS": d.devWrites,
  utilisation: l.util,
  transactions: l.txn,
  fsyncs: d.fsyncs,
});

/** An instance of untorn-exporter's answers under load `o.load`, on the storage and server `o` names. */
export function fakeInstance(instance: string, o: FakeOptions): FakeInstance {
  const flavor = o.flavor ?? "mariadb";
  const dw = o.doublewrite ?? true;
  const atomic = o.storage === "atomic";
  const server = o.server ?? DEFAULT_SERVER;
  const d = derivedOf(o.load, dw);
  return {
    instance,
    info: infoOf(flavor, dw, atomic),
    presence: { untorn: 1 },
    // Spread over numbersOf's keys, the profile's keep their place in the answers.
    numbers: { ...numbersOf(flavor, atomic), ...server.numbers },
    classFlags: CLASSES_MARIADB,
    windowed: {
      ...innodbWindowed(o.load, d, server),
      ...fileIoWindowed(o.load, d),
      ...deviceWindowed(o.load, d),
    },
    ...(o.charts === false ? {} : { charts: chartsOf(o.load, d) }),
  };
}

/** Heavy sysbench write load, near the device's limit. */
export const HEAVY: Load = { flushed: 1700, txn: 320, waitFree: 45, util: 0.92, writeLatency: 0.004 };
/** No load. */
export const IDLE: Load = { flushed: 0.2, txn: 0.05, waitFree: 0, util: 0.01, writeLatency: 0.0005 };

/**
 * An instance of the test server. Its answers also hold a zero series for the doublewrite file class,
 * which MariaDB does not instrument (flag 0): the facts must leave it out.
 */
function onTestServer(instance: string, doublewrite: boolean, load: Load): FakeInstance {
  const x = fakeInstance(instance, { doublewrite, load, server: TEST_SERVER });
  const w = x.windowed ?? {};
  const writes = w["fileIo.writesPerSecond"] as Readonly<Record<string, FakeStat>>;
  return { ...x, windowed: { ...w, "fileIo.writesPerSecond": { ...writes, doublewrite: 0 } } };
}

/** Doublewrite on, 8 MiB buffer pool, heavy sysbench write load. */
export const DB_ON_LOADED = onTestServer("db-on:9105", true, HEAVY);

/**
 * Doublewrite on under the same load, on a device other writers share: the device wrote four times the
 * instance's own bytes, so doublewrite's share of the device says nothing and InnoDB's share stands in.
 */
export const DB_SHARED_DEVICE: FakeInstance = (() => {
  const x = onTestServer("db-shared:9105", true, HEAVY);
  const w = x.windowed ?? {};
  const bytes = w["device.writeBytesPerSecond"] as FakeStat;
  const times4 = Object.fromEntries(Object.entries(bytes).map(([k, v]) => [k, (v as number) * 4]));
  return { ...x, windowed: { ...w, "device.writeBytesPerSecond": times4 as FakeStat } };
})();

/** Doublewrite off, same load: no doublewrite pages at all. */
export const DB_OFF_LOADED = onTestServer("db-off:9105", false, {
  flushed: 1900,
  txn: 360,
  waitFree: 30,
  util: 0.85,
  writeLatency: 0.003,
});

/** Doublewrite on, no load. */
export const DB_IDLE = onTestServer("db-idle:9105", true, IDLE);

/** A MySQL 8.0.35 server seen only through mysqld_exporter (the catalog's fallback forms). */
export const MYSQL_FALLBACK_ONLY: FakeInstance = {
  instance: "mysql-legacy:9104",
  info: {
    server: { flavor: "mysql", version: "8.0.35", managed: "unknown" },
    doublewriteMode: { mode: "on" },
  },
  presence: { fallback: 1 },
  numbers: {
    "config.pageSizeBytes": 16384,
    "config.doublewritePages": 4,
    "config.bufferPoolSizeBytes": 134217728,
    "config.flushLogAtTrxCommit": 1,
    "config.ioCapacity": 200,
    "config.perfSchemaEnabled": 1,
    uptimeSeconds: 86400,
  },
  windowed: {
    "rates.dblwrPagesWritten": 420,
    "rates.dblwrWrites": 105,
    "rates.dataWrites": 540,
    "rates.dataWrittenBytes": 840 * 16384,
    "rates.dataFsyncs": 220,
    "rates.bufferPoolPagesFlushed": 420,
    "rates.bufferPoolWaitFree": 0,
    "rates.commits": 150,
    "rates.osLogWrittenBytes": 300000,
    "gauges.checkpointAgeBytes": 1.2e8,
    "gauges.checkpointMaxAgeBytes": 1.6e9,
    "fileIo.writesPerSecond": { doublewrite: 105, data: 420 },
    "fileIo.miscSecondsPerSecond": { doublewrite: 0.05, data: 0.1 },
    "device.writeIops": 900,
  },
};

/** untorn-exporter is scraped but cannot reach its server. */
export const DB_DOWN: FakeInstance = { instance: "db-down:9105", presence: { untorn: 0 }, sampledSteps: 0 };

export const FIXTURE_FLEET: readonly FakeInstance[] = [
  DB_ON_LOADED,
  DB_OFF_LOADED,
  DB_IDLE,
  MYSQL_FALLBACK_ONLY,
  DB_DOWN,
];
