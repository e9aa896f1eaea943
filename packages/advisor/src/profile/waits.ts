/**
 * Where InnoDB waits on the write path: free pages, the redo log buffer, the checkpoint age, the
 * doublewrite batch and mutex, pending fsyncs (docs/reference/status-counters.md §4).
 */
import type { FactPath } from "../facts.js";
import { avgOf, defineIndicatorGroup, div, indicatorsOf, p95Of, S, V } from "./indicator.js";

const meta = {
  id: "waits",
  title: "Waits",
  indicators: [
    {
      id: "freePageWaitsRate",
      label: "Free-page waits",
      unit: "waits/s",
      formula: "Innodb_buffer_pool_wait_free/s",
    },
    { id: "logWaitsRate", label: "Redo log waits", unit: "waits/s", formula: "Innodb_log_waits/s" },
    {
      id: "checkpointAgeShare",
      label: "Checkpoint age share of capacity",
      unit: "ratio",
      formula: "checkpoint age / checkpoint max age (MariaDB), else / redo log capacity (MySQL 8.0.30+)",
    },
    {
      id: "dblwrFlushWaitsRate",
      label: "Doublewrite flush waits",
      unit: "waits/s",
      formula: "INNODB_METRICS dblwr_flush_wait_events/s",
    },
    {
      id: "dblwrMutexWaitRate",
      label: "Doublewrite mutex wait",
      unit: "seconds/s",
      formula: "doublewrite mutex wait seconds/s (threads waiting on average)",
    },
    { id: "pendingFsyncs", label: "Pending fsyncs", unit: "count", formula: "Innodb_data_pending_fsyncs" },
  ],
  needs: [
    "workload.rates.bufferPoolWaitFree",
    "workload.rates.logWaits",
    "workload.gauges.checkpointAgeBytes",
    "workload.gauges.checkpointMaxAgeBytes",
    "config.redoLogCapacityBytes",
    "workload.rates.dblwrFlushWaitEvents",
    "workload.rates.dblwrMutexWaitSeconds",
    "workload.gauges.pendingFsyncs",
  ],
  uses: [],
  source: "docs/reference/status-counters.md §4",
} as const;

export const waits = defineIndicatorGroup({
  meta,
  build({ facts, caps }) {
    const put = indicatorsOf(meta);
    const r = facts.workload?.rates;
    const g = facts.workload?.gauges;
    const rate = (path: FactPath, stat: Parameters<typeof S>[1]) => {
      const input = S(path, stat);
      return { inputs: [input], value: avgOf(input.stat), peak: p95Of(input.stat) };
    };

    const ageIn = S("workload.gauges.checkpointAgeBytes", g?.checkpointAgeBytes);
    const maxAgeIn = g?.checkpointMaxAgeBytes
      ? S("workload.gauges.checkpointMaxAgeBytes", g.checkpointMaxAgeBytes)
      : null;
    const capBytes = avgOf(maxAgeIn?.stat) ?? facts.config.redoLogCapacityBytes ?? null;
    const capIn = maxAgeIn ?? V("config.redoLogCapacityBytes", facts.config.redoLogCapacityBytes);

    const fwIn = S("workload.rates.dblwrFlushWaitEvents", r?.dblwrFlushWaitEvents);
    const mwIn = S("workload.rates.dblwrMutexWaitSeconds", r?.dblwrMutexWaitSeconds);
    const pfIn = S("workload.gauges.pendingFsyncs", g?.pendingFsyncs);
    return {
      indicators: [
        put("freePageWaitsRate", rate("workload.rates.bufferPoolWaitFree", r?.bufferPoolWaitFree)),
        // Innodb_log_waits: a transaction waited because the log buffer was full and had to be written
        // first (https://dev.mysql.com/doc/refman/8.0/en/server-status-variables.html#statvar_Innodb_log_waits).
        put("logWaitsRate", rate("workload.rates.logWaits", r?.logWaits)),
        put("checkpointAgeShare", {
          basis: maxAgeIn ? "checkpoint age / checkpoint max age" : "checkpoint age / redo log capacity",
          inputs: [ageIn, capIn],
          value: div(avgOf(ageIn.stat), capBytes),
          peak: div(p95Of(ageIn.stat), capBytes),
        }),
        put("dblwrFlushWaitsRate", {
          inputs: [fwIn],
          value: caps.innodbMetricsDblwr ? avgOf(fwIn.stat) : null,
          peak: caps.innodbMetricsDblwr ? p95Of(fwIn.stat) : null,
          note: caps.innodbMetricsDblwr
            ? undefined
            : "module_dblwr exists on MySQL/Percona 8.0.20+ only (docs/reference/status-counters.md §4)",
        }),
        put("dblwrMutexWaitRate", { inputs: [mwIn], value: avgOf(mwIn.stat) }),
        put("pendingFsyncs", { inputs: [pfIn], value: avgOf(pfIn.stat) }),
      ],
    };
  },
});
