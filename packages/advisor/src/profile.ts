/**
 * Profile: the derived indicators of what doublewrite costs on one instance, each with its unit,
 * formula and the facts it lacked. A missing input makes the indicator null, never 0.
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import { ioModeOf, protection } from "./config-state.js";
import type { FileClass, InstanceFacts, WindowStat } from "./facts.js";

export type Unit =
  | "ratio"
  | "pages"
  | "pages/s"
  | "ops/s"
  | "bytes/s"
  | "bytes"
  | "bytes/txn"
  | "ops/txn"
  | "fsyncs/txn"
  | "txn/s"
  | "waits/s"
  | "seconds"
  | "seconds/s"
  | "count";

export const INDICATOR_IDS = [
  "transactionRate",
  "pagesFlushedRate",
  "dblwrPagesRate",
  "amplification",
  "avgBatchPages",
  "batchCapacityPages",
  "batchFill",
  "dblwrBytesRate",
  "innodbWriteBytesRate",
  "dblwrShareOfInnodbWriteBytes",
  "dblwrShareOfWriteOps",
  "dblwrShareOfFileIoWait",
  "fsyncsPerTxn",
  "writeBytesPerTxn",
  "writeOpsPerTxn",
  "dblwrBytesPerTxn",
  "deviceWriteIops",
  "deviceWriteBytesRate",
  "deviceUtilisation",
  "deviceWriteLatency",
  "deviceFlushLatency",
  "dblwrShareOfDeviceWriteBytes",
  "dblwrShareOfDeviceWriteIops",
  "iopsLimitShare",
  "bandwidthLimitShare",
  "freePageWaitsRate",
  "logWaitsRate",
  "checkpointAgeShare",
  "dblwrFlushWaitsRate",
  "dblwrMutexWaitRate",
  "pendingFsyncs",
  "writeShareOfRowOps",
] as const;
export type IndicatorId = (typeof INDICATOR_IDS)[number];

export interface Indicator {
  readonly id: IndicatorId;
  readonly label: string;
  readonly unit: Unit;
  /** From window averages; null when an input is missing or the denominator is 0. */
  readonly value: number | null;
  /** From p95 of the inputs where the indicator has a peak meaning (utilisation, limits, checkpoint age). */
  readonly peak: number | null;
  /** The formula, in fact names. */
  readonly basis: string;
  /** Fact paths that were missing (empty when the value is known or the denominator was 0). */
  readonly missing: readonly string[];
  readonly note?: string;
}

export interface Profile {
  readonly indicators: { readonly [K in IndicatorId]: Indicator };
  /** Data-quality and interpretation notes (e.g. MDEV-31124 correction applied). */
  readonly notes: readonly string[];
}

type Input = { readonly path: string; readonly stat: WindowStat | null | undefined };
type Scalar = { readonly path: string; readonly value: number | null | undefined };

const avgOf = (s: WindowStat | null | undefined) => (s == null ? null : s.avg);
const p95Of = (s: WindowStat | null | undefined) => (s == null ? null : (s.p95 ?? s.max ?? null));

/** Sums stats that are all present; null if any is missing. */
function sumAvg(inputs: readonly Input[]): number | null {
  let total = 0;
  for (const i of inputs) {
    const a = avgOf(i.stat);
    if (a === null) return null;
    total += a;
  }
  return total;
}

const missingOf = (inputs: readonly (Input | Scalar)[]) =>
  inputs.filter((i) => ("stat" in i ? i.stat == null : i.value == null)).map((i) => i.path);

/** a / b, or null when an input is missing, b is 0, or the quotient overflows (subnormal b). */
function div(a: number | null, b: number | null): number | null {
  if (a === null || b === null || b === 0) return null;
  const q = a / b;
  return Number.isFinite(q) ? q : null;
}

const clamp01 = (x: number | null) => (x === null ? null : Math.min(1, Math.max(0, x)));

export function buildProfile(facts: InstanceFacts, caps: Capabilities): Profile {
  const w = facts.workload;
  const r = w?.rates;
  const g = w?.gauges;
  const d = w?.device;
  const io = w?.fileIo;
  const limits = facts.storage?.limits;
  const pageSize = facts.config.pageSizeBytes ?? null;
  const notes: string[] = [];
  const out = {} as Record<IndicatorId, Indicator>;

  const put = (
    id: IndicatorId,
    label: string,
    unit: Unit,
    basis: string,
    inputs: readonly (Input | Scalar)[],
    value: number | null,
    peak: number | null = null,
    note?: string,
  ) => {
    const missing = value === null ? missingOf(inputs) : [];
    const zeroDenominator = value === null && missing.length === 0;
    out[id] = {
      id,
      label,
      unit,
      value,
      peak,
      basis,
      missing,
      ...(note !== undefined
        ? { note }
        : zeroDenominator
          ? { note: "denominator was 0 in the window: undefined, not 0" }
          : {}),
    };
  };

  const S = (path: string, stat: WindowStat | null | undefined): Input => ({ path, stat });
  const V = (path: string, value: number | null | undefined): Scalar => ({ path, value });

  // Transactions: Handler_commit counts autocommit statements that Com_commit misses (catalog commits help).
  const txnInput = r?.handlerCommits
    ? S("workload.rates.handlerCommits", r.handlerCommits)
    : S("workload.rates.commits", r?.commits);
  const txn = avgOf(txnInput.stat);
  put(
    "transactionRate",
    "Transactions",
    "txn/s",
    txnInput.path.endsWith("handlerCommits") ? "Handler_commit/s" : "Com_commit/s",
    [txnInput],
    txn,
  );

  const flushedInput = r?.bufferPoolPagesFlushed
    ? S("workload.rates.bufferPoolPagesFlushed", r.bufferPoolPagesFlushed)
    : S("workload.rates.pagesWritten", r?.pagesWritten);
  const flushed = avgOf(flushedInput.stat);
  put(
    "pagesFlushedRate",
    "Data pages flushed",
    "pages/s",
    flushedInput.path.endsWith("Flushed") ? "Innodb_buffer_pool_pages_flushed/s" : "Innodb_pages_written/s",
    [flushedInput],
    flushed,
  );

  const dblwrPagesIn = S("workload.rates.dblwrPagesWritten", r?.dblwrPagesWritten);
  const dblwrWritesIn = S("workload.rates.dblwrWrites", r?.dblwrWrites);
  const dblwrPages = avgOf(dblwrPagesIn.stat);
  const dblwrWrites = avgOf(dblwrWritesIn.stat);
  put(
    "dblwrPagesRate",
    "Doublewrite pages",
    "pages/s",
    "Innodb_dblwr_pages_written/s",
    [dblwrPagesIn],
    dblwrPages,
  );

  put(
    "amplification",
    "Doublewrite amplification",
    "ratio",
    "Innodb_dblwr_pages_written / pages flushed (1 = every flushed page written twice)",
    [dblwrPagesIn, flushedInput],
    div(dblwrPages, flushed),
  );

  put(
    "avgBatchPages",
    "Pages per doublewrite write",
    "pages",
    "Innodb_dblwr_pages_written / Innodb_dblwr_writes",
    [dblwrPagesIn, dblwrWritesIn],
    div(dblwrPages, dblwrWrites),
  );

  // Batch capacity: innodb_doublewrite_pages on 8.0.20+ (docs/reference/mysql.md §1.4, §1.6); the legacy area is two
  // extents of 64 pages at 16 KiB (docs/reference/versions.md §0, docs/reference/mariadb.md §2.1). Other page sizes for the legacy area are not
  // established in docs/reference, so the capacity stays unknown there.
  let capacity: number | null = null;
  let capacityBasis = "";
  const capInputs: Scalar[] = [];
  if (caps.doublewritePagesVariable) {
    capInputs.push(V("config.doublewritePages", facts.config.doublewritePages));
    capacity = facts.config.doublewritePages ?? null;
    capacityBasis = "innodb_doublewrite_pages";
    if (capacity === 0) {
      // 0 is replaced at startup by innodb_write_io_threads (docs/reference/mysql.md §1.4).
      capInputs.push(V("config.writeIoThreads", facts.config.writeIoThreads));
      capacity = facts.config.writeIoThreads ?? null;
      capacityBasis = "innodb_doublewrite_pages=0 means innodb_write_io_threads";
    } else if (capacity === null && caps.defaultDoublewritePages !== null) {
      // Not collected: assume the version's default (innodb_write_io_threads on 8.0.20-8.3, 128 on 8.4+,
      // docs/reference/mysql.md §1.4), unless the observed batches are larger than it, which proves it was changed.
      const assumed =
        caps.defaultDoublewritePages === "write_io_threads"
          ? (facts.config.writeIoThreads ?? null)
          : caps.defaultDoublewritePages;
      if (caps.defaultDoublewritePages === "write_io_threads")
        capInputs.push(V("config.writeIoThreads", facts.config.writeIoThreads));
      const observed = out.avgBatchPages.value;
      if (assumed !== null && (observed === null || observed <= assumed * 1.05)) {
        capacity = assumed;
        capacityBasis =
          caps.defaultDoublewritePages === "write_io_threads"
            ? "innodb_doublewrite_pages not collected: assumed the 8.0.20-8.3 default, innodb_write_io_threads"
            : "innodb_doublewrite_pages not collected: assumed the 8.4+ default, 128";
      }
    }
  } else {
    capInputs.push(V("config.pageSizeBytes", pageSize));
    capacity = pageSize === 16384 ? 128 : null;
    capacityBasis = "legacy system-tablespace area: 2 extents x 64 pages at 16 KiB";
  }
  put("batchCapacityPages", "Doublewrite batch capacity", "pages", capacityBasis, capInputs, capacity);

  const avgBatch = out.avgBatchPages.value;
  put(
    "batchFill",
    "Doublewrite batch fill",
    "ratio",
    `pages per doublewrite write / batch capacity (${capacityBasis})`,
    [dblwrPagesIn, dblwrWritesIn, ...capInputs],
    div(avgBatch, capacity),
  );

  const pageIn = V("config.pageSizeBytes", pageSize);
  const dblwrBytes = dblwrPages === null || pageSize === null ? null : dblwrPages * pageSize;
  put(
    "dblwrBytesRate",
    "Doublewrite bytes",
    "bytes/s",
    "Innodb_dblwr_pages_written/s x innodb_page_size",
    [dblwrPagesIn, pageIn],
    dblwrBytes,
  );

  // Innodb_data_written counts doublewrite pages as 1 byte on MDEV-31124 releases (docs/reference/status-counters.md §4).
  const dataWrittenIn = S("workload.rates.dataWrittenBytes", r?.dataWrittenBytes);
  let innodbBytes = avgOf(dataWrittenIn.stat);
  if (caps.dataWrittenUndercountsDoublewrite && innodbBytes !== null) {
    if (dblwrPages === null || pageSize === null) innodbBytes = null;
    else {
      innodbBytes += (pageSize - 1) * dblwrPages;
      notes.push(
        "Innodb_data_written corrected for MDEV-31124: + (innodb_page_size - 1) x Innodb_dblwr_pages_written (docs/reference/status-counters.md §4).",
      );
    }
  }
  put(
    "innodbWriteBytesRate",
    "InnoDB data bytes written",
    "bytes/s",
    "Innodb_data_written/s (doublewrite included)",
    [dataWrittenIn, ...(caps.dataWrittenUndercountsDoublewrite ? [dblwrPagesIn, pageIn] : [])],
    innodbBytes,
  );

  put(
    "dblwrShareOfInnodbWriteBytes",
    "Doublewrite share of InnoDB write bytes",
    "ratio",
    "doublewrite bytes / Innodb_data_written",
    [dblwrPagesIn, pageIn, dataWrittenIn],
    clamp01(div(dblwrBytes, innodbBytes)),
  );

  const dataWritesIn = S("workload.rates.dataWrites", r?.dataWrites);
  put(
    "dblwrShareOfWriteOps",
    "Doublewrite share of InnoDB write operations",
    "ratio",
    "Innodb_dblwr_writes / Innodb_data_writes",
    [dblwrWritesIn, dataWritesIn],
    clamp01(div(dblwrWrites, avgOf(dataWritesIn.stat))),
  );

  // File I/O wait: only MySQL/Percona 8.0.20+ has a doublewrite file instrument (docs/reference/performance-schema.md §5.1).
  {
    const classes = io ? (Object.keys(io) as FileClass[]) : [];
    const waitOf = (c: FileClass) => {
      const e = io?.[c];
      const a = avgOf(e?.writeSecondsPerSecond);
      const b = avgOf(e?.miscSecondsPerSecond);
      return a === null && b === null ? null : (a ?? 0) + (b ?? 0);
    };
    let total: number | null = null;
    for (const c of classes) {
      const x = waitOf(c);
      if (x !== null) total = (total ?? 0) + x;
    }
    const dblwrWait = io?.doublewrite ? waitOf("doublewrite") : null;
    let note: string | undefined;
    if (!caps.dblwrFileInstrument)
      note =
        "no doublewrite file instrument on this flavor/version: its I/O is inside system_tablespace (docs/reference/performance-schema.md §5.1)";
    else if (facts.config.perfSchemaEnabled === false) note = "performance_schema is off";
    const value = caps.dblwrFileInstrument ? clamp01(div(dblwrWait, total)) : null;
    put(
      "dblwrShareOfFileIoWait",
      "Doublewrite share of file I/O wait",
      "ratio",
      "(write + misc seconds of the doublewrite class) / (write + misc seconds of all file classes)",
      caps.dblwrFileInstrument
        ? [S("workload.fileIo.doublewrite", io?.doublewrite?.writeSecondsPerSecond)]
        : [V("workload.fileIo (no doublewrite instrument)", null)],
      value,
      null,
      value === null ? note : undefined,
    );
  }

  const fsyncIn = S("workload.rates.dataFsyncs", r?.dataFsyncs);
  put(
    "fsyncsPerTxn",
    "fsyncs per transaction",
    "fsyncs/txn",
    "Innodb_data_fsyncs / transactions",
    [fsyncIn, txnInput],
    div(avgOf(fsyncIn.stat), txn),
  );
  put(
    "writeBytesPerTxn",
    "InnoDB write bytes per transaction",
    "bytes/txn",
    "Innodb_data_written / transactions",
    [dataWrittenIn, txnInput],
    div(innodbBytes, txn),
  );
  put(
    "writeOpsPerTxn",
    "InnoDB write operations per transaction",
    "ops/txn",
    "Innodb_data_writes / transactions",
    [dataWritesIn, txnInput],
    div(avgOf(dataWritesIn.stat), txn),
  );
  put(
    "dblwrBytesPerTxn",
    "Doublewrite bytes per transaction",
    "bytes/txn",
    "doublewrite bytes / transactions",
    [dblwrPagesIn, pageIn, txnInput],
    div(dblwrBytes, txn),
  );

  const devWIn = S("workload.device.writeIops", d?.writeIops);
  const devRIn = S("workload.device.readIops", d?.readIops);
  const devWBIn = S("workload.device.writeBytesPerSecond", d?.writeBytesPerSecond);
  const devRBIn = S("workload.device.readBytesPerSecond", d?.readBytesPerSecond);
  const devWIops = avgOf(devWIn.stat);
  const devWBytes = avgOf(devWBIn.stat);
  put(
    "deviceWriteIops",
    "Device write IOPS",
    "ops/s",
    "writes completed/s on the datadir's device",
    [devWIn],
    devWIops,
    p95Of(devWIn.stat),
  );
  put(
    "deviceWriteBytesRate",
    "Device write bandwidth",
    "bytes/s",
    "bytes written/s on the datadir's device",
    [devWBIn],
    devWBytes,
    p95Of(devWBIn.stat),
  );
  const utilIn = S("workload.device.utilisationRatio", d?.utilisationRatio);
  put(
    "deviceUtilisation",
    "Device utilisation",
    "ratio",
    "share of time with I/O in flight",
    [utilIn],
    clamp01(avgOf(utilIn.stat)),
    clamp01(p95Of(utilIn.stat)),
  );
  const wsIn = S("workload.device.writeSecondsPerSecond", d?.writeSecondsPerSecond);
  put(
    "deviceWriteLatency",
    "Device write latency",
    "seconds",
    "write seconds / writes completed",
    [wsIn, devWIn],
    div(avgOf(wsIn.stat), devWIops),
  );
  const fsIn = S("workload.device.flushSecondsPerSecond", d?.flushSecondsPerSecond);
  const flIn = S("workload.device.flushesPerSecond", d?.flushesPerSecond);
  put(
    "deviceFlushLatency",
    "Device flush latency",
    "seconds",
    "flush seconds / flushes completed",
    [fsIn, flIn],
    div(avgOf(fsIn.stat), avgOf(flIn.stat)),
  );
  put(
    "dblwrShareOfDeviceWriteBytes",
    "Doublewrite share of device write bytes",
    "ratio",
    "doublewrite bytes / device bytes written",
    [dblwrPagesIn, pageIn, devWBIn],
    clamp01(div(dblwrBytes, devWBytes)),
  );
  put(
    "dblwrShareOfDeviceWriteIops",
    "Doublewrite share of device write IOPS",
    "ratio",
    "Innodb_dblwr_writes / device writes completed (each doublewrite write counted as one request)",
    [dblwrWritesIn, devWIn],
    clamp01(div(dblwrWrites, devWIops)),
  );

  // Limits: metered operations are max(requests, bytes / ioUnit) when the provider meters in units.
  {
    const unit = limits?.ioUnitBytes ?? null;
    const metered = (ops: number | null, b: number | null) => {
      if (ops === null) return null;
      if (unit === null || unit === 0 || b === null) return ops;
      return Math.max(ops, b / unit);
    };
    const usesWriteLimit = limits?.writeIops != null;
    const limit = usesWriteLimit ? (limits?.writeIops ?? null) : (limits?.iops ?? null);
    const limIn = V(usesWriteLimit ? "storage.limits.writeIops" : "storage.limits.iops", limit);
    const inputs = usesWriteLimit ? [devWIn, limIn] : [devWIn, devRIn, limIn];
    const opsAvg = usesWriteLimit
      ? metered(devWIops, devWBytes)
      : sumOrNull(metered(devWIops, devWBytes), metered(avgOf(devRIn.stat), avgOf(devRBIn.stat)));
    const opsPeak = usesWriteLimit
      ? metered(p95Of(devWIn.stat), p95Of(devWBIn.stat))
      : sumOrNull(
          metered(p95Of(devWIn.stat), p95Of(devWBIn.stat)),
          metered(p95Of(devRIn.stat), p95Of(devRBIn.stat)),
        );
    const notMetered = limits?.metered === false;
    put(
      "iopsLimitShare",
      "Share of the volume's IOPS limit",
      "ratio",
      `${usesWriteLimit ? "write" : "read + write"} IOPS${unit ? ` metered in ${unit}-byte units` : ""} / limit`,
      inputs,
      notMetered ? null : div(opsAvg, limit),
      notMetered ? null : div(opsPeak, limit),
      notMetered ? "local device without a provider IOPS limit" : undefined,
    );
    const bw = limits?.bandwidthBytesPerSecond ?? null;
    const bwIn = V("storage.limits.bandwidthBytesPerSecond", bw);
    put(
      "bandwidthLimitShare",
      "Share of the volume's bandwidth limit",
      "ratio",
      "(device read + write bytes/s) / bandwidth limit",
      [devWBIn, devRBIn, bwIn],
      notMetered ? null : div(sumAvg([devWBIn, devRBIn]), bw),
      notMetered ? null : div(sumOrNull(p95Of(devWBIn.stat), p95Of(devRBIn.stat)), bw),
      notMetered ? "local device without a provider bandwidth limit" : undefined,
    );
  }

  const waitFreeIn = S("workload.rates.bufferPoolWaitFree", r?.bufferPoolWaitFree);
  put(
    "freePageWaitsRate",
    "Free-page waits",
    "waits/s",
    "Innodb_buffer_pool_wait_free/s",
    [waitFreeIn],
    avgOf(waitFreeIn.stat),
    p95Of(waitFreeIn.stat),
  );

  // Innodb_log_waits: a transaction waited because the log buffer was full and had to be written
  // first (https://dev.mysql.com/doc/refman/8.0/en/server-status-variables.html#statvar_Innodb_log_waits).
  const logWaitsIn = S("workload.rates.logWaits", r?.logWaits);
  put(
    "logWaitsRate",
    "Redo log waits",
    "waits/s",
    "Innodb_log_waits/s",
    [logWaitsIn],
    avgOf(logWaitsIn.stat),
    p95Of(logWaitsIn.stat),
  );

  const ageIn = S("workload.gauges.checkpointAgeBytes", g?.checkpointAgeBytes);
  const maxAgeIn = g?.checkpointMaxAgeBytes
    ? S("workload.gauges.checkpointMaxAgeBytes", g.checkpointMaxAgeBytes)
    : null;
  const capBytes = avgOf(maxAgeIn?.stat) ?? facts.config.redoLogCapacityBytes ?? null;
  const capIn = maxAgeIn ?? V("config.redoLogCapacityBytes", facts.config.redoLogCapacityBytes);
  put(
    "checkpointAgeShare",
    "Checkpoint age share of capacity",
    "ratio",
    maxAgeIn ? "checkpoint age / checkpoint max age" : "checkpoint age / redo log capacity",
    [ageIn, capIn],
    div(avgOf(ageIn.stat), capBytes),
    div(p95Of(ageIn.stat), capBytes),
  );

  const fwIn = S("workload.rates.dblwrFlushWaitEvents", r?.dblwrFlushWaitEvents);
  put(
    "dblwrFlushWaitsRate",
    "Doublewrite flush waits",
    "waits/s",
    "INNODB_METRICS dblwr_flush_wait_events/s",
    [fwIn],
    caps.innodbMetricsDblwr ? avgOf(fwIn.stat) : null,
    caps.innodbMetricsDblwr ? p95Of(fwIn.stat) : null,
    caps.innodbMetricsDblwr
      ? undefined
      : "module_dblwr exists on MySQL/Percona 8.0.20+ only (docs/reference/status-counters.md §4)",
  );
  const mwIn = S("workload.rates.dblwrMutexWaitSeconds", r?.dblwrMutexWaitSeconds);
  put(
    "dblwrMutexWaitRate",
    "Doublewrite mutex wait",
    "seconds/s",
    "doublewrite mutex wait seconds/s (threads waiting on average)",
    [mwIn],
    avgOf(mwIn.stat),
  );
  const pfIn = S("workload.gauges.pendingFsyncs", g?.pendingFsyncs);
  put("pendingFsyncs", "Pending fsyncs", "count", "Innodb_data_pending_fsyncs", [pfIn], avgOf(pfIn.stat));

  const rowIns = [
    S("workload.rates.rowsInserted", r?.rowsInserted),
    S("workload.rates.rowsUpdated", r?.rowsUpdated),
    S("workload.rates.rowsDeleted", r?.rowsDeleted),
  ];
  const rowsReadIn = S("workload.rates.rowsRead", r?.rowsRead);
  const changed = sumAvg(rowIns);
  put(
    "writeShareOfRowOps",
    "Write share of row operations",
    "ratio",
    "rows inserted+updated+deleted / (those + rows read)",
    [...rowIns, rowsReadIn],
    div(changed, sumOrNull(changed, avgOf(rowsReadIn.stat))),
  );

  const prot = protection(facts);
  if (prot === "off" && dblwrPages !== null && dblwrPages > 0)
    notes.push(
      "innodb_doublewrite is off but doublewrite pages were written in the window: the setting changed during the window or the facts disagree.",
    );
  if (
    prot === "full" &&
    dblwrPages === 0 &&
    flushed !== null &&
    flushed > 0 &&
    facts.config.readOnly !== true
  )
    notes.push(
      "Pages were flushed but no doublewrite pages were counted: redo logging may be disabled (8.0.21+), which skips doublewrite (docs/reference/mysql.md §1.6).",
    );
  if (facts.config.readOnly === true)
    notes.push(
      "innodb_read_only=ON: InnoDB skips the doublewrite buffer in read-only mode (docs/reference/mysql.md §1.6).",
    );
  if (!caps.dblwrFileInstrument && io?.system_tablespace)
    notes.push(
      "Doublewrite file I/O is counted under system_tablespace on this flavor/version (docs/reference/performance-schema.md §5.1); byte shares come from Innodb_dblwr_pages_written instead.",
    );
  if (ioModeOf(facts) === "buffered" && d)
    notes.push("Data files use buffered I/O: device write counts include page-cache writeback merging.");

  return { indicators: out, notes };
}

function sumOrNull(a: number | null, b: number | null): number | null {
  return a === null || b === null ? null : a + b;
}
