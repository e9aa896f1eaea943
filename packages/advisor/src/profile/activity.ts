/**
 * What the instance does in the window: transactions and data pages flushed, the denominators of the
 * per-transaction and amplification indicators.
 */
import type { InstanceFacts } from "../facts.js";
import { avgOf, defineIndicatorGroup, type Input, indicatorsOf, S } from "./indicator.js";

/** Handler_commit counts autocommit statements that Com_commit misses, so it wins when collected. */
export function transactionInput(facts: InstanceFacts): Input {
  const r = facts.workload?.rates;
  return r?.handlerCommits
    ? S("workload.rates.handlerCommits", r.handlerCommits)
    : S("workload.rates.commits", r?.commits);
}

/** Innodb_buffer_pool_pages_flushed, else Innodb_pages_written. */
export function flushedInput(facts: InstanceFacts): Input {
  const r = facts.workload?.rates;
  return r?.bufferPoolPagesFlushed
    ? S("workload.rates.bufferPoolPagesFlushed", r.bufferPoolPagesFlushed)
    : S("workload.rates.pagesWritten", r?.pagesWritten);
}

const meta = {
  id: "activity",
  title: "Activity",
  indicators: [
    {
      id: "transactionRate",
      label: "Transactions",
      unit: "txn/s",
      formula: "`Handler_commit/s` (counts autocommit statements), else `Com_commit/s`",
    },
    {
      id: "pagesFlushedRate",
      label: "Data pages flushed",
      unit: "pages/s",
      formula: "`Innodb_buffer_pool_pages_flushed/s`, else `Innodb_pages_written/s`",
    },
  ],
  needs: [
    "workload.rates.handlerCommits",
    "workload.rates.commits",
    "workload.rates.bufferPoolPagesFlushed",
    "workload.rates.pagesWritten",
  ],
  uses: [],
  source: "https://dev.mysql.com/doc/refman/8.0/en/server-status-variables.html",
} as const;

export const activity = defineIndicatorGroup({
  meta,
  build({ facts }) {
    const put = indicatorsOf(meta);
    const txn = transactionInput(facts);
    const flushed = flushedInput(facts);
    return {
      indicators: [
        put("transactionRate", {
          basis: txn.path.endsWith("handlerCommits") ? "Handler_commit/s" : "Com_commit/s",
          inputs: [txn],
          value: avgOf(txn.stat),
        }),
        put("pagesFlushedRate", {
          basis: flushed.path.endsWith("Flushed")
            ? "Innodb_buffer_pool_pages_flushed/s"
            : "Innodb_pages_written/s",
          inputs: [flushed],
          value: avgOf(flushed.stat),
        }),
      ],
    };
  },
});
