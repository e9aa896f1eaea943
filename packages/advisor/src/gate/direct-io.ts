/** Buffered I/O voids hardware atomicity: page-cache writeback can split or merge page writes (docs/reference/atomic-storage.md §8.7). */
import { ioModeOf } from "../config-state.js";
import { defineGateCheck, overwritesInPlace } from "./check.js";

export const directIo = defineGateCheck({
  meta: {
    id: "direct-io",
    path: "hardware-atomic-write",
    title: "Data files use O_DIRECT",
    appliesWhen: "self-managed, a file system that overwrites in place",
    passesWhen: "O_DIRECT data files (or MariaDB `innodb_data_file_buffering=OFF`)",
    needs: ["config.flushMethod", "config.dataFileBuffering"],
    source: "docs/reference/atomic-storage.md §8.7, docs/reference/mariadb.md §2.5",
  },
  applies: overwritesInPlace,
  evaluate({ facts, caps }) {
    const mode = ioModeOf(facts);
    return {
      status: mode === "direct" ? "pass" : mode === "buffered" ? "fail" : "unknown",
      detail:
        mode === "direct"
          ? "Data files bypass the page cache, so each page goes to the device as one write."
          : mode === "buffered"
            ? "Data files are buffered: page-cache writeback can split or merge page writes, voiding hardware atomicity."
            : "innodb_flush_method / innodb_data_file_buffering unknown.",
      fix: caps.dataFileBufferingVariable
        ? "SET GLOBAL innodb_data_file_buffering=OFF (MariaDB 11.0+) and persist it in my.cnf"
        : "innodb_flush_method=O_DIRECT in my.cnf, then restart",
      ...(mode === "buffered" ? { blocker: "buffered I/O voids hardware atomicity" } : {}),
    };
  },
});
