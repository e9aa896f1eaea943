/**
 * What the instance does in the window: transactions and data pages flushed, the denominators of the
 * per-transaction and amplification indicators.
 */
import type { InstanceFacts } from "../facts.js";
import { avgOf, defineIndicatorGroup, type Input, indicatorsOf, S } from "./indicator.js";

/**
 * Transactions are client commits, COMMIT + ROLLBACK statements (the catalog's
 * transactions_per_second, which the instance charts and the rollout gates read too), so the profile,
 * its chart and the rollout charts show one number. Handler_commit also counts every statement's
 * internal commit (about 12 per sysbench write transaction on MariaDB 10.11) and a replica applier's
 * own writes (docs/reference/status-counters.md); it is read only where no client commit was counted
 * in the window (an autocommit workload), and the basis says so.
 */
export function transactionInput(facts: InstanceFacts): Input {
  const r = facts.workload?.rates;
  const clientCommits = r?.commits;
  if (r?.handlerCommits && (clientCommits == null || clientCommits.avg === 0)) {
    return S("workload.rates.handlerCommits", r.handlerCommits);
  }
  return S("workload.rates.commits", clientCommits);
}

/** The basis every per-transaction indicator names: which commit count divides it. */
export function transactionBasis(input: Input): string {
  return input.path.endsWith("handlerCommits")
    ? "Handler_commit/s (no client COMMIT counted: autocommit workload)"
    : "client COMMIT + ROLLBACK/s";
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
      label: "Transactions (client commits)",
      unit: "txn/s",
      formula:
        "`Com_commit + Com_rollback` per second (client commits, as the charts), else `Handler_commit/s` when no client commit was counted",
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
          basis: transactionBasis(txn),
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
