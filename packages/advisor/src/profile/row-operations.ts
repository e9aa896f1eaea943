/** How much of the row traffic changes rows: a read-mostly instance gains little from cheaper writes. */
import { avgOf, defineIndicatorGroup, div, indicatorsOf, S, sumAvg, sumOrNull } from "./indicator.js";

const meta = {
  id: "row-operations",
  title: "Row operations",
  indicators: [
    {
      id: "writeShareOfRowOps",
      label: "Write share of row operations",
      unit: "ratio",
      formula: "rows inserted+updated+deleted / (those + rows read)",
    },
  ],
  needs: [
    "workload.rates.rowsInserted",
    "workload.rates.rowsUpdated",
    "workload.rates.rowsDeleted",
    "workload.rates.rowsRead",
  ],
  uses: [],
  source: "",
} as const;

export const rowOperations = defineIndicatorGroup({
  meta,
  build({ facts }) {
    const put = indicatorsOf(meta);
    const r = facts.workload?.rates;
    const changedIn = [
      S("workload.rates.rowsInserted", r?.rowsInserted),
      S("workload.rates.rowsUpdated", r?.rowsUpdated),
      S("workload.rates.rowsDeleted", r?.rowsDeleted),
    ];
    const readIn = S("workload.rates.rowsRead", r?.rowsRead);
    const changed = sumAvg(changedIn);
    return {
      indicators: [
        put("writeShareOfRowOps", {
          inputs: [...changedIn, readIn],
          value: div(changed, sumOrNull(changed, avgOf(readIn.stat))),
        }),
      ],
    };
  },
});
