/** Per-file-class I/O signals (performance_schema file I/O, or mysqld_exporter's file events). */
import { ratio } from "../promql.js";
import { PS, type SignalSpec } from "./signal.js";

export const compositeSpecs = {
  file_write_bytes_per_second: {
    title: "Write bytes/s by file class",
    description:
      "Bytes written per second per file class (performance_schema). On MariaDB doublewrite writes are under system_tablespace. The mysqld_exporter fallback cannot split ibdata1 from other data files.",
    unit: "bytes/s",
    group: "file_io",
    needs: PS,
    build: (c) => c("fileWriteBytes"),
  },
  file_writes_per_second: {
    title: "Write ops/s by file class",
    description: "Write operations per second per file class (performance_schema COUNT_WRITE).",
    unit: "ops/s",
    group: "file_io",
    needs: PS,
    build: (c) => c("fileWrites"),
  },
  file_write_latency_seconds: {
    title: "Write latency by file class",
    description: "Average time per write operation per file class (SUM_TIMER_WRITE ÷ COUNT_WRITE).",
    unit: "seconds",
    group: "file_io",
    needs: PS,
    build: (c) => ratio(c("fileWriteSeconds"), c("fileWrites")),
  },
  file_misc_ops_per_second: {
    title: "Misc (≈fsync) ops/s by file class",
    description:
      "Misc operations per second per file class (COUNT_MISC): mostly fsync for InnoDB files, but also open, close, stat: not an fsync count (docs/reference/performance-schema.md §5.2).",
    unit: "ops/s",
    group: "file_io",
    needs: PS,
    build: (c) => c("fileMisc"),
  },
  file_misc_latency_seconds: {
    title: "Misc (≈fsync) latency by file class",
    description:
      "Average time per misc operation per file class (SUM_TIMER_MISC ÷ COUNT_MISC): a proxy for fsync latency on InnoDB files, labelled misc because it also covers open/close/stat (docs/reference/performance-schema.md §5.2).",
    unit: "seconds",
    group: "file_io",
    needs: PS,
    build: (c) => ratio(c("fileMiscSeconds"), c("fileMisc")),
  },
} as const satisfies Record<string, SignalSpec>;
