/**
 * The exporter's view of @@version: a [major, minor, patch] tuple for quick comparisons in the collectors.
 * Parsing, flavor detection and the MDEV-31124 table are the shared vocabulary's (@untorn/vocabulary).
 */
import { capabilitiesOf } from "@untorn/vocabulary/capabilities";
import { parseServerVersion } from "@untorn/vocabulary/server-version";
import type { Flavor } from "@untorn/vocabulary/words";

export type VersionTuple = readonly [number, number, number];

/** "10.11.19-MariaDB-0+deb12u1" → [10, 11, 19]; Aurora → the MySQL release it is based on; unparsable → 0.0.0. */
export function parseVersion(version: string): [number, number, number] {
  const v = parseServerVersion(version)?.version;
  return v ? [v.major, v.minor, v.patch] : [0, 0, 0];
}

/** a >= b for [major, minor, patch] tuples. */
export function atLeast(a: VersionTuple, b: VersionTuple): boolean {
  for (let i = 0; i < 3; i++) {
    if (a[i]! !== b[i]!) return a[i]! > b[i]!;
  }
  return true;
}

/** MariaDB says so in @@version; Percona Server in @@version_comment (and a "-NN" build suffix). */
export function detectFlavor(version: string, versionComment: string): Flavor {
  return parseServerVersion(version, versionComment)?.flavor ?? "mysql";
}

/** MDEV-31124: Innodb_data_written counts a doublewrite page as 1 byte (docs/reference/status-counters.md §4). */
export function hasMdev31124(flavor: Flavor, [major, minor, patch]: VersionTuple): boolean {
  return capabilitiesOf(flavor, { major, minor, patch }).dataWrittenUndercountsDoublewrite;
}
