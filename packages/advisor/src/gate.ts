/**
 * Safety gate for turning doublewrite off (or to DETECT_ONLY, which cannot repair a torn page either,
 * docs/reference/mysql.md §1.7): is every write of innodb_page_size verified to land atomically?
 *
 * verified   - one complete evidence path passes (provider-managed, ZFS copy-on-write, or hardware
 *              atomic unit + O_DIRECT + file-system allocation + alignment);
 * unsafe     - positive evidence that a page write can tear (atomic unit below the page size, buffered
 *              I/O, misaligned allocation) and no other path passes;
 * unverified - anything else: not enough evidence either way.
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import type { GatePath, GateStatus, TornWriteProvider } from "@untorn/vocabulary/words";
import { ioModeOf, protection } from "./config-state.js";
import type { InstanceFacts } from "./facts.js";
import { bytes } from "./format.js";

export type { GatePath, GateStatus };
/**
 * unknown: a fact is missing (collect it); not-established: the facts are known but docs/reference does not
 * establish that this layout writes pages atomically (change the layout, not the monitoring).
 */
export type CheckStatus = "pass" | "fail" | "unknown" | "not-established" | "not-applicable";

export interface GateCheck {
  readonly id: string;
  readonly path: GatePath;
  readonly label: string;
  readonly status: CheckStatus;
  /** A failing or unknown blocking check keeps its path from verifying. */
  readonly blocking: boolean;
  readonly detail: string;
  /** What to do or collect to make the check pass. */
  readonly fix?: string;
  readonly source: string;
}

export interface SafetyGate {
  readonly status: GateStatus;
  /** The path that verified, or null. */
  readonly path: GatePath | null;
  readonly summary: string;
  readonly checks: readonly GateCheck[];
  /** What would make the gate verified, in order. Empty when verified. */
  readonly toVerify: readonly string[];
  /** Why it is unsafe. Empty unless unsafe. */
  readonly blockers: readonly string[];
  /** The platform manages doublewrite itself (RDS, Alibaba): never change innodb_doublewrite by hand. */
  readonly providerManaged: boolean;
}

const PROVIDER_NAMES: Record<TornWriteProvider, string> = {
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

const isPow2 = (x: number) => x > 0 && (x & (x - 1)) === 0;

/**
 * Instance class families with Optimized Writes: the 2023 RDS for MySQL list, the current RDS for MariaDB
 * list and the 8th-generation Graviton families a 2026 post adds (docs/reference/atomic-storage.md §8.1). AWS's live list decides;
 * a family outside this set is treated as unsupported only when the class is known.
 */
const RDS_OPTIMIZED_WRITES_FAMILIES: ReadonlySet<string> = new Set([
  "m5",
  "m5d",
  "m6g",
  "m6gd",
  "m6i",
  "m7g",
  "m7i",
  "m8g",
  "m8gd",
  "r5",
  "r5b",
  "r5d",
  "r6g",
  "r6gd",
  "r6i",
  "r7g",
  "r7i",
  "r8g",
  "r8gd",
  "x2idn",
  "x2iedn",
]);

/** "db.r6g.2xlarge" -> "r6g"; null when the class is unknown or not an RDS class name. */
export function rdsClassFamily(instanceClass: string | null): string | null {
  const m = /^db\.([a-z0-9-]+)\.[a-z0-9]+$/i.exec(instanceClass?.trim() ?? "");
  return m?.[1]?.toLowerCase() ?? null;
}

export function evaluateGate(facts: InstanceFacts, caps: Capabilities): SafetyGate {
  const checks: GateCheck[] = [];
  const page = facts.config.pageSizeBytes ?? null;
  const platform = facts.platform;
  const storage = facts.storage;
  const prot = protection(facts);

  // ---- Path 1: provider-managed (docs/reference/atomic-storage.md §8.1, §8.3) ----
  const managed = platform?.managed ?? null;
  let providerManaged = false;
  let providerPass = false;
  if (managed === "rds") {
    providerManaged = true;
    // RDS switches doublewrite off itself when Optimized Writes is active; it reads OFF/FALSE then (8.1).
    // Reading OFF is the evidence; anything known to keep the feature off contradicts it.
    const classFamily = rdsClassFamily(platform?.instanceClass ?? null);
    const classKnownUnsupported = classFamily !== null && !RDS_OPTIMIZED_WRITES_FAMILIES.has(classFamily);
    const contradictions = [
      !caps.rdsOptimizedWritesVersion &&
        "this engine version has no Optimized Writes (MySQL 8.0.30+, MariaDB 10.6.10+/10.11.4+/11.4.3+/11.8+)",
      platform?.rdsOptimizedWrites === "off" && "the parameter rds.optimized_writes is OFF",
      platform?.rdsStorageConfigUpgradeNeeded === true &&
        "the database predates Optimized Writes and still needs the Blue/Green storage upgrade",
      classKnownUnsupported &&
        `instance class ${platform?.instanceClass} is not in AWS's documented Optimized Writes classes (moving to an unsupported class turns it off)`,
    ].filter((x): x is string => typeof x === "string");
    const active = prot === "off" && contradictions.length === 0;
    providerPass = active;
    checks.push({
      id: "rds-optimized-writes",
      path: "provider-managed",
      label: "RDS Optimized Writes active",
      status: active ? "pass" : "fail",
      blocking: true,
      detail: active
        ? "RDS engine with innodb_doublewrite off on an Optimized Writes version: RDS writes 16 KiB pages atomically."
        : contradictions.length > 0
          ? `Optimized Writes cannot be active: ${contradictions.join("; ")}.`
          : "Doublewrite is still on: Optimized Writes is not active on this instance (class, storage layout or parameter).",
      fix: "Enable Optimized Writes through a Blue/Green deployment; RDS then turns doublewrite off itself.",
      source: "docs/reference/atomic-storage.md §8.1",
    });
  } else if (managed === "alibaba-rds") {
    providerManaged = true;
    // Like RDS: the service turns innodb_doublewrite off itself when 16K atomic write is on (MySQL
    // 5.7/8.0), so reading OFF is the evidence unless a fact contradicts it (docs/reference/atomic-storage.md §8.3).
    const flag = platform?.alibaba16kAtomicWrite ?? null;
    const contradictions = [
      flag === false && "platform.alibaba16kAtomicWrite is false",
      caps.flavor === "mariadb" && "16K atomic write is offered for RDS for MySQL 5.7 and 8.0 only",
      caps.mysqlLineage &&
        !(caps.version.major === 5 && caps.version.minor === 7) &&
        !(caps.version.major === 8 && caps.version.minor === 0) &&
        `16K atomic write is offered for MySQL 5.7 and 8.0 only, not ${caps.version.major}.${caps.version.minor}`,
    ].filter((x): x is string => typeof x === "string");
    const inferred = flag === null && prot === "off" && contradictions.length === 0;
    const on = (flag === true && contradictions.length === 0) || inferred;
    providerPass = on;
    checks.push({
      id: "alibaba-16k-atomic-write",
      path: "provider-managed",
      label: "Alibaba 16K atomic write enabled",
      status: on ? "pass" : flag === false || contradictions.length > 0 ? "fail" : "unknown",
      blocking: true,
      detail: inferred
        ? "innodb_doublewrite reads OFF on ApsaraDB RDS, which the service does when 16K atomic write is on: end-to-end 16 KiB atomicity (set platform.alibaba16kAtomicWrite to record it)."
        : on
          ? "ApsaraDB RDS 16K atomic write is on: end-to-end 16 KiB atomicity, doublewrite disabled by the service."
          : contradictions.length > 0
            ? `16K atomic write cannot be active: ${contradictions.join("; ")}.`
            : "The 16K atomic write feature is not known to be on.",
      fix: "Enable 16K atomic write in the ApsaraDB RDS console (instance restart).",
      source: "docs/reference/atomic-storage.md §8.3",
    });
  } else if (managed === "aurora") {
    providerManaged = true;
    checks.push({
      id: "aurora",
      path: "provider-managed",
      label: "Aurora storage",
      status: "not-applicable",
      blocking: true,
      detail: "Aurora uses its own storage layer; RDS Optimized Writes and doublewrite advice do not apply.",
      source: "docs/reference/atomic-storage.md §8.1",
    });
  } else if (managed === "other") {
    providerManaged = true;
    checks.push({
      id: "managed-other",
      path: "provider-managed",
      label: "Managed service",
      status: "unknown",
      blocking: true,
      detail:
        "A managed service controls storage and innodb_doublewrite; no documented torn-write guarantee is known here.",
      fix: "Use the provider's own feature if it has one; do not change innodb_doublewrite by hand.",
      source: "docs/reference/atomic-storage.md §8.1, §8.2, §8.3",
    });
  }

  if (providerManaged) {
    const status: GateStatus = providerPass ? "verified" : "unverified";
    const failing = checks.filter((c) => c.status !== "pass");
    return {
      status,
      path: providerPass ? "provider-managed" : null,
      summary: providerPass
        ? `verified: ${checks[0]?.label ?? "provider"} (the provider manages doublewrite).`
        : `unverified: ${failing.map((c) => c.detail).join(" ")}`,
      checks,
      toVerify: providerPass ? [] : failing.flatMap((c) => (c.fix ? [c.fix] : [])),
      blockers: [],
      providerManaged: true,
    };
  }

  // ---- Page size (every other path needs it) ----
  checks.push({
    id: "page-size-known",
    path: "hardware-atomic-write",
    label: "innodb_page_size known",
    status: page === null ? "unknown" : "pass",
    blocking: true,
    detail: page === null ? "innodb_page_size is unknown." : `innodb_page_size = ${bytes(page)}.`,
    fix: "collect innodb_page_size (untorn_innodb_page_size_bytes)",
    source: "docs/reference/mysql.md §1.4",
  });

  const fs = storage?.fsType?.toLowerCase() ?? null;

  // ---- Path 2: ZFS copy-on-write (docs/reference/atomic-storage.md §8.4) ----
  const zfsChecks: GateCheck[] = [];
  if (fs === "zfs") {
    const rs = storage?.zfsRecordsizeBytes ?? null;
    zfsChecks.push({
      id: "zfs-recordsize",
      path: "zfs-copy-on-write",
      label: "ZFS recordsize equals innodb_page_size",
      status: rs === null || page === null ? "unknown" : rs === page ? "pass" : "not-established",
      blocking: true,
      detail:
        rs === null
          ? "ZFS recordsize of the data files' dataset is unknown."
          : page !== null && rs === page
            ? `recordsize ${bytes(rs)} = page size: each page is one copy-on-write record, written all or nothing.`
            : `recordsize ${bytes(rs)} differs from the page size${page ? ` ${bytes(page)}` : ""}; only recordsize = page size is established (docs/reference/atomic-storage.md §8.4).`,
      fix: `zfs set recordsize=${page ? page / 1024 : 16}K <pool>/<dataset> for the data files (applies to newly written blocks: rebuild or reload the tables)`,
      source: "docs/reference/atomic-storage.md §8.4",
    });
  }
  checks.push(...zfsChecks);
  const zfsPass =
    zfsChecks.length > 0 && page !== null && zfsChecks.every((c) => c.status === "pass" || !c.blocking);

  // ---- Path 3: hardware atomic write + O_DIRECT + allocation + alignment (docs/reference/atomic-storage.md §8.2, §8.5, §8.7) ----
  const hw: GateCheck[] = [];
  const twp = storage?.tornWriteProtection ?? null;
  const aw = storage?.atomicWrite ?? null;
  const blockers: string[] = [];
  if (fs === "zfs") {
    // ZFS does not overwrite in place; the hardware path does not apply to it.
  } else if (fs === "btrfs") {
    hw.push({
      id: "btrfs",
      path: "hardware-atomic-write",
      label: "btrfs",
      status: storage?.btrfsNodatacow === true ? "fail" : "not-established",
      blocking: true,
      detail:
        storage?.btrfsNodatacow === true
          ? "btrfs nodatacow overwrites in place and has no established atomic page write."
          : "btrfs copy-on-write atomicity for database pages is not established (docs/reference/atomic-storage.md §8.4 marks it [L]).",
      fix: "move the data files to ext4 (bigalloc 16 KiB) on atomic-write storage, or to ZFS with recordsize = page size",
      source: "docs/reference/atomic-storage.md §8.4",
    });
    if (storage?.btrfsNodatacow === true) blockers.push("btrfs nodatacow overwrites pages in place");
  } else {
    // Atomic unit: platform guarantee first, then the device's own limits.
    let unit: number | null = null;
    let unitSource = "";
    let unitStatus: CheckStatus = "unknown";
    let unitDetail: string;
    if (twp) {
      unit = twp.unitBytes;
      unitSource = `${PROVIDER_NAMES[twp.provider]} (${twp.source})`;
    } else if (aw?.attributesPresent === true && aw.unitMaxBytes != null) {
      unit = aw.unitMaxBytes;
      unitSource = "queue/atomic_write_unit_max_bytes";
    }
    if (unit === null) {
      unitDetail =
        aw?.attributesPresent === false
          ? "The kernel exposes no atomic-write limits (before Linux 6.11): unknown, not zero."
          : "No atomic-write unit is known for the datadir's device.";
    } else if (page === null && unit === 0) {
      // 0 protects no page size, so the missing page size does not matter.
      unitStatus = "fail";
      unitDetail = `${unitSource} is 0: the device reports no atomic writes, whatever innodb_page_size is.`;
      blockers.push("the device reports no atomic writes");
    } else if (page === null) {
      unitDetail = `${unitSource}: ${bytes(unit)}; page size unknown.`;
    } else if (unit >= page) {
      unitStatus = "pass";
      unitDetail = `${unitSource}: ${bytes(unit)} >= innodb_page_size ${bytes(page)}.`;
    } else {
      unitStatus = "fail";
      unitDetail =
        unit === 0
          ? `${unitSource} is 0: the device reports no atomic writes.`
          : `${unitSource}: ${bytes(unit)} < innodb_page_size ${bytes(page)}: a page write can tear.`;
      blockers.push(
        unit === 0 ? "the device reports no atomic writes" : "the atomic unit is smaller than a page",
      );
    }
    hw.push({
      id: "atomic-unit",
      path: "hardware-atomic-write",
      label: "Atomic write unit >= innodb_page_size",
      status: unitStatus,
      blocking: true,
      detail: unitDetail,
      fix:
        unitStatus === "fail" && unit === 0
          ? "if this is an AWS Nitro EBS/instance-store volume, read NTWPU with `nvme id-ns -v` (the kernel may not show it) and record tornWriteProtection; otherwise move to atomic-write storage"
          : "record the platform's torn-write protection (storage.tornWriteProtection) or run Linux 6.11+ so the exporter can read queue/atomic_write_unit_max_bytes",
      source: "docs/reference/atomic-storage.md §8.2, §8.5",
    });

    // A write crossing the device's atomic boundary is split (NVMe NABSPF, docs/reference/atomic-storage.md §8.5).
    if (!twp && aw?.attributesPresent === true && unitStatus === "pass" && page !== null) {
      const b = aw.boundaryBytes;
      const ok = b === 0 || (b != null && b >= page && b % page === 0);
      hw.push({
        id: "atomic-boundary",
        path: "hardware-atomic-write",
        label: "No atomic boundary inside a page",
        status: b == null ? "unknown" : ok ? "pass" : "fail",
        blocking: true,
        detail:
          b == null
            ? "queue/atomic_write_boundary_bytes unknown."
            : ok
              ? `boundary ${b === 0 ? "none" : bytes(b)}: aligned pages never cross it.`
              : `boundary ${bytes(b)} is not a multiple of the page size: some pages cross it.`,
        fix: "read queue/atomic_write_boundary_bytes",
        source: "docs/reference/atomic-storage.md §8.5",
      });
      if (b != null && !ok) blockers.push("pages can cross the device's atomic boundary");
    }

    // Buffered I/O voids hardware atomicity (docs/reference/atomic-storage.md §8.7).
    const mode = ioModeOf(facts);
    hw.push({
      id: "direct-io",
      path: "hardware-atomic-write",
      label: "Data files use O_DIRECT",
      status: mode === "direct" ? "pass" : mode === "buffered" ? "fail" : "unknown",
      blocking: true,
      detail:
        mode === "direct"
          ? "Data files bypass the page cache, so each page goes to the device as one write."
          : mode === "buffered"
            ? "Data files are buffered: page-cache writeback can split or merge page writes, voiding hardware atomicity."
            : "innodb_flush_method / innodb_data_file_buffering unknown.",
      fix: caps.dataFileBufferingVariable
        ? "SET GLOBAL innodb_data_file_buffering=OFF (MariaDB 11.0+) and persist it in my.cnf"
        : "innodb_flush_method=O_DIRECT in my.cnf, then restart",
      source: "docs/reference/atomic-storage.md §8.7, docs/reference/mariadb.md §2.5",
    });
    if (mode === "buffered") blockers.push("buffered I/O voids hardware atomicity");

    // File-system allocation keeps each page in one aligned extent (docs/reference/atomic-storage.md §8.2, §8.4, §8.7).
    const block = storage?.fsBlockSizeBytes ?? null;
    const cluster = storage?.fsClusterSizeBytes ?? null;
    let allocStatus: CheckStatus = "unknown";
    let allocDetail = "File-system type or block/cluster size unknown.";
    if (page !== null && fs !== null) {
      const unitOk = (x: number | null) => x !== null && x >= page && x % page === 0;
      if (unitOk(block) || unitOk(cluster)) {
        allocStatus = "pass";
        allocDetail = `${fs}: ${unitOk(cluster) && !unitOk(block) ? `bigalloc cluster ${bytes(cluster ?? 0)}` : `block ${bytes(block ?? 0)}`} keeps each page in one aligned allocation unit.`;
      } else if (fs === "ext4" && (cluster !== null || block !== null)) {
        allocStatus = "fail";
        allocDetail = `ext4 with ${bytes(cluster ?? block ?? 0)} allocation units: a page can span non-contiguous blocks. AWS's tested layout is ext4 bigalloc with 16 KiB clusters.`;
        blockers.push("ext4 allocation unit smaller than a page (no bigalloc)");
      } else if (fs === "xfs") {
        allocStatus = "not-established";
        allocDetail =
          "XFS with blocks smaller than a page: plain (non-RWF_ATOMIC) page writes are not established as atomic; neither MySQL nor MariaDB uses RWF_ATOMIC (docs/reference/atomic-storage.md §8.4, §8.6).";
      } else {
        allocStatus = "not-established";
        allocDetail = `${fs}: allocation of page-sized writes not established.`;
      }
    }
    hw.push({
      id: "fs-allocation",
      path: "hardware-atomic-write",
      label: "File-system allocation unit >= page size",
      status: allocStatus,
      blocking: true,
      detail: allocDetail,
      fix: `mkfs.ext4 -O bigalloc -C ${page ?? 16384} <device> for the data files (e2fsprogs 1.46.5+), then restore the data`,
      source: "docs/reference/atomic-storage.md §8.2, §8.4, §8.7",
    });

    // Alignment of the data area on the disk (docs/reference/atomic-storage.md §8.2, §8.7).
    const layers = storage?.layers ?? null;
    const align = storage?.dataOffsetAlignmentBytes ?? null;
    let alignStatus: CheckStatus = "unknown";
    let alignDetail = "Storage layers and data offset alignment unknown.";
    if (layers !== null) {
      const remapping = layers.filter((l) => l !== "partition" && l !== "lvm");
      if (remapping.length > 0) {
        alignStatus = "not-established";
        alignDetail = `${remapping.join(", ")} between the file system and the disk may split, merge or remap I/O (docs/reference/atomic-storage.md §8.7).`;
      } else if (layers.length === 0) {
        alignStatus = "pass";
        alignDetail = "File system directly on the whole disk: offset 0.";
      } else if (align !== null && page !== null) {
        alignStatus = align >= page && isPow2(align) ? "pass" : "fail";
        alignDetail =
          alignStatus === "pass"
            ? `${layers.join(" + ")} start aligned to ${bytes(align)}.`
            : `${layers.join(" + ")} start aligned only to ${bytes(align)} < page size: every page straddles two device units.`;
        if (alignStatus === "fail") blockers.push("partition/LVM start not aligned to the page size");
      } else {
        alignDetail = `${layers.join(" + ")} present; start offset alignment unknown.`;
      }
    }
    hw.push({
      id: "alignment",
      path: "hardware-atomic-write",
      label: "Data area aligned to the page size, no remapping layers",
      status: alignStatus,
      blocking: true,
      detail: alignDetail,
      fix: "check the partition start (/sys/block/<disk>/<part>/start x 512) and LVM pe_start; create with pvcreate --dataalignmentoffset so the data starts on a multiple of the page size",
      source: "docs/reference/atomic-storage.md §8.2, §8.7",
    });

    // I/O larger than max_sectors_kb is split; a page must fit (docs/reference/atomic-storage.md §8.7). Not blocking when
    // unknown: every Linux device accepts at least 128 KiB unless configured down.
    const maxIo = storage?.maxIoBytes ?? null;
    hw.push({
      id: "no-split",
      path: "hardware-atomic-write",
      label: "Device does not split a page write",
      status: maxIo === null || page === null ? "unknown" : maxIo >= page ? "pass" : "fail",
      blocking: maxIo !== null,
      detail:
        maxIo === null
          ? "queue/max_sectors_kb unknown (not blocking: only a setting below the page size splits a page)."
          : page !== null && maxIo >= page
            ? `max I/O ${bytes(maxIo)} >= page size.`
            : `max I/O ${bytes(maxIo)} < page size: every page write is split.`,
      fix: "raise queue/max_sectors_kb to at least the page size",
      source: "docs/reference/atomic-storage.md §8.7",
    });
    if (maxIo !== null && page !== null && maxIo < page) blockers.push("the device splits page writes");
  }
  checks.push(...hw);

  const hwPass = hw.length > 0 && page !== null && hw.every((c) => c.status === "pass" || !c.blocking);
  const path: GatePath | null = zfsPass ? "zfs-copy-on-write" : hwPass ? "hardware-atomic-write" : null;
  const status: GateStatus = path !== null ? "verified" : blockers.length > 0 ? "unsafe" : "unverified";

  const relevant = checks.filter((c) =>
    fs === "zfs"
      ? c.path !== "hardware-atomic-write" || c.id === "page-size-known"
      : c.path !== "zfs-copy-on-write",
  );
  const toVerify =
    status === "verified"
      ? []
      : relevant.filter((c) => c.blocking && c.status !== "pass" && c.fix).map((c) => `${c.label}: ${c.fix}`);
  const summary =
    status === "verified"
      ? `verified by ${path === "zfs-copy-on-write" ? "ZFS copy-on-write with recordsize = page size" : `${twp ? PROVIDER_NAMES[twp.provider] : "the device's atomic write unit"} + O_DIRECT + aligned allocation`}.`
      : status === "unsafe"
        ? `unsafe: ${blockers.join("; ")}.`
        : `unverified: ${unverifiedWhy(relevant)}.`;

  return {
    status,
    path,
    summary,
    checks,
    toVerify,
    blockers: status === "unsafe" ? blockers : [],
    providerManaged: false,
  };
}

function unverifiedWhy(checks: readonly GateCheck[]): string {
  const open = checks.filter((c) => c.blocking && c.status !== "pass");
  const list = (status: CheckStatus) =>
    open
      .filter((c) => c.status === status)
      .map((c) => c.label.toLowerCase())
      .join(", ");
  const parts = [
    list("unknown") && `not known: ${list("unknown")}`,
    list("not-established") && `not established for this layout: ${list("not-established")}`,
  ].filter(Boolean);
  return parts.length ? parts.join("; ") : "no evidence path applies";
}
