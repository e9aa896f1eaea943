/** Interpretations of configuration facts shared by the profile, the gate and the rules. */
import type { DoublewriteMode } from "@untorn/vocabulary/words";
import type { InstanceFacts } from "./facts.js";

/**
 * What the doublewrite setting means for torn-page protection:
 * - full: page images are copied first and can repair a torn page (ON, DETECT_AND_RECOVER, MariaDB fast);
 * - detect-only: torn pages are detected but cannot be repaired (MySQL 8.0.30+, docs/reference/mysql.md §1.7);
 * - off: no protection (docs/reference/mysql.md §1.7: a torn page at recovery is unrecoverable);
 * - unknown: the facts do not say.
 */
export type Protection = "full" | "detect-only" | "off" | "unknown";

export function protectionOf(mode: DoublewriteMode | null | undefined): Protection {
  switch (mode) {
    case "on":
    case "detect_and_recover":
    case "fast":
      return "full";
    case "detect_only":
      return "detect-only";
    case "off":
      return "off";
    default:
      return "unknown";
  }
}

export function protection(facts: InstanceFacts): Protection {
  return protectionOf(facts.config.doublewrite);
}

/** Whether data pages go through the page cache: hardware atomicity needs O_DIRECT (docs/reference/atomic-storage.md §8.5, §8.7). */
export type IoMode = "direct" | "buffered" | "unknown";

/** Flush methods that open data files with O_DIRECT (Linux) or unbuffered (Windows). */
const DIRECT_METHODS = new Set([
  "o_direct",
  "o_direct_no_fsync",
  "all_o_direct",
  "unbuffered",
  "async_unbuffered",
]);
/** Flush methods that leave data files buffered. */
const BUFFERED_METHODS = new Set(["fsync", "o_dsync", "littlesync", "nosync", "normal"]);

export function ioModeOf(facts: InstanceFacts): IoMode {
  const c = facts.config;
  // MariaDB 11.0+: innodb_data_file_buffering is authoritative; innodb_flush_method is deprecated (docs/reference/mariadb.md §2.5).
  if (c.dataFileBuffering === true) return "buffered";
  if (c.dataFileBuffering === false) return "direct";
  const method = c.flushMethod?.trim().toLowerCase();
  if (!method) return "unknown";
  if (DIRECT_METHODS.has(method)) return "direct";
  if (BUFFERED_METHODS.has(method)) return "buffered";
  return "unknown";
}
