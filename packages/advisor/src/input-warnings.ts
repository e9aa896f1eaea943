/**
 * Input warnings: every fact the advisor was given but contradicts another fact, ignores, or overrides
 * with a stronger one is said in the output, so a hand-written fact that changed nothing is never silent.
 *
 * - contradicted: two facts cannot both be true; the message says which one the advisor followed;
 * - ignored: the fact has no effect (the version lacks the setting, or a qualifying fact is missing);
 * - overridden: a stronger fact of the same kind wins (a platform guarantee over the device's limits).
 */
import type { Capabilities } from "@untorn/vocabulary/capabilities";
import { formatVersion, parseServerVersion } from "@untorn/vocabulary/server-version";
import { protection } from "./config-state.js";
import type { FactPath, InstanceFacts } from "./facts.js";

export const INPUT_WARNING_CODES = ["contradicted", "ignored", "overridden"] as const;
export type InputWarningCode = (typeof INPUT_WARNING_CODES)[number];

export interface InputWarning {
  readonly code: InputWarningCode;
  /** Dotted path of the fact the warning is about, e.g. storage.atomicWrite.unitMaxBytes. */
  readonly path: string;
  readonly message: string;
}

const FLAVOR_NAMES = { mysql: "MySQL", mariadb: "MariaDB", percona: "Percona Server" } as const;

export function inputWarnings(facts: InstanceFacts, caps: Capabilities): InputWarning[] {
  const out: InputWarning[] = [];
  const add = (code: InputWarningCode, path: FactPath, message: string) => out.push({ code, path, message });
  const { server, config, platform, storage } = facts;
  const name = `${FLAVOR_NAMES[caps.flavor]} ${formatVersion(caps.version)}`;

  // ---- server identity ----
  const parsed = parseServerVersion(server.version, server.versionComment);
  if (parsed?.flavor === "mariadb" && server.flavor !== "mariadb")
    add(
      "contradicted",
      "server.flavor",
      `server.flavor is ${server.flavor} but the version ${server.version} is a MariaDB build; the advice follows server.flavor, so correct whichever is wrong.`,
    );
  else if (parsed?.flavor === "percona" && parsed.build === "percona" && server.flavor === "mariadb")
    add(
      "contradicted",
      "server.flavor",
      `server.flavor is mariadb but ${server.version}${server.versionComment ? ` (${server.versionComment})` : ""} is a Percona Server build; the advice follows server.flavor.`,
    );
  else if (/percona/i.test(server.versionComment ?? "") && server.flavor !== "percona")
    add(
      "contradicted",
      "server.flavor",
      `server.flavor is ${server.flavor} but version_comment names Percona Server; the advice follows server.flavor.`,
    );
  if (parsed?.build === "aurora") {
    if (platform?.managed != null && platform.managed !== "aurora")
      add(
        "contradicted",
        "platform.managed",
        `the version ${server.version} is Aurora MySQL ${parsed.auroraVersion}, but platform.managed is ${platform.managed}; the safety gate follows platform.managed.`,
      );
  } else if (platform?.managed === "aurora" && parsed !== null)
    add(
      "contradicted",
      "platform.managed",
      `platform.managed is aurora but the version ${server.version} is not an Aurora version string (Aurora prints e.g. 8.0.mysql_aurora.3.05.2); the safety gate follows platform.managed.`,
    );

  // ---- settings the version does not have (docs/reference/versions.md §0) ----
  if (config.doublewritePages != null && !caps.doublewritePagesVariable)
    add(
      "ignored",
      "config.doublewritePages",
      `innodb_doublewrite_pages exists on MySQL/Percona 8.0.20+ only; ${name} has none, so config.doublewritePages is ignored.`,
    );
  if (config.doublewriteFiles != null && !caps.doublewritePagesVariable)
    add(
      "ignored",
      "config.doublewriteFiles",
      `innodb_doublewrite_files exists on MySQL/Percona 8.0.20+ only; ${name} has none, so config.doublewriteFiles is ignored.`,
    );
  if (config.dataFileBuffering != null && !caps.dataFileBufferingVariable)
    add(
      "ignored",
      "config.dataFileBuffering",
      `innodb_data_file_buffering exists on MariaDB 11.0.1+ only; ${name} has none, so config.dataFileBuffering is ignored and innodb_flush_method decides.`,
    );
  if (config.useAtomicWrites != null && caps.flavor !== "mariadb")
    add(
      "ignored",
      "config.useAtomicWrites",
      `innodb_use_atomic_writes is a MariaDB setting; ${name} has none, so config.useAtomicWrites is ignored.`,
    );
  if (config.doublewrite === "detect_only" && !caps.detectOnly)
    add(
      "contradicted",
      "config.doublewrite",
      `innodb_doublewrite=DETECT_ONLY exists on MySQL/Percona 8.0.30+ only; ${name} cannot be in that mode.`,
    );

  // ---- platform facts for another platform ----
  if (platform?.rdsOptimizedWrites != null && platform.managed !== "rds")
    add(
      "ignored",
      "platform.rdsOptimizedWrites",
      `rds.optimized_writes applies to Amazon RDS only; platform.managed is ${platform.managed ?? "unknown"}, so it is ignored.`,
    );
  if (platform?.alibaba16kAtomicWrite != null && platform.managed !== "alibaba-rds")
    add(
      "ignored",
      "platform.alibaba16kAtomicWrite",
      `16K atomic write applies to ApsaraDB RDS only; platform.managed is ${platform.managed ?? "unknown"}, so it is ignored.`,
    );
  if (
    platform?.managed === "alibaba-rds" &&
    platform.alibaba16kAtomicWrite === false &&
    protection(facts) === "off"
  )
    add(
      "contradicted",
      "platform.alibaba16kAtomicWrite",
      "innodb_doublewrite reads OFF, which ApsaraDB RDS does only with 16K atomic write on, but platform.alibaba16kAtomicWrite is false; the safety gate follows the flag: check the feature in the RDS console.",
    );

  // ---- storage facts ----
  const aw = storage?.atomicWrite;
  if (aw && aw.attributesPresent !== true) {
    for (const key of ["unitMinBytes", "unitMaxBytes", "maxBytes", "boundaryBytes"] as const) {
      if (aw[key] == null) continue;
      add(
        "ignored",
        `storage.atomicWrite.${key}`,
        `storage.atomicWrite.${key} is ignored: attributesPresent is ${aw.attributesPresent === false ? "false (the kernel exposes no queue/atomic_write_* files)" : "not set"}, so the device's atomic-write limits count as unknown; set attributesPresent: true if the value was read from /sys/block/<disk>/queue/atomic_write_*.`,
      );
    }
  }
  if (storage?.tornWriteProtection && aw?.attributesPresent === true && aw.unitMaxBytes != null)
    add(
      "overridden",
      "storage.atomicWrite",
      `the platform guarantee (storage.tornWriteProtection, ${storage.tornWriteProtection.unitBytes} bytes) is used instead of the device's queue/atomic_write_unit_max_bytes (${aw.unitMaxBytes} bytes).`,
    );
  if (storage?.fsType?.toLowerCase() !== "zfs" && storage?.zfsRecordsizeBytes != null)
    add(
      "ignored",
      "storage.zfsRecordsizeBytes",
      `storage.zfsRecordsizeBytes applies to ZFS only; the file system is ${storage.fsType ?? "unknown"}, so it is ignored.`,
    );
  return out;
}
