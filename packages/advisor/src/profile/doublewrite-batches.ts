/**
 * How full the doublewrite batches are: pages per doublewrite write against the batch capacity,
 * innodb_doublewrite_pages on 8.0.20+ (docs/reference/mysql.md §1.4, §1.6) or the legacy area of two
 * extents of 64 pages at 16 KiB (docs/reference/versions.md §0, docs/reference/mariadb.md §2.1). Other
 * page sizes for the legacy area are not established in docs/reference, so the capacity stays unknown there.
 */
import { avgOf, defineIndicatorGroup, div, indicatorsOf, S, type Scalar, V } from "./indicator.js";

const meta = {
  id: "doublewrite-batches",
  title: "Doublewrite batches",
  indicators: [
    {
      id: "avgBatchPages",
      label: "Pages per doublewrite write",
      unit: "pages",
      formula: "Innodb_dblwr_pages_written / Innodb_dblwr_writes",
    },
    {
      id: "batchCapacityPages",
      label: "Doublewrite batch capacity",
      unit: "pages",
      formula:
        "`innodb_doublewrite_pages` (0 means `innodb_write_io_threads`; not collected: the version's default unless the observed batches are larger), or 128 for the legacy 16 KiB area",
    },
    {
      id: "batchFill",
      label: "Doublewrite batch fill",
      unit: "ratio",
      formula: "pages per doublewrite write / batch capacity",
    },
  ],
  needs: [
    "workload.rates.dblwrPagesWritten",
    "workload.rates.dblwrWrites",
    "config.doublewritePages",
    "config.writeIoThreads",
    "config.pageSizeBytes",
  ],
  uses: ["dblwrPagesRate"],
  source: "docs/reference/mysql.md §1.4, docs/reference/versions.md §0, docs/reference/mariadb.md §2.1",
} as const;

export const doublewriteBatches = defineIndicatorGroup({
  meta,
  build({ facts, caps, built }) {
    const put = indicatorsOf(meta);
    const r = facts.workload?.rates;
    const pagesIn = S("workload.rates.dblwrPagesWritten", r?.dblwrPagesWritten);
    const writesIn = S("workload.rates.dblwrWrites", r?.dblwrWrites);
    const avgBatch = div(built("dblwrPagesRate").value, avgOf(writesIn.stat));
    const avgBatchPages = put("avgBatchPages", { inputs: [pagesIn, writesIn], value: avgBatch });

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
        if (assumed !== null && (avgBatch === null || avgBatch <= assumed * 1.05)) {
          capacity = assumed;
          capacityBasis =
            caps.defaultDoublewritePages === "write_io_threads"
              ? "innodb_doublewrite_pages not collected: assumed the 8.0.20-8.3 default, innodb_write_io_threads"
              : "innodb_doublewrite_pages not collected: assumed the 8.4+ default, 128";
        }
      }
    } else {
      const pageSize = facts.config.pageSizeBytes ?? null;
      capInputs.push(V("config.pageSizeBytes", pageSize));
      capacity = pageSize === 16384 ? 128 : null;
      capacityBasis = "legacy system-tablespace area: 2 extents x 64 pages at 16 KiB";
    }
    return {
      indicators: [
        avgBatchPages,
        put("batchCapacityPages", { basis: capacityBasis, inputs: capInputs, value: capacity }),
        put("batchFill", {
          basis: `pages per doublewrite write / batch capacity (${capacityBasis})`,
          inputs: [pagesIn, writesIn, ...capInputs],
          value: div(avgBatch, capacity),
        }),
      ],
    };
  },
});
