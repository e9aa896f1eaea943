/**
 * InstanceFacts: everything the advisor knows about one server, already computed by the app layer
 * (Prometheus queries over a window, the store's fleet metadata). The advisor never does I/O.
 *
 * Missing is never zero: every field that can be unknown is optional and nullable, and absent or
 * null means "not known". A measured 0 is a real 0 (e.g. no doublewrite pages written).
 * Units are in the field names: Bytes, Seconds, PerSecond (rates), Ratio (0-1).
 */

import { FILE_CLASSES, type FileClass } from "@untorn/catalog/metrics";
import {
  CLOUDS,
  DOUBLEWRITE_MODES,
  FLAVORS,
  MANAGED_SERVICES,
  REPLICATION_ROLES,
  STORAGE_LAYERS,
  TORN_WRITE_PROVIDERS,
} from "@untorn/vocabulary/words";
import { z } from "zod";

/** File classes of the exporter's perf_schema.file_io collector. */
export { FILE_CLASSES, type FileClass };

const bytes = (d: string) => z.number().int().nonnegative().nullish().describe(d);
const count = (d: string) => z.number().int().nonnegative().nullish().describe(d);
const flag = (d: string) => z.boolean().nullish().describe(d);
const text = (d: string) => z.string().nullish().describe(d);

/**
 * A statistic of one signal over the window: avg is the window average (rate over the window for
 * counters), the quantiles are over per-step values (e.g. 1m rates at each step).
 */
export const windowStatSchema = z
  .object({
    avg: z.number().finite().nonnegative(),
    p50: z.number().finite().nonnegative().nullish(),
    p95: z.number().finite().nonnegative().nullish(),
    p99: z.number().finite().nonnegative().nullish(),
    max: z.number().finite().nonnegative().nullish(),
  })
  .strict()
  .meta({ id: "WindowStat", description: "A signal over the window: avg plus per-step quantiles." });
export type WindowStat = z.infer<typeof windowStatSchema>;

const stat = (d: string) => windowStatSchema.nullish().describe(d);

const identitySchema = z
  .object({
    instance: z.string().min(1).describe("Prometheus instance label (host:port) or the /probe target."),
    cluster: text("Replication cluster name: the scrape label `cluster`, or the store's fleet metadata."),
    role: z.enum(REPLICATION_ROLES).nullish().describe("Replication role; null when unknown."),
    labels: z.record(z.string(), z.string()).nullish().describe("Extra fleet labels (team, env...)."),
  })
  .strict();

const serverSchema = z
  .object({
    flavor: z.enum(FLAVORS),
    version: z
      .string()
      // The same forms @untorn/vocabulary/server-version reads; a pattern keeps it in the JSON Schema.
      .regex(
        /^\d+\.\d+\.(?:\d+|mysql_aurora\.\d+\.\d+)/,
        "must start with major.minor.patch (8.0.35, 8.0.36-28, 10.11.6-MariaDB-log) or be an Aurora version (8.0.mysql_aurora.3.05.2)",
      )
      .describe(
        "Server version as reported by @@version, e.g. 8.0.36-28 (Percona), 10.11.6-MariaDB-log, 8.0.mysql_aurora.3.05.2, 8.0.35-google.",
      ),
    versionComment: text("@@version_comment."),
  })
  .strict();

const platformSchema = z
  .object({
    managed: z
      .enum(MANAGED_SERVICES)
      .nullish()
      .describe("Managed service running the server; none = self-managed; null = unknown."),
    cloud: z.enum(CLOUDS).nullish(),
    instanceClass: text("Instance class or VM type, e.g. db.r6g.2xlarge or i4i.2xlarge."),
    rdsOptimizedWrites: z
      .enum(["auto", "off"])
      .nullish()
      .describe(
        "RDS parameter rds.optimized_writes (not visible from SQL, docs/reference/mysqld-exporter.md §7.4, docs/reference/atomic-storage.md §8.1).",
      ),
    rdsStorageConfigUpgradeNeeded: flag(
      "RDS: the database predates Optimized Writes support and needs a Blue/Green storage upgrade (docs/reference/atomic-storage.md §8.1).",
    ),
    alibaba16kAtomicWrite: flag(
      "ApsaraDB RDS: the 16K atomic write feature is enabled (docs/reference/atomic-storage.md §8.3).",
    ),
  })
  .strict();

const configSchema = z
  .object({
    doublewrite: z.enum(DOUBLEWRITE_MODES).nullish().describe("innodb_doublewrite, normalised."),
    doublewriteRaw: text("innodb_doublewrite as the server printed it (ON, 1, DETECT_ONLY, fast...)."),
    doublewritePages: count("innodb_doublewrite_pages (MySQL/Percona 8.0.20+)."),
    doublewriteFiles: count("innodb_doublewrite_files (MySQL/Percona 8.0.20+)."),
    pageSizeBytes: z
      .union([z.literal(4096), z.literal(8192), z.literal(16384), z.literal(32768), z.literal(65536)], {
        error: "innodb_page_size must be one of 4096, 8192, 16384, 32768, 65536 (bytes)",
      })
      .nullish()
      .describe("innodb_page_size."),
    flushMethod: text("innodb_flush_method (deprecated in MariaDB 11.0)."),
    dataFileBuffering: flag("MariaDB 11.0+ innodb_data_file_buffering (ON = buffered I/O on data files)."),
    dataFileWriteThrough: flag("MariaDB 11.0+ innodb_data_file_write_through."),
    useAtomicWrites: flag("MariaDB innodb_use_atomic_writes."),
    useFdatasync: flag("MySQL innodb_use_fdatasync."),
    writeIoThreads: count("innodb_write_io_threads."),
    bufferPoolSizeBytes: bytes("innodb_buffer_pool_size."),
    bufferPoolInstances: count("innodb_buffer_pool_instances."),
    ioCapacity: count("innodb_io_capacity."),
    ioCapacityMax: count("innodb_io_capacity_max."),
    flushLogAtTrxCommit: z
      .union([z.literal(0), z.literal(1), z.literal(2)])
      .nullish()
      .describe("innodb_flush_log_at_trx_commit."),
    redoLogCapacityBytes: bytes("innodb_redo_log_capacity, or log file size x files in group."),
    perfSchemaEnabled: flag("performance_schema."),
    readOnly: flag(
      "innodb_read_only (doublewrite is skipped in read-only mode, docs/reference/mysql.md §1.6).",
    ),
  })
  .strict();

const atomicWriteSchema = z
  .object({
    attributesPresent: flag(
      "The kernel exposes queue/atomic_write_* (Linux 6.11+). false: the limits below are unknown, not zero.",
    ),
    unitMinBytes: bytes("queue/atomic_write_unit_min_bytes; 0 = the device offers no atomic writes."),
    unitMaxBytes: bytes("queue/atomic_write_unit_max_bytes: largest single atomic write."),
    maxBytes: bytes("queue/atomic_write_max_bytes."),
    boundaryBytes: bytes("queue/atomic_write_boundary_bytes; 0 = no boundary."),
  })
  .strict();

const tornWriteProtectionSchema = z
  .object({
    provider: z.enum(TORN_WRITE_PROVIDERS),
    unitBytes: z
      .number()
      .int()
      .positive()
      .describe("Largest write the provider keeps atomic, aligned to it."),
    source: z
      .enum(["detected", "declared"])
      .describe("detected: read from the device (e.g. nvme id-ns NTWPU); declared: entered by an operator."),
    note: text("Free text: where it was checked, ticket, date."),
    demoOnly: z
      .boolean()
      .optional()
      .describe("true: declared for a demo or a lab only, not verified on real storage."),
  })
  .strict();

const limitsSchema = z
  .object({
    metered: flag(
      "false: a local device with no provider IOPS/bandwidth limit, so the limit signals do not apply.",
    ),
    iops: count("Provisioned or measured IOPS limit of the volume (reads and writes)."),
    writeIops: count("Write IOPS limit when it is separate."),
    bandwidthBytesPerSecond: count("Throughput limit of the volume."),
    ioUnitBytes: count(
      "Largest I/O the provider meters as one operation: 16384 means every 16 KiB page costs one I/O; AWS EBS SSD counts up to 262144 as one (docs/reference/iops-metering.md §11).",
    ),
  })
  .strict();

const storageSchema = z
  .object({
    datadirVisible: flag("The exporter runs beside the server and sees its datadir; false: no host facts."),
    device: text("Block device behind the datadir."),
    disks: z.array(z.string()).nullish().describe("Whole disks under partitions and device-mapper."),
    model: text("Device model string."),
    layers: z
      .array(z.enum(STORAGE_LAYERS))
      .nullish()
      .describe("Layers between the file system and the disks; [] = file system directly on the disk."),
    fsType: text("File system type of the datadir, lower case (ext4, xfs, zfs, btrfs...)."),
    mountOptions: z.array(z.string()).nullish(),
    fsBlockSizeBytes: bytes("File system block size."),
    fsClusterSizeBytes: bytes("ext4 bigalloc cluster size; equals the block size without bigalloc."),
    zfsRecordsizeBytes: bytes("ZFS recordsize of the dataset holding the data files."),
    btrfsNodatacow: flag("btrfs: data files are nodatacow (chattr +C / nodatacow mount)."),
    logicalBlockSizeBytes: bytes("queue/logical_block_size."),
    physicalBlockSizeBytes: bytes("queue/physical_block_size."),
    maxIoBytes: bytes("queue/max_sectors_kb x 1024: larger I/Os are split."),
    dataOffsetAlignmentBytes: bytes(
      "Largest power of two dividing the start offset of the data area (partition, LVM extent) on the disk.",
    ),
    rotational: flag("queue/rotational."),
    writeCacheVolatile: flag("queue/write_cache is 'write back'."),
    atomicWrite: atomicWriteSchema.nullish(),
    tornWriteProtection: tornWriteProtectionSchema
      .nullish()
      .describe("Torn-write protection guaranteed by the platform (cloud volume feature, NVRAM array)."),
    systemTablespaceSameFilesystem: flag(
      "MariaDB: the first system tablespace file (doublewrite area) is on the data files' file system.",
    ),
    limits: limitsSchema.nullish(),
  })
  .strict();

const fileClassIoSchema = z
  .object({
    writesPerSecond: stat("COUNT_WRITE rate."),
    writeBytesPerSecond: stat("SUM_NUMBER_OF_BYTES_WRITE rate."),
    writeSecondsPerSecond: stat("SUM_TIMER_WRITE rate (seconds of write wait per second)."),
    miscPerSecond: stat("COUNT_MISC rate (mostly fsync for InnoDB files)."),
    miscSecondsPerSecond: stat("SUM_TIMER_MISC rate (mostly fsync time)."),
  })
  .strict();

const ratesSchema = z
  .object({
    dblwrPagesWritten: stat("Innodb_dblwr_pages_written, pages/s."),
    dblwrWrites: stat("Innodb_dblwr_writes, /s (MySQL: batches; MariaDB: doublewrite I/Os)."),
    dataWrites: stat("Innodb_data_writes, /s (doublewrite included)."),
    dataWrittenBytes: stat("Innodb_data_written, bytes/s (doublewrite included; see MDEV-31124)."),
    dataReads: stat("Innodb_data_reads, /s."),
    dataReadBytes: stat("Innodb_data_read, bytes/s."),
    dataFsyncs: stat("Innodb_data_fsyncs, /s."),
    pagesWritten: stat("Innodb_pages_written, pages/s."),
    bufferPoolPagesFlushed: stat("Innodb_buffer_pool_pages_flushed, pages/s."),
    bufferPoolWaitFree: stat("Innodb_buffer_pool_wait_free, waits/s."),
    logWrites: stat("Innodb_log_writes, /s."),
    logWaits: stat("Innodb_log_waits, /s."),
    osLogWrittenBytes: stat("Innodb_os_log_written, bytes/s."),
    osLogFsyncs: stat("Innodb_os_log_fsyncs, /s (absent on MariaDB 10.8+)."),
    commits: stat("Client commits, Com_commit + Com_rollback, /s (the catalog's transactions_per_second)."),
    handlerCommits: stat("Handler_commit, /s (autocommit statements included)."),
    queries: stat("Queries, /s."),
    rowsInserted: stat("Innodb_rows_inserted, /s."),
    rowsUpdated: stat("Innodb_rows_updated, /s."),
    rowsDeleted: stat("Innodb_rows_deleted, /s."),
    rowsRead: stat("Innodb_rows_read, /s."),
    dblwrFlushWaitEvents: stat(
      "INNODB_METRICS dblwr_flush_wait_events, /s (module_dblwr must be enabled; null when it is not).",
    ),
    dblwrMutexWaitSeconds: stat("Doublewrite mutex wait time, seconds/s (null when the instrument is off)."),
  })
  .strict();

const gaugesSchema = z
  .object({
    checkpointAgeBytes: stat("Checkpoint age, bytes."),
    checkpointMaxAgeBytes: stat("Checkpoint age at which InnoDB forces flushing / redo capacity, bytes."),
    dirtyPages: stat("Innodb_buffer_pool_pages_dirty."),
    bufferPoolPages: stat("Innodb_buffer_pool_pages_total."),
    pendingFsyncs: stat("Innodb_data_pending_fsyncs."),
  })
  .strict();

const deviceSchema = z
  .object({
    readIops: stat("Device reads completed/s."),
    writeIops: stat("Device writes completed/s."),
    readBytesPerSecond: stat("Device bytes read/s."),
    writeBytesPerSecond: stat("Device bytes written/s."),
    utilisationRatio: stat("Share of time with I/O in flight (0-1); parallel devices can be busy below 1."),
    readSecondsPerSecond: stat("Time spent on reads, seconds/s."),
    writeSecondsPerSecond: stat("Time spent on writes, seconds/s."),
    flushesPerSecond: stat("Cache flush requests completed/s."),
    flushSecondsPerSecond: stat("Time spent on flush requests, seconds/s."),
    ioInProgress: stat("I/Os in flight."),
  })
  .strict();

const workloadSchema = z
  .object({
    windowSeconds: z.number().positive().describe("Length of the window the statistics cover."),
    stepSeconds: z
      .number()
      .positive()
      .nullish()
      .describe("Step of the per-step values behind the quantiles."),
    end: text("End of the window, ISO 8601 (informational)."),
    restarts: count("Server restarts (counter resets) seen in the window."),
    gapRatio: z.number().min(0).max(1).nullish().describe("Share of the window without samples (0-1)."),
    observedSeconds: z
      .number()
      .positive()
      .nullish()
      .describe(
        "Seconds at the end of the window in which a server that started inside it was observed; the window averages of rates are over this time. Absent when the series are as old as the window.",
      ),
    rates: ratesSchema.nullish(),
    gauges: gaugesSchema.nullish(),
    fileIo: z
      .partialRecord(z.enum(FILE_CLASSES), fileClassIoSchema)
      .nullish()
      .describe("performance_schema file I/O per class; a missing class is not instrumented, not zero."),
    device: deviceSchema.nullish().describe("The datadir's block device; null when the exporter is remote."),
  })
  .strict();

export const instanceFactsSchema = z
  .object({
    $schema: z.string().optional().describe("Path or URL of this JSON Schema, for editors."),
    schemaVersion: z.literal(1),
    identity: identitySchema,
    server: serverSchema,
    platform: platformSchema.nullish(),
    config: configSchema,
    storage: storageSchema.nullish(),
    workload: workloadSchema.nullish(),
  })
  .strict()
  .meta({ title: "Untorn InstanceFacts", description: "Input of the Untorn advisor for one server." });

export type InstanceFacts = z.infer<typeof instanceFactsSchema>;
export type InstanceFactsInput = z.input<typeof instanceFactsSchema>;
export type FileClassIo = z.infer<typeof fileClassIoSchema>;

/** Validates untrusted input (CLI files, API bodies); throws a ZodError listing every problem. */
export function parseInstanceFacts(input: unknown): InstanceFacts {
  return instanceFactsSchema.parse(input);
}

export function safeParseInstanceFacts(input: unknown) {
  return instanceFactsSchema.safeParse(input);
}

type Depth = [never, 0, 1, 2, 3, 4];

/**
 * Dotted paths into T, every level included: a WindowStat, an array or a scalar ends a path. D bounds the
 * recursion (InstanceFacts is four levels deep).
 */
type PathsOf<T, D extends number = 5> = [D] extends [never]
  ? never
  : T extends WindowStat | readonly unknown[]
    ? never
    : T extends object
      ? { [K in keyof T & string]-?: K | `${K}.${PathsOf<NonNullable<T[K]>, Depth[D]>}` }[keyof T & string]
      : never;

/**
 * A path of a fact in InstanceFacts, e.g. "workload.rates.dblwrPagesWritten" or "storage.atomicWrite",
 * with `*` standing for any file class under workload.fileIo. Fact sources, the needs of rules, gate
 * checks and indicator groups, and the inputs of indicators name facts by it, so a misspelt or moved
 * path fails typecheck instead of silently reporting nothing.
 */
export type FactPath = PathsOf<InstanceFacts> | `workload.fileIo.*.${keyof FileClassIo & string}`;

/** A fact path with a remark for the reader, e.g. "workload.fileIo (no doublewrite instrument)". */
export type FactPathNote = `${FactPath} (${string})`;
