/**
 * What a flavor/version can do about doublewrite: the version matrix of docs/reference/versions.md §0 as data.
 * Every rule asks this module instead of comparing version strings itself.
 */
import { formatVersion, parseServerVersion, type Version } from "./server-version.js";
import { FLAVOR_NAMES, type Flavor } from "./words.js";

export type { Version };

/** Parses the engine version of @@version (Aurora and vendor builds included, see server-version.ts). */
export function parseVersion(version: string): Version | null {
  return parseServerVersion(version)?.version ?? null;
}

/** Negative when a < b, 0 when equal, positive when a > b. */
export function compareVersions(a: Version, b: Version): number {
  return a.major - b.major || a.minor - b.minor || a.patch - b.patch;
}

const v = (major: number, minor: number, patch: number): Version => ({ major, minor, patch });
const atLeast = (x: Version, major: number, minor: number, patch: number) =>
  compareVersions(x, v(major, minor, patch)) >= 0;

export { formatVersion };

export const DOUBLEWRITE_LOCATIONS = ["system-tablespace", "dblwr-files", "percona-parallel-file"] as const;
export type DoublewriteLocation = (typeof DOUBLEWRITE_LOCATIONS)[number];

export interface Capabilities {
  readonly flavor: Flavor;
  readonly version: Version;
  /** MySQL-lineage (MySQL and Percona share the InnoDB doublewrite code from 8.0.20, docs/reference/percona.md §3). */
  readonly mysqlLineage: boolean;
  readonly doublewriteLocation: DoublewriteLocation;
  /** innodb_doublewrite is an ENUM with DETECT_ONLY (MySQL/Percona 8.0.30+, docs/reference/mysql.md §1.4). */
  readonly detectOnly: boolean;
  /** SET GLOBAL between ON/DETECT_AND_RECOVER/DETECT_ONLY without restart (8.0.30+); never to/from OFF. */
  readonly runtimeBetweenEnabledModes: boolean;
  /**
   * SET GLOBAL innodb_doublewrite works at runtime (MDEV-33545, docs/reference/mariadb.md §2.2): established for MariaDB
   * 11.0.6+ in the 11.0 series and for series first released after the April 2024 merge (11.6+), or when
   * the server printed `fast` (only the dynamic ENUM has it).
   */
  readonly runtimeOff: boolean;
  /**
   * MariaDB 11.1-11.5: which minors carry the dynamic ENUM is not established (docs/reference/mariadb.md §2.2); the
   * advice tells the DBA how to read it off the server instead of assuming.
   */
  readonly runtimeOffUnknown: boolean;
  /** MariaDB `fast` mode exists (same versions as runtimeOff). */
  readonly fastMode: boolean;
  /** innodb_doublewrite is NOPERSIST on MySQL 8.0.30+: SET PERSIST is refused (docs/reference/mysql.md §1.4). */
  readonly persistRefused: boolean;
  /** innodb_doublewrite_pages exists (MySQL/Percona 8.0.20+). */
  readonly doublewritePagesVariable: boolean;
  /** Default innodb_doublewrite_pages: innodb_write_io_threads (4) on 8.0.20-8.3, 128 on 8.4+ (docs/reference/mysql.md §1.4, docs/reference/traps.md §10.3). */
  readonly defaultDoublewritePages: number | "write_io_threads" | null;
  /** performance_schema has wait/io/file/innodb/innodb_dblwr_file (MySQL/Percona 8.0.20+, docs/reference/performance-schema.md §5.1). */
  readonly dblwrFileInstrument: boolean;
  /** INNODB_METRICS module_dblwr exists (MySQL 8.0.20+, docs/reference/status-counters.md §4). */
  readonly innodbMetricsDblwr: boolean;
  /** MariaDB 11.0.1+ innodb_data_file_buffering replaces innodb_flush_method (docs/reference/mariadb.md §2.5). */
  readonly dataFileBufferingVariable: boolean;
  /** Innodb_data_written undercounts doublewrite bytes (MDEV-31124, docs/reference/status-counters.md §4). */
  readonly dataWrittenUndercountsDoublewrite: boolean;
  /** RDS Optimized Writes exists for this engine version (docs/reference/atomic-storage.md §8.1). */
  readonly rdsOptimizedWritesVersion: boolean;
  /** Checkpoint age is observable: MariaDB 10.5+ Innodb_checkpoint_age, MySQL 8.0.30+ redo LSNs (docs/reference/status-counters.md §4). */
  readonly checkpointAgeStatus: boolean;
}

/** MDEV-31124: affected from 10.5.7 until the first fixed release of each series (docs/reference/status-counters.md §4). */
function mdev31124(x: Version): boolean {
  if (!atLeast(x, 10, 5, 7)) return false;
  const fixed: Record<string, number> = {
    "10.5": 20,
    "10.6": 13,
    "10.8": 8,
    "10.9": 6,
    "10.10": 4,
    "10.11": 3,
  };
  const series = `${x.major}.${x.minor}`;
  const fixedPatch = fixed[series];
  if (fixedPatch !== undefined) return x.patch < fixedPatch;
  // 10.7 had no fixed release listed (end of life); 11.x was never affected.
  return series === "10.7";
}

/** RDS Optimized Writes versions: MySQL 8.0.30+ and 8.4; MariaDB 10.6.10+, 10.11.4+, 11.4.3+, 11.8+ (docs/reference/atomic-storage.md §8.1). */
function rdsOptimizedWrites(flavor: Flavor, x: Version): boolean {
  if (flavor !== "mariadb") return atLeast(x, 8, 0, 30);
  const series = `${x.major}.${x.minor}`;
  if (series === "10.6") return x.patch >= 10;
  if (series === "10.11") return x.patch >= 4;
  if (series === "11.4") return x.patch >= 3;
  return atLeast(x, 11, 8, 0);
}

/** MDEV-33545 (dynamic ENUM innodb_doublewrite with `fast`): merged into 11.0 for 11.0.6 (docs/reference/mariadb.md §2.2). */
function mariadbDynamicDoublewrite(x: Version): "yes" | "no" | "unknown" {
  if (!atLeast(x, 11, 0, 6)) return "no";
  if (x.major === 11 && x.minor === 0) return "yes";
  if (x.major === 11 && x.minor <= 5) return "unknown";
  return "yes";
}

export function capabilitiesOf(flavor: Flavor, version: Version): Capabilities {
  const maria = flavor === "mariadb";
  const mysqlLineage = !maria;
  const v8020 = mysqlLineage && atLeast(version, 8, 0, 20);
  const v8030 = mysqlLineage && atLeast(version, 8, 0, 30);
  const v84 = mysqlLineage && atLeast(version, 8, 4, 0);
  let doublewriteLocation: DoublewriteLocation = "system-tablespace";
  if (v8020) doublewriteLocation = "dblwr-files";
  // Percona 5.7.11-4 to 8.0.19: parallel doublewrite file xb_doublewrite (docs/reference/percona.md §3).
  else if (flavor === "percona" && atLeast(version, 5, 7, 11)) doublewriteLocation = "percona-parallel-file";
  return {
    flavor,
    version,
    mysqlLineage,
    doublewriteLocation,
    detectOnly: v8030,
    runtimeBetweenEnabledModes: v8030,
    runtimeOff: maria && mariadbDynamicDoublewrite(version) === "yes",
    runtimeOffUnknown: maria && mariadbDynamicDoublewrite(version) === "unknown",
    fastMode: maria && mariadbDynamicDoublewrite(version) === "yes",
    persistRefused: v8030,
    doublewritePagesVariable: v8020,
    defaultDoublewritePages: v84 ? 128 : v8020 ? "write_io_threads" : null,
    dblwrFileInstrument: v8020,
    innodbMetricsDblwr: v8020,
    dataFileBufferingVariable: maria && atLeast(version, 11, 0, 1),
    dataWrittenUndercountsDoublewrite: maria && mdev31124(version),
    rdsOptimizedWritesVersion: rdsOptimizedWrites(flavor, version),
    checkpointAgeStatus: maria ? atLeast(version, 10, 5, 0) : v8030,
  };
}

/** Display name, e.g. "MySQL 8.0.35", "MariaDB 10.11.6", "Percona Server 8.0.36". */
export function serverName(c: Capabilities): string {
  return `${FLAVOR_NAMES[c.flavor]} ${formatVersion(c.version)}`;
}
