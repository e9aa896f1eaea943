// Source: information_schema.INNODB_METRICS, subsystem dblwr (MySQL 8.0.20+; docs/reference/status-counters.md §4).
import { metrics } from "@untorn/catalog/metrics";
import { type Collector, parseNumeric } from "../collector.js";

// MySQL has a STATUS column ('enabled'); MariaDB 10.5+ an ENABLED column (1/0). SELECT * covers both.
const SQL = "SELECT * FROM information_schema.INNODB_METRICS WHERE SUBSYSTEM = 'dblwr'";

export const innodbMetricsDblwr: Collector = {
  name: "innodb_metrics.dblwr",
  description:
    "dblwr_flush_wait_events and the other dblwr INNODB_METRICS counters (MySQL 8.0.20+, module_dblwr).",
  defaultEnabled: true,
  async collect({ db, emit }) {
    const rows = await db.query(SQL);
    let enabled = false;
    for (const r of rows) {
      const status = r["STATUS"] ?? r["ENABLED"];
      const on = String(status).toLowerCase() === "enabled" || parseNumeric(status) === 1;
      // module_dblwr itself may show as a row (MONITOR_NONE in srv0mon.cc): only the dblwr_* counters count.
      if (!on || !String(r["NAME"]).startsWith("dblwr_")) continue;
      enabled = true;
      const name = String(r["NAME"]).replace(/^dblwr_/, "");
      emit.set(metrics.innodbMetricsDblwr, parseNumeric(r["COUNT"]), { event: name });
    }
    emit.set(metrics.innodbMetricsDblwrEnabled, enabled ? 1 : 0);
  },
};
