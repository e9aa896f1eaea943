/** Fsync and per-transaction efficiency signals. */
import { ratio } from "../promql.js";
import type { SignalSpec } from "./signal.js";

export const compositeSpecs = {
  fsyncs_per_second: {
    title: "fsyncs/s",
    description:
      "fsync()/fdatasync() calls InnoDB made per second (Innodb_data_fsyncs). With doublewrite on, MariaDB 10.11 issues about 10 per doublewrite batch (docs/reference/iops-metering.md §11).",
    unit: "fsyncs/s",
    group: "efficiency",
    build: (c) => c("dataFsyncs"),
  },
  fsyncs_per_transaction: {
    title: "fsyncs per transaction",
    description:
      "InnoDB fsyncs ÷ transactions: efficiency that changes even when throughput is demand-bound.",
    unit: "fsyncs/transaction",
    group: "efficiency",
    build: (c) => ratio(c("dataFsyncs"), c("transactions")),
  },
  innodb_write_ops_per_second: {
    title: "InnoDB write IOPS",
    description:
      "InnoDB data-file write operations per second (Innodb_data_writes, doublewrite writes included).",
    unit: "ops/s",
    group: "efficiency",
    build: (c) => c("dataWrites"),
  },
  write_ops_per_transaction: {
    title: "Write ops per transaction",
    description: "InnoDB data-file write operations ÷ transactions.",
    unit: "ops/transaction",
    group: "efficiency",
    build: (c) => ratio(c("dataWrites"), c("transactions")),
  },
  innodb_write_bytes_per_second: {
    title: "InnoDB write bytes/s",
    description:
      "Bytes InnoDB wrote to data files per second (Innodb_data_written, doublewrite included; MariaDB 10.5.1+ excludes redo; reported as the server counts it, so MariaDB releases with the MDEV-31124 undercount show doublewrite pages as 1 byte each here; the advisor corrects it, docs/reference/status-counters.md §4).",
    unit: "bytes/s",
    group: "efficiency",
    build: (c) => c("dataWrittenBytes"),
  },
  write_bytes_per_transaction: {
    title: "Write bytes per transaction",
    description:
      "InnoDB data-file bytes written ÷ transactions: roughly doubles with doublewrite on (docs/reference/iops-metering.md §11).",
    unit: "bytes/transaction",
    group: "efficiency",
    build: (c) => ratio(c("dataWrittenBytes"), c("transactions")),
  },
  redo_write_bytes_per_second: {
    title: "Redo bytes/s",
    description: "Bytes written to the redo log per second (Innodb_os_log_written).",
    unit: "bytes/s",
    group: "efficiency",
    build: (c) => c("redoWrittenBytes"),
  },
} as const satisfies Record<string, SignalSpec>;
