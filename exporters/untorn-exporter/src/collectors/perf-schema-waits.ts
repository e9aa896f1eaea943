// Source: performance_schema.events_waits_summary_global_by_event_name and setup_instruments
// (docs/reference/performance-schema.md §5.1, §5.3).
import { metrics } from "@untorn/catalog/metrics";
import { type Collector, parseNumeric } from "../collector.js";
import { atLeast } from "../version.js";

// MySQL 8.0.20+ renamed the mutex; MySQL <= 8.0.19 and MariaDB keep buf_dblwr_mutex.
const MUTEXES = ["wait/synch/mutex/innodb/dblwr_mutex", "wait/synch/mutex/innodb/buf_dblwr_mutex"] as const;
const IN_LIST = MUTEXES.map((m) => `'${m}'`).join(", ");

const SQL_INSTRUMENTS = `SELECT NAME, ENABLED, TIMED FROM performance_schema.setup_instruments WHERE NAME IN (${IN_LIST})`;
const SQL_WAITS = `SELECT EVENT_NAME, COUNT_STAR, SUM_TIMER_WAIT FROM performance_schema.events_waits_summary_global_by_event_name WHERE EVENT_NAME IN (${IN_LIST})`;

const PICO = 1e12;
const short = (name: string) => name.split("/").pop() ?? name;

export const perfSchemaWaits: Collector = {
  name: "perf_schema.waits",
  description: "Doublewrite mutex waits and whether their instrument is enabled (off by default).",
  defaultEnabled: true,
  async collect({ db, emit, server }) {
    if (!server.performanceSchema) {
      const expected =
        server.flavor !== "mariadb" && atLeast(server.versionNumber, [8, 0, 20]) ? MUTEXES[0] : MUTEXES[1];
      emit.set(metrics.dblwrMutexInstrumented, 0, { mutex: short(expected) });
      return;
    }
    const [instruments, waits] = await Promise.all([db.query(SQL_INSTRUMENTS), db.query(SQL_WAITS)]);
    for (const r of instruments) {
      const on = String(r["ENABLED"]) === "YES" && String(r["TIMED"]) === "YES";
      emit.set(metrics.dblwrMutexInstrumented, on ? 1 : 0, { mutex: short(String(r["NAME"])) });
    }
    for (const r of waits) {
      const labels = { mutex: short(String(r["EVENT_NAME"])) };
      emit.set(metrics.dblwrMutexWaits, parseNumeric(r["COUNT_STAR"]), labels);
      const pico = parseNumeric(r["SUM_TIMER_WAIT"]);
      emit.set(metrics.dblwrMutexWaitSeconds, pico === undefined ? undefined : pico / PICO, labels);
    }
  },
};
