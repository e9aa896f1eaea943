/** Buffer-pool and redo pressure signals: free-page waits and checkpoint age. */
import { ratio } from "../promql.js";
import { CHECKPOINT, type SignalSpec } from "./signal.js";

export const compositeSpecs = {
  free_page_waits_per_second: {
    title: "Free-page waits/s",
    description:
      "Times per second a thread waited for a clean buffer pool page (Innodb_buffer_pool_wait_free): flushing cannot keep up, a write-bound symptom (docs/reference/status-counters.md §4, docs/reference/published-results.md §9).",
    unit: "waits/s",
    group: "pressure",
    build: (c) => c("freePageWaits"),
  },
  checkpoint_age_bytes: {
    title: "Checkpoint age",
    description:
      "Redo bytes not yet checkpointed: MariaDB 10.5+ Innodb_checkpoint_age; MySQL 8.0.30+ current LSN - checkpoint LSN.",
    unit: "bytes",
    group: "pressure",
    needs: CHECKPOINT,
    build: (c) => c("checkpointAge"),
  },
  checkpoint_age_ratio: {
    title: "Checkpoint age / capacity",
    description:
      "Checkpoint age ÷ the age at which InnoDB forces flushing (MariaDB Innodb_checkpoint_max_age; MySQL 8.0.30+ redo capacity). Near 1: flushing lags the redo log, writes stall.",
    unit: "ratio",
    group: "pressure",
    needs: CHECKPOINT,
    build: (c) => ratio(c("checkpointAge"), c("checkpointMaxAge")),
  },
} as const satisfies Record<string, SignalSpec>;
