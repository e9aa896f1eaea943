/**
 * MariaDB 11.0.6+ innodb_doublewrite=fast is not atomic writes: it keeps the doublewrite copy and
 * skips the data-file syncs, which is only safe when the doublewrite area (first system tablespace
 * file) and the data files share a file system (docs/reference/mariadb.md §2.2, docs/reference/atomic-storage.md §8.7, docs/reference/traps.md §10.7).
 */
import { z } from "zod";
import { doublewriteActions } from "../actions.js";
import type { InstanceFacts } from "../facts.js";
import { bytes, pct } from "../format.js";
import { type Action, defineMeta, defineRule, docsPath, indicatorEvidence, makeFinding } from "../rule.js";

const id = "mariadb-fast-not-atomic";

const meta = defineMeta({
  id,
  severity: "error",
  title: "MariaDB innodb_doublewrite=fast is not atomic writes",
  description:
    "fast still writes every page twice and only relaxes data-file syncs; it is safe only when the system tablespace and the data files share a file system.",
  docs: docsPath(id),
  needs: {
    facts: [
      "server.flavor",
      "config.doublewrite",
      "config.flushMethod",
      "storage.systemTablespaceSameFilesystem",
    ],
    indicators: ["dblwrBytesRate", "dblwrShareOfInnodbWriteBytes"],
  },
  options: z.object({}).strict(),
});

export const mariadbFastNotAtomic = defineRule({
  meta,
  evaluate(facts, profile, { caps, gate }) {
    if (caps.flavor !== "mariadb" || facts.config.doublewrite !== "fast") return [];
    const same = facts.storage?.systemTablespaceSameFilesystem ?? null;
    const mapped = facts.config.flushMethod?.toLowerCase().includes("no_fsync") === true;
    const ind = profile.indicators;
    const copy = ind.dblwrBytesRate.value;
    const share = ind.dblwrShareOfInnodbWriteBytes.value;

    const actions: Action[] = [];
    // With O_DIRECT_NO_FSYNC the server maps ON to fast (docs/reference/mariadb.md §2.2): ON alone would not stick.
    if (same === false)
      actions.push(...(mapped ? [flushMethodAndOnAction(facts)] : doublewriteActions(facts, caps, "ON")));
    else if (same === null)
      actions.push({
        platform: "host",
        title: "Check that ibdata1 and the data files share one file system",
        steps: [
          "Compare the mount of innodb_data_home_dir (ibdata1) with the datadir and any DATA DIRECTORY tables: df --output=target <path>.",
          mapped
            ? "If they differ, replace innodb_flush_method = O_DIRECT_NO_FSYNC with O_DIRECT and set innodb_doublewrite = ON in the option file, then restart: with O_DIRECT_NO_FSYNC the server maps ON to fast."
            : "If they differ, SET GLOBAL innodb_doublewrite=ON and persist it in the option file.",
        ],
        snippets: [{ language: "shell", text: "df --output=target /var/lib/mysql/ibdata1 /var/lib/mysql" }],
        restart: false,
        changes: [],
      });
    const severity = same === false ? "error" : same === null ? "warning" : "notice";
    return [
      makeFinding(meta, {
        severity,
        title: meta.title,
        summary:
          "innodb_doublewrite=fast keeps the full doublewrite copy" +
          (copy !== null
            ? ` (${bytes(copy)}/s${share !== null ? `, ${pct(share)} of InnoDB write bytes` : ""})`
            : "") +
          " and only skips the data-file syncs: it is a durability relaxation, not atomic writes, and it saves no write bytes. " +
          (same === false
            ? "The system tablespace and the data files are on different file systems, where MariaDB says fast is unsafe."
            : same === null
              ? "MariaDB calls it safe only when the system tablespace and the data files share a file system; that is not known here."
              : "The system tablespace and the data files share a file system, the case MariaDB calls safe.") +
          (mapped ? " innodb_flush_method=O_DIRECT_NO_FSYNC maps ON to fast on these versions." : "") +
          (gate.status === "verified"
            ? " The storage is verified atomic: OFF, not fast, removes the copy (atomic-storage-doublewrite-on)."
            : ""),
        evidence: [
          { label: "innodb_doublewrite", value: "fast", unit: "text" },
          { label: "Same file system", value: same === null ? null : String(same), unit: "text" },
          indicatorEvidence(profile, "dblwrBytesRate"),
        ],
        actions,
        expectedGain: null,
        risk: {
          level: same === false ? "high" : "low",
          text:
            same === false
              ? "Data-file writes may be lost on power failure while the doublewrite copy is already overwritten."
              : "Setting ON restores data-file syncs; fsyncs per transaction rise.",
        },
        prerequisites: [],
        confidence: 1,
      }),
    ];
  },
});

/** innodb_flush_method is read-only: both lines go to the option file and take effect on restart. */
function flushMethodAndOnAction(facts: InstanceFacts): Action {
  return {
    platform: "mariadb-option-file",
    title: "innodb_flush_method=O_DIRECT and innodb_doublewrite=ON in my.cnf, then restart",
    steps: [
      "Replace innodb_flush_method = O_DIRECT_NO_FSYNC with O_DIRECT (the default since 10.6) under [mysqld] or [mariadb]: with O_DIRECT_NO_FSYNC the server maps innodb_doublewrite=ON to fast.",
      "Set innodb_doublewrite = ON in the same section.",
      "Restart mariadbd (systemctl restart mariadb); on a primary, switch over to a replica first.",
      "Read both back: SELECT @@GLOBAL.innodb_flush_method, @@GLOBAL.innodb_doublewrite; (expect O_DIRECT, ON).",
    ],
    snippets: [
      { language: "ini", text: "[mysqld]\ninnodb_flush_method = O_DIRECT\ninnodb_doublewrite = ON" },
    ],
    restart: true,
    changes: [
      {
        variable: "innodb_flush_method",
        from: facts.config.flushMethod ?? null,
        to: "O_DIRECT",
        via: "option-file",
        restart: true,
        removesTornPageProtection: false,
      },
      {
        variable: "innodb_doublewrite",
        from: facts.config.doublewriteRaw ?? "fast",
        to: "ON",
        via: "option-file",
        restart: true,
        removesTornPageProtection: false,
      },
    ],
  };
}
