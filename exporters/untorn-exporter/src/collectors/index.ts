import type { Collector } from "../collector.js";
import { config } from "./config.js";
import { globalStatus } from "./global-status.js";
import { hostStorage } from "./host-storage.js";
import { innodbMetricsDblwr } from "./innodb-metrics-dblwr.js";
import { perfSchemaFileIo } from "./perf-schema-file-io.js";
import { perfSchemaWaits } from "./perf-schema-waits.js";
import { replication } from "./replication.js";

/** Every collector, sorted by name; also the source of the --collect.<name> flags. */
export const COLLECTORS: readonly Collector[] = [
  config,
  globalStatus,
  hostStorage,
  innodbMetricsDblwr,
  perfSchemaFileIo,
  perfSchemaWaits,
  replication,
];

/** Collectors that need no database connection. */
export const HOST_COLLECTORS: ReadonlySet<string> = new Set(["host.storage"]);
