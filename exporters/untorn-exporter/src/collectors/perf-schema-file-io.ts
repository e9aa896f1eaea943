// Source: performance_schema.file_summary_by_event_name, file_summary_by_instance, setup_instruments
// (docs/reference/performance-schema.md §5.1, §5.2, §5.3).
import { FILE_CLASSES, type FileClass, metrics } from "@untorn/catalog/metrics";
import { type Collector, parseNumeric, type Row } from "../collector.js";

const DATA_EVENT = "wait/io/file/innodb/innodb_data_file";

/** Instruments that map to one class each. MariaDB has no innodb_dblwr_file: its doublewrite is in ibdata1. */
const EVENT_CLASS: Readonly<Record<string, FileClass>> = {
  "wait/io/file/innodb/innodb_dblwr_file": "doublewrite",
  [DATA_EVENT]: "data",
  "wait/io/file/innodb/innodb_log_file": "redo",
  "wait/io/file/innodb/innodb_temp_file": "temp",
  "wait/io/file/sql/binlog": "binlog",
  "wait/io/file/sql/relaylog": "relay_log",
};
const EVENTS = Object.keys(EVENT_CLASS);
const IN_LIST = EVENTS.map((e) => `'${e}'`).join(", ");

const COLUMNS =
  "COUNT_READ, SUM_TIMER_READ, SUM_NUMBER_OF_BYTES_READ, COUNT_WRITE, SUM_TIMER_WRITE, " +
  "SUM_NUMBER_OF_BYTES_WRITE, COUNT_MISC, SUM_TIMER_MISC";

const SQL_BY_EVENT = `SELECT EVENT_NAME, ${COLUMNS} FROM performance_schema.file_summary_by_event_name WHERE EVENT_NAME IN (${IN_LIST})`;

// innodb_data_file also covers the system tablespace, undo tablespaces and (MariaDB) ibtmp1: split them
// off by file name. These files stay open, so their per-instance counters do not vanish with table closes.
const SQL_BY_INSTANCE = `SELECT FILE_NAME, ${COLUMNS} FROM performance_schema.file_summary_by_instance WHERE EVENT_NAME = '${DATA_EVENT}' AND (FILE_NAME LIKE '%ibdata%' OR FILE_NAME LIKE '%ibtmp%' OR FILE_NAME LIKE '%undo%' OR FILE_NAME LIKE '%.ibu')`;

const SQL_INSTRUMENTS = `SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments WHERE NAME IN (${IN_LIST})`;

const PICO = 1e12;

/** Timers stay in picoseconds (integers) until emitted, so the data-class remainder has no float noise. */
export interface IoTotals {
  reads: number;
  readPico: number;
  readBytes: number;
  writes: number;
  writePico: number;
  writeBytes: number;
  misc: number;
  miscPico: number;
}

const zero = (): IoTotals => ({
  reads: 0,
  readPico: 0,
  readBytes: 0,
  writes: 0,
  writePico: 0,
  writeBytes: 0,
  misc: 0,
  miscPico: 0,
});

function totalsOf(r: Row): IoTotals {
  const n = (c: string) => parseNumeric(r[c]) ?? 0;
  return {
    reads: n("COUNT_READ"),
    readPico: n("SUM_TIMER_READ"),
    readBytes: n("SUM_NUMBER_OF_BYTES_READ"),
    writes: n("COUNT_WRITE"),
    writePico: n("SUM_TIMER_WRITE"),
    writeBytes: n("SUM_NUMBER_OF_BYTES_WRITE"),
    misc: n("COUNT_MISC"),
    miscPico: n("SUM_TIMER_MISC"),
  };
}

function add(a: IoTotals, b: IoTotals): void {
  for (const k of Object.keys(a) as (keyof IoTotals)[]) a[k] += b[k];
}

/** Which class a data-file instance belongs to, by its base name. */
export function dataFileClass(fileName: string): FileClass {
  const base = fileName.split(/[\\/]/).pop() ?? fileName;
  if (/^ibdata\d*$/.test(base)) return "system_tablespace";
  if (/^ibtmp\d*$/.test(base)) return "temp";
  if (/^undo_?\d+$/.test(base) || base.endsWith(".ibu")) return "undo";
  return "data";
}

/** Splits innodb_data_file totals into classes; `data` is what remains after the named files. */
export function classify(byEvent: Row[], dataInstances: Row[]): Map<FileClass, IoTotals> {
  const out = new Map<FileClass, IoTotals>();
  const get = (c: FileClass) => {
    let t = out.get(c);
    if (!t) {
      t = zero();
      out.set(c, t);
    }
    return t;
  };
  for (const r of byEvent) {
    const cls = EVENT_CLASS[String(r["EVENT_NAME"])];
    if (cls) add(get(cls), totalsOf(r));
  }
  const data = out.get("data");
  if (data) {
    for (const r of dataInstances) {
      const cls = dataFileClass(String(r["FILE_NAME"]));
      if (cls === "data") continue;
      const t = totalsOf(r);
      add(get(cls), t);
      for (const k of Object.keys(data) as (keyof IoTotals)[]) data[k] = Math.max(0, data[k] - t[k]);
    }
  }
  return out;
}

const FIELDS: readonly (keyof IoTotals)[] = Object.keys(zero()) as (keyof IoTotals)[];

/** What the collector remembers per target: the data-file event totals and the `data` class it emitted. */
export interface DataMemory {
  eventTotal: IoTotals;
  data: IoTotals;
}

/**
 * The `data` class is the innodb_data_file total minus the named files (ibdata, undo, ibtmp), read by two
 * statements a moment apart: the named files' counters move in between, so the remainder alone can step
 * back under write load, which Prometheus' rate() reads as a counter reset. Every field is kept at or
 * above what was last emitted, until the event total itself falls (the server restarted, or someone ran
 * TRUNCATE TABLE on the summary): then the remainder is taken as it is and the memory starts again.
 */
export function monotonicData(
  prev: DataMemory | undefined,
  eventTotal: IoTotals,
  remainder: IoTotals,
): DataMemory {
  const reset = !prev || FIELDS.some((k) => eventTotal[k] < prev.eventTotal[k]);
  if (reset) return { eventTotal: { ...eventTotal }, data: { ...remainder } };
  const data = zero();
  for (const k of FIELDS) data[k] = Math.max(prev.data[k], remainder[k]);
  return { eventTotal: { ...eventTotal }, data };
}

const MEMORY_KEY = "perf_schema.file_io:data";

export const perfSchemaFileIo: Collector = {
  name: "perf_schema.file_io",
  description:
    "Reads, writes and misc (≈fsync) operations, seconds and bytes per file class from performance_schema.",
  defaultEnabled: true,
  async collect({ db, emit, server, memory }) {
    if (!server.performanceSchema) {
      for (const cls of FILE_CLASSES) emit.set(metrics.fileIoInstrumented, 0, { class: cls });
      return;
    }
    // The named data files first, then the event totals: the remainder can then only read high by what
    // those files wrote in between, never low, and monotonicData keeps it from stepping back.
    const instruments = await db.query(SQL_INSTRUMENTS);
    const dataInstances = await db.query(SQL_BY_INSTANCE);
    const byEvent = await db.query(SQL_BY_EVENT);
    const on = new Set(
      instruments
        .filter((r) => String(r["ENABLED"]) === "YES" && String(r["TIMED"]) === "YES")
        .map((r) => String(r["NAME"])),
    );
    const dataOn = on.has(DATA_EVENT);
    for (const cls of FILE_CLASSES) {
      const events = EVENTS.filter((e) => EVENT_CLASS[e] === cls);
      const viaData = cls === "system_tablespace" || cls === "undo" || (cls === "temp" && dataOn);
      const instrumented = events.some((e) => on.has(e)) || (viaData && dataOn);
      emit.set(metrics.fileIoInstrumented, instrumented ? 1 : 0, { class: cls });
    }
    const classes = classify(byEvent, dataInstances);
    const remainder = classes.get("data");
    const eventRow = byEvent.find((r) => String(r["EVENT_NAME"]) === DATA_EVENT);
    if (remainder && eventRow) {
      const kept = monotonicData(
        memory.get(MEMORY_KEY) as DataMemory | undefined,
        totalsOf(eventRow),
        remainder,
      );
      memory.set(MEMORY_KEY, kept);
      classes.set("data", kept.data);
    }
    for (const [cls, t] of classes) {
      const labels = { class: cls };
      emit.set(metrics.fileReads, t.reads, labels);
      emit.set(metrics.fileReadSeconds, t.readPico / PICO, labels);
      emit.set(metrics.fileReadBytes, t.readBytes, labels);
      emit.set(metrics.fileWrites, t.writes, labels);
      emit.set(metrics.fileWriteSeconds, t.writePico / PICO, labels);
      emit.set(metrics.fileWriteBytes, t.writeBytes, labels);
      emit.set(metrics.fileMisc, t.misc, labels);
      emit.set(metrics.fileMiscSeconds, t.miscPico / PICO, labels);
    }
  },
};
