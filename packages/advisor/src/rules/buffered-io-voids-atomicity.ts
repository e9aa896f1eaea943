/**
 * Buffered I/O (innodb_flush_method without O_DIRECT, or MariaDB innodb_data_file_buffering=ON) voids
 * hardware atomicity: page-cache writeback can split or merge page writes (docs/reference/atomic-storage.md §8.5, §8.7).
 * Reported on atomic-capable storage (a prerequisite to fix first) and whenever doublewrite is off.
 */
import { z } from "zod";
import { ioModeOf, protection } from "../config-state.js";
import { bytes } from "../format.js";
import { type Action, defineMeta, defineRule, docsPath, makeFinding } from "../rule.js";

const id = "buffered-io-voids-atomicity";

const meta = defineMeta({
  id,
  severity: "error",
  title: "Buffered I/O voids the storage's atomic writes",
  description:
    "Data files are written through the page cache, so a device's atomic write unit does not protect InnoDB pages. Use O_DIRECT before relying on atomic-write storage.",
  docs: docsPath(id),
  needs: {
    facts: [
      "config.flushMethod",
      "config.dataFileBuffering",
      "storage.fsType",
      "storage.atomicWrite",
      "storage.tornWriteProtection",
    ],
    indicators: [],
  },
  options: z.object({}).strict(),
});

export const bufferedIoVoidsAtomicity = defineRule({
  meta,
  evaluate(facts, _profile, { caps }) {
    if (ioModeOf(facts) !== "buffered") return [];
    const s = facts.storage;
    if (s?.fsType?.toLowerCase() === "zfs") return [];
    const page = facts.config.pageSizeBytes ?? null;
    const unit =
      s?.tornWriteProtection?.unitBytes ??
      (s?.atomicWrite?.attributesPresent ? s.atomicWrite.unitMaxBytes : null) ??
      null;
    const atomicCapable = unit !== null && page !== null && unit >= page;
    const prot = protection(facts);
    const unprotected = prot === "off" || prot === "detect-only";
    if (!atomicCapable && !unprotected) return [];

    const method = facts.config.flushMethod ?? null;
    const actions: Action[] = [];
    if (caps.dataFileBufferingVariable) {
      actions.push({
        platform: "mariadb-runtime",
        title: "SET GLOBAL innodb_data_file_buffering=OFF (MariaDB 11.0+, dynamic)",
        steps: [
          "Run SET GLOBAL innodb_data_file_buffering = OFF; and read it back.",
          "Persist innodb_data_file_buffering = OFF in the option file.",
        ],
        snippets: [
          {
            language: "sql",
            text: "SET GLOBAL innodb_data_file_buffering = OFF;\nSELECT @@GLOBAL.innodb_data_file_buffering;",
          },
          { language: "ini", text: "[mysqld]\ninnodb_data_file_buffering = OFF" },
        ],
        restart: false,
        changes: [
          {
            variable: "innodb_data_file_buffering",
            from: "ON",
            to: "OFF",
            via: "runtime",
            restart: false,
            removesTornPageProtection: false,
          },
        ],
      });
    } else {
      actions.push({
        platform: caps.flavor === "mariadb" ? "mariadb-option-file" : "mysql-option-file",
        title: "innodb_flush_method=O_DIRECT in my.cnf and restart (read-only variable)",
        steps: [
          "Set innodb_flush_method = O_DIRECT under [mysqld].",
          "Restart mysqld (replicas first, primary via switchover).",
          "Keep the redo log and binlog settings as they are; only data files need O_DIRECT here.",
        ],
        snippets: [{ language: "ini", text: "[mysqld]\ninnodb_flush_method = O_DIRECT" }],
        restart: true,
        changes: [
          {
            variable: "innodb_flush_method",
            from: method,
            to: "O_DIRECT",
            via: "option-file",
            restart: true,
            removesTornPageProtection: false,
          },
        ],
      });
    }
    const how =
      facts.config.dataFileBuffering === true
        ? "innodb_data_file_buffering=ON"
        : `innodb_flush_method=${method}`;
    return [
      makeFinding(meta, {
        severity: unprotected ? "error" : "notice",
        title: meta.title,
        summary:
          `${how} writes data files through the page cache` +
          (atomicCapable && unit !== null
            ? `, so the storage's ${bytes(unit)} atomic unit does not protect InnoDB pages`
            : "") +
          ". " +
          (unprotected
            ? "With doublewrite off this leaves torn pages possible even on atomic-write storage."
            : "Switch to O_DIRECT before relying on atomic writes to turn doublewrite off."),
        evidence: [
          { label: "I/O mode", value: how, unit: "text" },
          { label: "Atomic unit", value: unit, unit: "bytes" },
        ],
        actions,
        risk: {
          level: "low",
          text: "O_DIRECT moves data-file caching to the buffer pool; a server that relied on the page cache as a second cache may read more until the buffer pool is sized for it.",
        },
        prerequisites: [],
        confidence: 1,
      }),
    ];
  },
});
