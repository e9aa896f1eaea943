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
interface IoTotals {
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

export const perfSchemaFileIo: Collector = {
  name: "perf_schema.file_io",
  description:
    "Reads, writes and misc (≈fsync) operations, seconds and bytes per file class from performance_schema.",
  defaultEnabled: true,
  async collect({ db, emit, server }) {
    if (!server.performanceSchema) {
      for (const cls of FILE_CLASSES) emit.set(metrics.fileIoInstrumented, 0, { class: cls });
      return;
    }
    const [instruments, byEvent, dataInstances] = await Promise.all([
      db.query(SQL_INSTRUMENTS),
      db.query(SQL_BY_EVENT),
      db.query(SQL_BY_INSTANCE),
    ]);
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
    for (const [cls, t] of classify(byEvent, dataInstances)) {
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
