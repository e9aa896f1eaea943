/** Doublewrite pages written and what share of the flushed pages went through the buffer twice. */

import { flushedInput } from "./activity.js";
import { avgOf, defineIndicatorGroup, div, indicatorsOf, S } from "./indicator.js";

const meta = {
  id: "doublewrite-pages",
  title: "Doublewrite pages",
  indicators: [
    {
      id: "dblwrPagesRate",
      label: "Doublewrite pages",
      unit: "pages/s",
      formula: "Innodb_dblwr_pages_written/s",
    },
    {
      id: "amplification",
      label: "Doublewrite pages per flushed page",
      unit: "ratio",
      formula:
        "Innodb_dblwr_pages_written / pages flushed (1 = every flushed page written twice, 0 = doublewrite off; slightly below 1 where single-page flushes skip the count)",
    },
  ],
  needs: [
    "workload.rates.dblwrPagesWritten",
    "workload.rates.bufferPoolPagesFlushed",
    "workload.rates.pagesWritten",
  ],
  uses: ["pagesFlushedRate"],
  source: "docs/reference/status-counters.md §4",
} as const;

export const doublewritePages = defineIndicatorGroup({
  meta,
  build({ facts, built }) {
    const put = indicatorsOf(meta);
    const pagesIn = S("workload.rates.dblwrPagesWritten", facts.workload?.rates?.dblwrPagesWritten);
    const pages = avgOf(pagesIn.stat);
    return {
      indicators: [
        put("dblwrPagesRate", { inputs: [pagesIn], value: pages }),
        put("amplification", {
          inputs: [pagesIn, flushedInput(facts)],
          value: div(pages, built("pagesFlushedRate").value),
        }),
      ],
    };
  },
});
