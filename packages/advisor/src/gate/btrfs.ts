/**
 * btrfs: copy-on-write atomicity for database pages is not established, and nodatacow overwrites in
 * place with no atomic page write (docs/reference/atomic-storage.md §8.4). It stands in for the hardware path.
 */
import { defineGateCheck, selfManaged } from "./check.js";

export const btrfs = defineGateCheck({
  meta: {
    id: "btrfs",
    path: "hardware-atomic-write",
    title: "btrfs",
    appliesWhen: "self-managed, `storage.fsType` is `btrfs`",
    passesWhen: "never: `nodatacow` fails (pages overwritten in place), copy-on-write is not established [L]",
    needs: ["storage.fsType", "storage.btrfsNodatacow"],
    source: "docs/reference/atomic-storage.md §8.4",
  },
  applies: (input) => selfManaged(input) && input.fs === "btrfs",
  evaluate({ facts }) {
    const nodatacow = facts.storage?.btrfsNodatacow === true;
    return {
      status: nodatacow ? "fail" : "not-established",
      detail: nodatacow
        ? "btrfs nodatacow overwrites in place and has no established atomic page write."
        : "btrfs copy-on-write atomicity for database pages is not established (docs/reference/atomic-storage.md §8.4 marks it [L]).",
      fix: "move the data files to ext4 (bigalloc 16 KiB) on atomic-write storage, or to ZFS with recordsize = page size",
      ...(nodatacow ? { blocker: "btrfs nodatacow overwrites pages in place" } : {}),
    };
  },
});
