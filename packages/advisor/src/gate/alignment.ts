/**
 * The data area must start aligned to the page size with nothing between the file system and the disk
 * that splits, merges or remaps I/O (docs/reference/atomic-storage.md §8.2, §8.7).
 */

import { bytes } from "../format.js";
import { defineGateCheck, overwritesInPlace } from "./check.js";

const isPow2 = (x: number) => x > 0 && (x & (x - 1)) === 0;

export const alignment = defineGateCheck({
  meta: {
    id: "alignment",
    path: "hardware-atomic-write",
    title: "Data area aligned to the page size, no remapping layers",
    appliesWhen: "self-managed, a file system that overwrites in place",
    passesWhen:
      "the file system is on the whole disk, or partition/LVM start at a power-of-two offset >= page size; md, dm-crypt and other remapping layers are not established",
    needs: ["storage.layers", "storage.dataOffsetAlignmentBytes", "config.pageSizeBytes"],
    source: "docs/reference/atomic-storage.md §8.2, §8.7",
  },
  applies: overwritesInPlace,
  evaluate({ facts, page }) {
    const fix =
      "check the partition start (/sys/block/<disk>/<part>/start x 512) and LVM pe_start; create with pvcreate --dataalignmentoffset so the data starts on a multiple of the page size";
    const layers = facts.storage?.layers ?? null;
    const align = facts.storage?.dataOffsetAlignmentBytes ?? null;
    if (layers === null)
      return { status: "unknown", detail: "Storage layers and data offset alignment unknown.", fix };
    const remapping = layers.filter((l) => l !== "partition" && l !== "lvm");
    if (remapping.length > 0)
      return {
        status: "not-established",
        detail: `${remapping.join(", ")} between the file system and the disk may split, merge or remap I/O (docs/reference/atomic-storage.md §8.7).`,
        fix,
      };
    if (layers.length === 0)
      return { status: "pass", detail: "File system directly on the whole disk: offset 0.", fix };
    if (align === null || page === null)
      return {
        status: "unknown",
        detail: `${layers.join(" + ")} present; start offset alignment unknown.`,
        fix,
      };
    return align >= page && isPow2(align)
      ? { status: "pass", detail: `${layers.join(" + ")} start aligned to ${bytes(align)}.`, fix }
      : {
          status: "fail",
          detail: `${layers.join(" + ")} start aligned only to ${bytes(align)} < page size: every page straddles two device units.`,
          fix,
          blocker: "partition/LVM start not aligned to the page size",
        };
  },
});
