/**
 * The words every part of Untorn shares (exporter, catalog, advisor, store, fleet, rollout, web, CLI),
 * each list defined once. Dependency-free so browser bundles and the exporter can import it.
 */

/** Server flavors: MySQL, MariaDB and Percona Server (Aurora and cloud builds are MySQL builds). */
export const FLAVORS = ["mysql", "mariadb", "percona"] as const;
export type Flavor = (typeof FLAVORS)[number];

/** Display names of the flavors. */
export const FLAVOR_NAMES: Readonly<Record<Flavor, string>> = {
  mysql: "MySQL",
  mariadb: "MariaDB",
  percona: "Percona Server",
};

/**
 * innodb_doublewrite, normalised to lower case; TRUE maps to on, FALSE to off
 * (docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2).
 */
export const DOUBLEWRITE_MODES = ["on", "off", "detect_and_recover", "detect_only", "fast"] as const;
export type DoublewriteMode = (typeof DOUBLEWRITE_MODES)[number];

/**
 * innodb_doublewrite as a server prints it, as one of DOUBLEWRITE_MODES: MySQL < 8.0.30 and MariaDB < 11.0.6
 * booleans (ON/OFF, 1/0), MySQL 8.0.30+ ENUM (ON/OFF/DETECT_ONLY/DETECT_AND_RECOVER/TRUE/FALSE), MariaDB
 * 11.0.6+ `fast`; undefined for anything else. The exporter's label and the rollout's read-back both use it.
 */
export function parseDoublewriteMode(raw: string | undefined): DoublewriteMode | undefined {
  if (raw === undefined) return undefined;
  const v = raw.trim().toLowerCase();
  if (v === "1" || v === "true") return "on";
  if (v === "0" || v === "false") return "off";
  return (DOUBLEWRITE_MODES as readonly string[]).includes(v) ? (v as DoublewriteMode) : undefined;
}

/** Each mode as the server's manual spells it (the console's badges and tables). */
export const DOUBLEWRITE_MODE_LABELS: Readonly<Record<DoublewriteMode, string>> = {
  on: "ON",
  off: "OFF",
  detect_and_recover: "DETECT_AND_RECOVER",
  detect_only: "DETECT_ONLY",
  fast: "fast",
};

/**
 * Whether a mode still repairs a torn page: ON, DETECT_AND_RECOVER and MariaDB's `fast` write pages to the
 * doublewrite buffer; OFF writes none and DETECT_ONLY keeps only page numbers, so neither can
 * (docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2).
 */
export function protectsTornPages(mode: DoublewriteMode): boolean {
  return mode !== "off" && mode !== "detect_only";
}

/** An instance's replication role (declared in the store, or read by the exporter's replication collector). */
export const REPLICATION_ROLES = ["primary", "replica", "standalone"] as const;
export type ReplicationRole = (typeof REPLICATION_ROLES)[number];

/** Who runs the server; none = self-managed. */
export const MANAGED_SERVICES = ["none", "rds", "aurora", "alibaba-rds", "other"] as const;
export type ManagedService = (typeof MANAGED_SERVICES)[number];

export const CLOUDS = ["aws", "gcp", "azure", "alibaba", "oracle", "on-prem", "other"] as const;
export type Cloud = (typeof CLOUDS)[number];

/** Layers between the file system and the disk; each can split, merge or offset I/O (docs/reference/atomic-storage.md §8.2, §8.7). */
export const STORAGE_LAYERS = ["partition", "lvm", "md-raid", "dm-crypt", "dm-other", "loop", "nbd"] as const;
export type StorageLayer = (typeof STORAGE_LAYERS)[number];

/** Who provides torn-write protection outside the database (docs/reference/atomic-storage.md §8.1, §8.2, §8.3). */
export const TORN_WRITE_PROVIDERS = [
  "aws-ebs",
  "aws-instance-store",
  "azure-managed-disk",
  "gcp-hyperdisk",
  "gcp-16k-persistent-disk",
  "netapp-ontap",
  "alibaba-16k-atomic-write",
  "rds-optimized-writes",
  "other",
] as const;
export type TornWriteProvider = (typeof TORN_WRITE_PROVIDERS)[number];

/** Who may do what in the console and the API: viewer reads, operator changes, admin manages users. */
export const ACCESS_ROLES = ["viewer", "operator", "admin"] as const;
export type AccessRole = (typeof ACCESS_ROLES)[number];

/** The advisor's write-bound verdict. */
export const VERDICTS = ["write-bound", "likely", "not-write-bound", "unknown"] as const;
export type VerdictKind = (typeof VERDICTS)[number];

/** The safety gate's answer to "may doublewrite be turned off here?" (docs/reference/atomic-storage.md). */
export const GATE_STATUSES = ["verified", "unverified", "unsafe"] as const;
export type GateStatus = (typeof GATE_STATUSES)[number];

/** How a verified gate knows the storage writes a page atomically. */
export const GATE_PATHS = ["provider-managed", "zfs-copy-on-write", "hardware-atomic-write"] as const;
export type GatePath = (typeof GATE_PATHS)[number];

/** Severities of the advisor's findings, most severe first. */
export const SEVERITIES = ["critical", "error", "warning", "notice"] as const;
export type Severity = (typeof SEVERITIES)[number];

/** What turning doublewrite off is expected to buy: throughput, only efficiency, or nothing. */
export const GAIN_KINDS = ["throughput", "efficiency", "none"] as const;
export type GainKind = (typeof GAIN_KINDS)[number];

/**
 * What doublewrite's share of write bytes is of: the bytes the datadir's device wrote; InnoDB's own data
 * bytes when there is no device data; or InnoDB's when other instances or processes wrote most of the
 * device's bytes (a shared device, whose share would read as if doublewrite cost nothing).
 */
export const SHARE_BASES = ["device", "innodb", "shared-device"] as const;
export type ShareBasis = (typeof SHARE_BASES)[number];

/** The mark after a share and what it means, as the console's fleet table and the CLI's print them. */
export const SHARE_BASIS_MARKS: Readonly<Record<ShareBasis, { mark: string; note: string | null }>> = {
  device: { mark: "", note: null },
  innodb: { mark: "*", note: "of InnoDB's write bytes: no device data" },
  "shared-device": {
    mark: "†",
    note: "of InnoDB's write bytes: the device is shared with other instances or processes, so its share of the device's bytes says nothing",
  },
};
