/**
 * Doublewrite's share of what InnoDB writes. Innodb_data_written counts doublewrite pages as 1 byte on
 * MDEV-31124 releases; the profile adds (innodb_page_size - 1) per doublewrite page there
 * (docs/reference/status-counters.md §4).
 */
import { avgOf, clamp01, defineIndicatorGroup, div, indicatorsOf, S, V } from "./indicator.js";

const meta = {
  id: "write-bytes",
  title: "Doublewrite share of InnoDB writes",
  indicators: [
    {
      id: "dblwrBytesRate",
      label: "Doublewrite bytes",
      unit: "bytes/s",
      formula: "Innodb_dblwr_pages_written/s x innodb_page_size",
    },
    {
      id: "innodbWriteBytesRate",
      label: "InnoDB data bytes written",
      unit: "bytes/s",
      formula: "Innodb_data_written/s (doublewrite included)",
      remark:
        "MDEV-31124 correction on affected MariaDB: + (innodb_page_size - 1) x Innodb_dblwr_pages_written",
    },
    {
      id: "dblwrShareOfInnodbWriteBytes",
      label: "Doublewrite share of InnoDB write bytes",
      unit: "ratio",
      formula: "doublewrite bytes / Innodb_data_written",
      remark: "MDEV-31124 correction on affected MariaDB",
    },
    {
      id: "dblwrShareOfWriteOps",
      label: "Doublewrite share of InnoDB write operations",
      unit: "ratio",
      formula: "Innodb_dblwr_writes / Innodb_data_writes",
    },
  ],
  needs: [
    "workload.rates.dblwrPagesWritten",
    "workload.rates.dblwrWrites",
    "workload.rates.dataWrittenBytes",
    "workload.rates.dataWrites",
    "config.pageSizeBytes",
    "server.version",
  ],
  uses: ["dblwrPagesRate"],
  source: "docs/reference/status-counters.md §4",
} as const;

export const writeBytes = defineIndicatorGroup({
  meta,
  build({ facts, caps, built }) {
    const put = indicatorsOf(meta);
    const r = facts.workload?.rates;
    const notes: string[] = [];
    const pageSize = facts.config.pageSizeBytes ?? null;
    const pagesIn = S("workload.rates.dblwrPagesWritten", r?.dblwrPagesWritten);
    const writesIn = S("workload.rates.dblwrWrites", r?.dblwrWrites);
    const pageIn = V("config.pageSizeBytes", pageSize);
    const dataWrittenIn = S("workload.rates.dataWrittenBytes", r?.dataWrittenBytes);
    const dataWritesIn = S("workload.rates.dataWrites", r?.dataWrites);
    const pages = built("dblwrPagesRate").value;
    const dblwrBytes = pages === null || pageSize === null ? null : pages * pageSize;

    let innodbBytes = avgOf(dataWrittenIn.stat);
    if (caps.dataWrittenUndercountsDoublewrite && innodbBytes !== null) {
      if (pages === null || pageSize === null) innodbBytes = null;
      else {
        innodbBytes += (pageSize - 1) * pages;
        notes.push(
          "Innodb_data_written corrected for MDEV-31124: + (innodb_page_size - 1) x Innodb_dblwr_pages_written (docs/reference/status-counters.md §4).",
        );
      }
    }
    return {
      indicators: [
        put("dblwrBytesRate", { inputs: [pagesIn, pageIn], value: dblwrBytes }),
        put("innodbWriteBytesRate", {
          inputs: [dataWrittenIn, ...(caps.dataWrittenUndercountsDoublewrite ? [pagesIn, pageIn] : [])],
          value: innodbBytes,
        }),
        put("dblwrShareOfInnodbWriteBytes", {
          inputs: [pagesIn, pageIn, dataWrittenIn],
          value: clamp01(div(dblwrBytes, innodbBytes)),
        }),
        put("dblwrShareOfWriteOps", {
          inputs: [writesIn, dataWritesIn],
          value: clamp01(div(avgOf(writesIn.stat), avgOf(dataWritesIn.stat))),
        }),
      ],
      notes,
    };
  },
});
