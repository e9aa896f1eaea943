/** Throughput signals: transactions and row changes per second. */
import type { SignalSpec } from "./signal.js";

export const compositeSpecs = {
  transactions_per_second: {
    title: "Transactions/s",
    description:
      "COMMIT and ROLLBACK statements per second (Com_commit + Com_rollback). Autocommit statements are not counted: for autocommit workloads use row changes.",
    unit: "transactions/s",
    group: "throughput",
    build: (c) => c("transactions"),
  },
  row_changes_per_second: {
    title: "Row changes/s",
    description:
      "InnoDB rows inserted, updated and deleted per second (Innodb_rows_*); where the server does not report those (MariaDB 10.11), rows written, updated and deleted through the storage engine handler (Handler_write/update/delete), which also counts other engines.",
    unit: "rows/s",
    group: "throughput",
    build: (c) => c("rowChanges"),
  },
} as const satisfies Record<string, SignalSpec>;
