/**
 * Fleet fixtures for the fake replay: the shapes untorn-exporter reports for MariaDB 10.11.19 (labels as in
 * exporters/untorn-exporter/testdata/servers/mariadb-10.11.19/expected.prom) with rates in the range of the
 * sysbench runs of docs/reference/iops-metering.md §11 (about 1,700 doublewrite pages/s in ~123-page batches, data bytes ×2 with
 * doublewrite on). Recorded-looking, not recorded: the numbers are chosen, not measured.
 */
import type { FakeInstance } from "./fake-api.js";

const MARIADB_SERVER = {
  flavor: "mariadb",
  version: "10.11.19-MariaDB-0+deb12u1",
  version_comment: "Debian 12",
  managed: "none",
};

const innodbConfig = (doublewrite: string) => ({
  doublewrite,
  doublewrite_dir: "",
  flush_method: "O_DIRECT",
  use_atomic_writes: "ON",
  data_file_buffering: "",
  data_file_write_through: "",
  use_fdatasync: "",
  page_size: "16384",
});

const STORAGE = {
  device: "vda1",
  disks: "vda",
  fstype: "ext4",
  mountpoint: "/",
  mount_options: "rw,relatime",
  model: "",
};

const MARIADB_CONFIG = {
  "config.pageSizeBytes": 16384,
  "config.useAtomicWrites": 1,
  "config.writeIoThreads": 4,
  "config.bufferPoolSizeBytes": 8388608,
  "config.ioCapacity": 200,
  "config.ioCapacityMax": 2000,
  "config.flushLogAtTrxCommit": 2,
  "config.redoLogCapacityBytes": 67108864,
  "config.perfSchemaEnabled": 1,
  "storage.datadirVisible": 1,
  "storage.fsBlockSizeBytes": 4096,
  "storage.fsClusterSizeBytes": 4096,
  "storage.logicalBlockSizeBytes": 512,
  "storage.physicalBlockSizeBytes": 512,
  "storage.rotational": 0,
  "storage.writeCacheVolatile": 1,
  "storage.atomicWrite.attributesPresent": 0,
  uptimeSeconds: 3600,
  dblwrMutexInstrumented: 0,
  innodbMetricsDblwrEnabled: 0,
};

/** MariaDB has no doublewrite file instrument: its doublewrite I/O is in system_tablespace (docs/reference/performance-schema.md §5.1). */
const MARIADB_CLASSES = {
  doublewrite: 0,
  data: 1,
  system_tablespace: 1,
  redo: 0,
  undo: 1,
  temp: 1,
  binlog: 1,
  relay_log: 1,
};

function mariadb(
  instance: string,
  doublewrite: boolean,
  load: {
    flushed: number;
    txn: number;
    waitFree: number;
    util: number;
    writeLatency: number;
  },
): FakeInstance {
  const dblwrPages = doublewrite ? load.flushed : 0;
  const dblwrWrites = dblwrPages / 123;
  const dataWrites = load.flushed + dblwrWrites;
  const fsyncs = 1 + load.txn * 0.05 + 10 * dblwrWrites;
  const devWrites = dataWrites + load.txn * 0.2;
  const stat = (avg: number) => ({ avg, p95: avg * 1.3, max: avg * 1.6 });
  return {
    instance,
    info: {
      server: MARIADB_SERVER,
      doublewriteMode: { mode: doublewrite ? "on" : "off" },
      innodbConfig: innodbConfig(doublewrite ? "ON" : "OFF"),
      storageInfo: STORAGE,
    },
    presence: { untorn: 1 },
    numbers: MARIADB_CONFIG,
    classFlags: MARIADB_CLASSES,
    windowed: {
      "rates.dblwrPagesWritten": stat(dblwrPages),
      "rates.dblwrWrites": stat(dblwrWrites),
      "rates.dataWrites": stat(dataWrites),
      "rates.dataWrittenBytes": stat((load.flushed + dblwrPages) * 16384),
      "rates.dataReads": stat(load.flushed * 0.4),
      "rates.dataReadBytes": stat(load.flushed * 0.4 * 16384),
      "rates.dataFsyncs": stat(fsyncs),
      "rates.pagesWritten": stat(load.flushed),
      "rates.bufferPoolPagesFlushed": stat(load.flushed),
      "rates.bufferPoolWaitFree": stat(load.waitFree),
      "rates.logWrites": stat(load.txn * 0.9),
      "rates.logWaits": 0,
      "rates.osLogWrittenBytes": stat(load.txn * 1800),
      "rates.commits": stat(load.txn),
      "rates.handlerCommits": stat(load.txn * 5),
      "rates.queries": stat(load.txn * 7),
      "rates.rows": {
        inserted: stat(load.txn),
        updated: stat(load.txn * 2),
        deleted: stat(load.txn),
        read: stat(load.txn * 14),
      },
      "rates.dblwrMutexWaitSeconds": 0,
      "gauges.checkpointAgeBytes": {
        avg: 2.6e7 * Math.min(1, load.util),
        p95: 4.4e7 * Math.min(1, load.util),
        max: 5e7,
      },
      "gauges.checkpointMaxAgeBytes": 53640439,
      "gauges.dirtyPages": stat(300),
      "gauges.bufferPoolPages": 507,
      "gauges.pendingFsyncs": 0,
      "fileIo.writesPerSecond": {
        data: stat(load.flushed),
        system_tablespace: stat(dblwrWrites + 2),
        doublewrite: 0,
      },
      "fileIo.writeBytesPerSecond": {
        data: stat(load.flushed * 16384),
        system_tablespace: stat(dblwrPages * 16384 + 32768),
      },
      "fileIo.writeSecondsPerSecond": {
        data: stat(load.flushed * 5e-5),
        system_tablespace: stat(dblwrWrites * 4e-4),
      },
      "fileIo.miscPerSecond": { data: stat(fsyncs * 0.6), system_tablespace: stat(fsyncs * 0.4) },
      "fileIo.miscSecondsPerSecond": {
        data: stat(fsyncs * 0.6 * 0.002),
        system_tablespace: stat(fsyncs * 0.4 * 0.003),
      },
      "device.readIops": stat(load.flushed * 0.4),
      "device.writeIops": stat(devWrites),
      "device.readBytesPerSecond": stat(load.flushed * 0.4 * 16384),
      "device.writeBytesPerSecond": stat((load.flushed + dblwrPages) * 16384 + load.txn * 1800),
      "device.utilisationRatio": {
        avg: load.util,
        p95: Math.min(1, load.util * 1.1),
        max: Math.min(1, load.util * 1.2),
      },
      "device.readSecondsPerSecond": stat(load.flushed * 0.4 * 2e-4),
      "device.writeSecondsPerSecond": stat(devWrites * load.writeLatency),
      "device.flushesPerSecond": stat(fsyncs),
      "device.flushSecondsPerSecond": stat(fsyncs * 0.004),
      "device.ioInProgress": stat(load.util * 8),
    },
    charts: {
      "doublewrite pages": dblwrPages,
      "data pages flushed": load.flushed,
      "misc latency": { data: 0.002, system_tablespace: 0.003 },
      "write IOPS": devWrites,
      utilisation: load.util,
      transactions: load.txn,
      fsyncs,
    },
  };
}

/** Doublewrite on, 8 MiB buffer pool, heavy sysbench write load. */
export const DB_ON_LOADED = mariadb("db-on:9105", true, {
  flushed: 1700,
  txn: 320,
  waitFree: 45,
  util: 0.92,
  writeLatency: 0.004,
});

/** Doublewrite off, same load: no doublewrite pages at all. */
export const DB_OFF_LOADED = mariadb("db-off:9105", false, {
  flushed: 1900,
  txn: 360,
  waitFree: 30,
  util: 0.85,
  writeLatency: 0.003,
});

/** Doublewrite on, no load. */
export const DB_IDLE = mariadb("db-idle:9105", true, {
  flushed: 0.2,
  txn: 0.05,
  waitFree: 0,
  util: 0.01,
  writeLatency: 0.0005,
});

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
