/**
 * ZFS never overwrites a block in place: with recordsize = innodb_page_size each page is one
 * copy-on-write record, written all or nothing (docs/reference/atomic-storage.md §8.4).
 */
import { bytes } from "../format.js";
import { defineGateCheck, selfManaged } from "./check.js";

export const zfsRecordsize = defineGateCheck({
  meta: {
    id: "zfs-recordsize",
    path: "zfs-copy-on-write",
    title: "ZFS recordsize equals innodb_page_size",
    appliesWhen: "self-managed, `storage.fsType` is `zfs`",
    passesWhen: "`recordsize` = `innodb_page_size` (other sizes: not established)",
    needs: ["storage.fsType", "storage.zfsRecordsizeBytes", "config.pageSizeBytes"],
    source: "docs/reference/atomic-storage.md §8.4",
  },
  applies: (input) => selfManaged(input) && input.fs === "zfs",
  evaluate({ facts, page }) {
    const rs = facts.storage?.zfsRecordsizeBytes ?? null;
    return {
      status: rs === null || page === null ? "unknown" : rs === page ? "pass" : "not-established",
      detail:
        rs === null
          ? "ZFS recordsize of the data files' dataset is unknown."
          : page !== null && rs === page
            ? `recordsize ${bytes(rs)} = page size: each page is one copy-on-write record, written all or nothing.`
            : `recordsize ${bytes(rs)} differs from the page size${page ? ` ${bytes(page)}` : ""}; only recordsize = page size is established (docs/reference/atomic-storage.md §8.4).`,
      fix: `zfs set recordsize=${page ? page / 1024 : 16}K <pool>/<dataset> for the data files (applies to newly written blocks: rebuild or reload the tables)`,
    };
  },
});
