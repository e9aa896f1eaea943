/**
 * RDS Optimized Writes: RDS switches innodb_doublewrite off itself when Optimized Writes is active, so
 * reading OFF is the evidence; anything known to keep the feature off contradicts it
 * (docs/reference/atomic-storage.md §8.1).
 */
import { protection } from "../config-state.js";
import { defineGateCheck } from "./check.js";

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

export const rdsOptimizedWrites = defineGateCheck({
  meta: {
    id: "rds-optimized-writes",
    path: "provider-managed",
    title: "RDS Optimized Writes active",
    appliesWhen: "`platform.managed` is `rds`",
    passesWhen:
      "an engine version with Optimized Writes and doublewrite reading OFF (RDS turns it off itself), unless something known contradicts it: `rds.optimized_writes = OFF`, a pending storage-configuration upgrade, or an instance class outside AWS's documented Optimized Writes families",
    needs: [
      "platform.managed",
      "platform.instanceClass",
      "platform.rdsOptimizedWrites",
      "platform.rdsStorageConfigUpgradeNeeded",
      "server.version",
      "config.doublewrite",
    ],
    source: "docs/reference/atomic-storage.md §8.1",
  },
  applies: ({ facts }) => facts.platform?.managed === "rds",
  evaluate({ facts, caps }) {
    const platform = facts.platform;
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
    const active = protection(facts) === "off" && contradictions.length === 0;
    return {
      status: active ? "pass" : "fail",
      detail: active
        ? "RDS engine with innodb_doublewrite off on an Optimized Writes version: RDS writes 16 KiB pages atomically."
        : contradictions.length > 0
          ? `Optimized Writes cannot be active: ${contradictions.join("; ")}.`
          : "Doublewrite is still on: Optimized Writes is not active on this instance (class, storage layout or parameter).",
      fix: "Enable Optimized Writes through a Blue/Green deployment; RDS then turns doublewrite off itself.",
    };
  },
});
