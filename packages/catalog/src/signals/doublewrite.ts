/** Doublewrite signals: pages, batches, fill, amplification, shares and waits. */
import { addPresent, binary, ratio } from "../promql.js";
import { rec } from "./component.js";
import { DBLWR_CAPACITY, MUTEX, MYSQL_8020, PS, type SignalSpec } from "./signal.js";

export const compositeSpecs = {
  doublewrite_pages_per_second: {
    title: "Doublewrite pages/s",
    description:
      "Pages written to the doublewrite area per second (Innodb_dblwr_pages_written). MySQL 8.0.20+ adds a batch when its last page completes; single-page flushes are not counted (docs/reference/mysql.md §1.6).",
    unit: "pages/s",
    group: "doublewrite",
    build: (c) => c("dblwrPages"),
  },
  doublewrite_batches_per_second: {
    title: "Doublewrite batches/s",
    description:
      "Doublewrite writes per second (Innodb_dblwr_writes): batches on MySQL; doublewrite I/Os on MariaDB, one per batch unless it spans both ibdata1 blocks (docs/reference/mysql.md §1.6, docs/reference/mariadb.md §2.1).",
    unit: "batches/s",
    group: "doublewrite",
    build: (c) => c("dblwrWrites"),
  },
  data_pages_flushed_per_second: {
    title: "Data pages flushed/s",
    description:
      "Buffer pool pages written to their data files per second (Innodb_buffer_pool_pages_flushed): the page writes the doublewrite buffer protects.",
    unit: "pages/s",
    group: "doublewrite",
    build: (c) => c("pagesFlushed"),
  },
  doublewrite_pages_per_batch: {
    title: "Pages per doublewrite batch",
    description:
      "Average doublewrite batch size: doublewrite pages ÷ doublewrite writes. Capped by the batch capacity; stuck near it under load means batches are full (docs/reference/mysql.md §1.6).",
    unit: "pages/batch",
    group: "doublewrite",
    build: (c) => ratio(c("dblwrPages"), c("dblwrWrites")),
  },
  doublewrite_batch_capacity_pages: {
    title: "Doublewrite batch capacity",
    description:
      "Most pages one doublewrite batch holds: innodb_doublewrite_pages on MySQL 8.0.20+ (4 by default before 8.4, 128 from 8.4); 2 × FSP_EXTENT_SIZE on MariaDB (128 at 16 KiB pages). Absent on MySQL before 8.0.20.",
    unit: "pages",
    group: "doublewrite",
    needs: DBLWR_CAPACITY,
    build: (c) => c("batchCapacity"),
  },
  doublewrite_batch_fill: {
    title: "Doublewrite batch fill",
    description:
      "Pages per batch ÷ batch capacity (0-1). Near 1 under load: batches are full and a larger innodb_doublewrite_pages (MySQL 8.0.20-8.3) may help (docs/reference/mysql.md §1.4, docs/reference/published-results.md §9).",
    unit: "ratio",
    group: "doublewrite",
    needs: DBLWR_CAPACITY,
    build: (c) => ratio(ratio(c("dblwrPages"), c("dblwrWrites")), c("batchCapacity")),
  },
  doublewrite_amplification: {
    title: "Doublewrite pages per flushed page",
    description:
      "Doublewrite pages ÷ data pages flushed: about 1 with doublewrite on (every flushed page written twice), 0 with it off. Not an amplification factor: the extra page bytes are this ratio × the data page bytes.",
    unit: "ratio",
    group: "doublewrite",
    build: (c) => ratio(c("dblwrPages"), c("pagesFlushed")),
  },
  doublewrite_write_bytes_share: {
    title: "Doublewrite share of write bytes",
    description:
      "Doublewrite pages × page size ÷ bytes InnoDB wrote to data files (Innodb_data_written, doublewrite included): about 0.5 with doublewrite on. MariaDB 10.5.7-10.11.2-era releases count a doublewrite page as 1 byte there (MDEV-31124, https://jira.mariadb.org/browse/MDEV-31124): untorn-exporter and mysqld_exporter both report the counter as the server does, so this panel can read above 1 on those releases; the advisor corrects it (docs/reference/status-counters.md §4, docs/reference/iops-metering.md §11).",
    unit: "ratio",
    group: "doublewrite",
    build: (c) => ratio(binary(c("dblwrPages"), "*", c("pageSize")), c("dataWrittenBytes")),
  },
  doublewrite_write_ops_share: {
    title: "Doublewrite share of write operations",
    description:
      "Doublewrite writes ÷ InnoDB data-file write operations (Innodb_data_writes counts one per doublewrite batch I/O, docs/reference/iops-metering.md §11): small, because a batch is one large sequential write (docs/reference/mysql.md §1.1).",
    unit: "ratio",
    group: "doublewrite",
    build: (c) => ratio(c("dblwrWrites"), c("dataWrites")),
  },
  doublewrite_io_wait_seconds_per_second: {
    title: "Doublewrite I/O wait",
    description:
      "Seconds per second spent writing and syncing the doublewrite area (performance_schema write + misc timers; ≈ threads waiting). MariaDB and MySQL < 8.0.20 have no doublewrite instrument: there the system tablespace (ibdata1) stands in, which also holds undo and dictionary pages (docs/reference/performance-schema.md §5.1, §5.3). The mysqld_exporter fallback has data on MySQL/Percona 8.0.20+ only: its file_events sum every data file together, so it has no ibdata1 stand-in.",
    unit: "seconds/s",
    group: "doublewrite",
    needs: PS,
    build: (c) => c("dblwrIoWaitSeconds"),
  },
  doublewrite_io_wait_share: {
    title: "Doublewrite share of file I/O wait",
    description:
      "Doublewrite I/O wait ÷ write + misc (≈fsync) wait over all instrumented file classes (InnoDB, binlog, relay log). Like the wait itself, the mysqld_exporter fallback has data on MySQL/Percona 8.0.20+ only.",
    unit: "ratio",
    group: "doublewrite",
    needs: PS,
    build: (c) => ratio(c("dblwrIoWaitSeconds"), c("fileIoWaitSeconds")),
  },
  doublewrite_mutex_waits_per_second: {
    title: "Doublewrite mutex waits/s",
    description:
      "Waits on the doublewrite mutex per second (dblwr_mutex on MySQL 8.0.20+, buf_dblwr_mutex on MariaDB and older MySQL). InnoDB mutex instruments are off by default (docs/reference/performance-schema.md §5.1): 0 unless enabled.",
    unit: "waits/s",
    group: "doublewrite",
    needs: MUTEX,
    build: (c) => c("dblwrMutexWaits"),
  },
  doublewrite_mutex_wait_seconds_per_second: {
    title: "Doublewrite mutex wait",
    description: "Seconds per second spent waiting on the doublewrite mutex (≈ threads waiting).",
    unit: "seconds/s",
    group: "doublewrite",
    needs: MUTEX,
    build: (c) => c("dblwrMutexWaitSeconds"),
  },
  doublewrite_wait_seconds_per_second: {
    title: "Doublewrite wait (I/O + mutex)",
    description:
      "Doublewrite I/O wait plus doublewrite mutex wait where the mutex is instrumented: the input of UntornDoublewriteWaitSpike.",
    unit: "seconds/s",
    group: "doublewrite",
    needs: PS,
    record: rec("untorn_doublewrite_wait_seconds"),
    build: (c) => addPresent(c("dblwrIoWaitSeconds"), c("dblwrMutexWaitSeconds")),
  },
  doublewrite_flush_wait_events_per_second: {
    title: "Doublewrite flush waits/s",
    description:
      "Threads per second that had to wait for a running doublewrite batch (INNODB_METRICS dblwr_flush_wait_events): a direct 'doublewrite is the bottleneck' signal. MySQL 8.0.20+, needs innodb_monitor_enable='module_dblwr' (docs/reference/status-counters.md §4).",
    unit: "waits/s",
    group: "doublewrite",
    needs: { flavors: ["mysql", "percona"], minVersion: MYSQL_8020, innodbMetricsDblwr: true },
    build: (c) => c("dblwrFlushWaitEvents"),
  },
} as const satisfies Record<string, SignalSpec>;
