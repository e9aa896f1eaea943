/**
 * File-system allocation keeps each page in one aligned extent: the block or the ext4 bigalloc cluster
 * must be a multiple of the page size (docs/reference/atomic-storage.md §8.2, §8.4, §8.7).
 */
import { bytes } from "../format.js";
import { type CheckResult, defineGateCheck, overwritesInPlace } from "./check.js";

export const fsAllocation = defineGateCheck({
  meta: {
    id: "fs-allocation",
    path: "hardware-atomic-write",
    title: "File-system allocation unit >= page size",
    appliesWhen: "self-managed, a file system that overwrites in place",
    passesWhen:
      "the block or the ext4 bigalloc cluster is a multiple of the page size; ext4 below it fails (unknown while its cluster size is unread), XFS with smaller blocks is not established",
    needs: [
      "storage.fsType",
      "storage.fsBlockSizeBytes",
      "storage.fsClusterSizeBytes",
      "config.pageSizeBytes",
    ],
    source: "docs/reference/atomic-storage.md §8.2, §8.4, §8.7",
  },
  applies: overwritesInPlace,
  evaluate({ facts, page, fs }) {
    const fix = `mkfs.ext4 -O bigalloc -C ${page ?? 16384} <device> for the data files (e2fsprogs 1.46.5+), then restore the data`;
    const result = (r: Omit<CheckResult, "fix">): CheckResult => ({ ...r, fix });
    if (page === null || fs === null)
      return result({ status: "unknown", detail: "File-system type or block/cluster size unknown." });
    const block = facts.storage?.fsBlockSizeBytes ?? null;
    const cluster = facts.storage?.fsClusterSizeBytes ?? null;
    const unitOk = (x: number | null) => x !== null && x >= page && x % page === 0;
    if (unitOk(block) || unitOk(cluster))
      return result({
        status: "pass",
        detail: `${fs}: ${unitOk(cluster) && !unitOk(block) ? `bigalloc cluster ${bytes(cluster ?? 0)}` : `block ${bytes(block ?? 0)}`} keeps each page in one aligned allocation unit.`,
      });
    // Without the superblock (an exporter in a container that cannot open the device) the cluster size
    // is unknown, and statfs reports only the block size: whether bigalloc is on cannot be told.
    if (fs === "ext4" && cluster === null)
      return result({
        status: "unknown",
        detail: `ext4 with ${block === null ? "an unknown block size" : `${bytes(block)} blocks`}; the bigalloc cluster size is unknown (the exporter could not read the file system's superblock), so whether a page stays in one allocation unit cannot be told.`,
      });
    if (fs === "ext4" && cluster !== null)
      return result({
        status: "fail",
        detail: `ext4 with ${bytes(cluster)} allocation units: a page can span non-contiguous blocks. AWS's tested layout is ext4 bigalloc with 16 KiB clusters.`,
        blocker: "ext4 allocation unit smaller than a page (no bigalloc)",
      });
    if (fs === "xfs")
      return result({
        status: "not-established",
        detail:
          "XFS with blocks smaller than a page: plain (non-RWF_ATOMIC) page writes are not established as atomic; neither MySQL nor MariaDB uses RWF_ATOMIC (docs/reference/atomic-storage.md §8.4, §8.6).",
      });
    return result({
      status: "not-established",
      detail: `${fs}: allocation of page-sized writes not established.`,
    });
  },
});
