/**
 * The device's atomic write unit must cover a page: the platform's torn-write guarantee first, then the
 * kernel's queue/atomic_write_unit_max_bytes (Linux 6.11+) (docs/reference/atomic-storage.md §8.2, §8.5).
 */
import type { TornWriteProvider } from "@untorn/vocabulary/words";
import { bytes } from "../format.js";
import { type CheckResult, defineGateCheck, overwritesInPlace } from "./check.js";

export const PROVIDER_NAMES: Record<TornWriteProvider, string> = {
  "aws-ebs": "AWS EBS torn-write prevention",
  "aws-instance-store": "AWS instance-store torn-write prevention",
  "azure-managed-disk": "Azure managed-disk torn-write prevention",
  "gcp-hyperdisk": "Google Hyperdisk torn-write protection",
  "gcp-16k-persistent-disk": "Google 16 KiB persistent disk",
  "netapp-ontap": "NetApp ONTAP NVRAM",
  "alibaba-16k-atomic-write": "Alibaba 16K atomic write",
  "rds-optimized-writes": "RDS Optimized Writes",
  other: "platform torn-write protection",
};

const NTWPU_FIX =
  "if this is an AWS Nitro EBS/instance-store volume, read NTWPU with `nvme id-ns -v` (the kernel may not show it) and record tornWriteProtection; otherwise move to atomic-write storage";
const COLLECT_FIX =
  "record the platform's torn-write protection (storage.tornWriteProtection) or run Linux 6.11+ so the exporter can read queue/atomic_write_unit_max_bytes";

export const atomicUnit = defineGateCheck({
  meta: {
    id: "atomic-unit",
    path: "hardware-atomic-write",
    title: "Atomic write unit >= innodb_page_size",
    appliesWhen: "self-managed, a file system that overwrites in place (not ZFS, not btrfs)",
    passesWhen:
      "the atomic unit (platform torn-write protection, else `queue/atomic_write_unit_max_bytes`) >= page size; a unit of 0 protects no page size and fails even when the page size is unknown",
    needs: ["storage.tornWriteProtection", "storage.atomicWrite", "config.pageSizeBytes"],
    source: "docs/reference/atomic-storage.md §8.2, §8.5",
  },
  applies: overwritesInPlace,
  evaluate({ facts, page }): CheckResult {
    const twp = facts.storage?.tornWriteProtection ?? null;
    const aw = facts.storage?.atomicWrite ?? null;
    let unit: number | null = null;
    let unitSource = "";
    if (twp) {
      unit = twp.unitBytes;
      unitSource = `${PROVIDER_NAMES[twp.provider]} (${twp.source})`;
    } else if (aw?.attributesPresent === true && aw.unitMaxBytes != null) {
      unit = aw.unitMaxBytes;
      unitSource = "queue/atomic_write_unit_max_bytes";
    }
    if (unit === null)
      return {
        status: "unknown",
        detail:
          aw?.attributesPresent === false
            ? "The kernel exposes no atomic-write limits (before Linux 6.11): unknown, not zero."
            : "No atomic-write unit is known for the datadir's device.",
        fix: COLLECT_FIX,
      };
    if (page === null && unit === 0)
      // 0 protects no page size, so the missing page size does not matter.
      return {
        status: "fail",
        detail: `${unitSource} is 0: the device reports no atomic writes, whatever innodb_page_size is.`,
        fix: NTWPU_FIX,
        blocker: "the device reports no atomic writes",
      };
    if (page === null)
      return {
        status: "unknown",
        detail: `${unitSource}: ${bytes(unit)}; page size unknown.`,
        fix: COLLECT_FIX,
      };
    if (unit >= page)
      return {
        status: "pass",
        detail: `${unitSource}: ${bytes(unit)} >= innodb_page_size ${bytes(page)}.`,
        fix: COLLECT_FIX,
      };
    return {
      status: "fail",
      detail:
        unit === 0
          ? `${unitSource} is 0: the device reports no atomic writes.`
          : `${unitSource}: ${bytes(unit)} < innodb_page_size ${bytes(page)}: a page write can tear.`,
      fix: unit === 0 ? NTWPU_FIX : COLLECT_FIX,
      blocker: unit === 0 ? "the device reports no atomic writes" : "the atomic unit is smaller than a page",
    };
  },
});
