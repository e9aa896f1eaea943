import type { Flavor } from "./collector.js";

/** "10.11.19-MariaDB-0+deb12u1" → [10, 11, 19]; unparsable parts are 0. */
export function parseVersion(version: string): [number, number, number] {
  const m = /^(\d+)\.(\d+)\.(\d+)/.exec(version) ?? /^(\d+)\.(\d+)/.exec(version);
  return [Number(m?.[1] ?? 0), Number(m?.[2] ?? 0), Number(m?.[3] ?? 0)];
}

/** a >= b for [major, minor, patch] tuples. */
export function atLeast(a: readonly [number, number, number], b: readonly [number, number, number]): boolean {
  for (let i = 0; i < 3; i++) {
    if (a[i]! !== b[i]!) return a[i]! > b[i]!;
  }
  return true;
}

/** MariaDB says so in @@version; Percona Server in @@version_comment (and a "-NN" build suffix). */
export function detectFlavor(version: string, versionComment: string): Flavor {
  if (/mariadb/i.test(version) || /mariadb/i.test(versionComment)) return "mariadb";
  if (/percona/i.test(versionComment) || /percona/i.test(version)) return "percona";
  return "mysql";
}

/**
 * MDEV-31124: from 10.5.7 until 10.5.20 / 10.6.13 / 10.8.8 / 10.9.6 / 10.10.4 / 10.11.3 MariaDB added
 * doublewrite writes to Innodb_data_written without multiplying by the page size (docs/reference/status-counters.md §4).
 */
export function hasMdev31124(flavor: Flavor, v: readonly [number, number, number]): boolean {
  if (flavor !== "mariadb") return false;
  const [major, minor, patch] = v;
  if (major !== 10) return false;
  const fixedIn: Record<number, number> = {
    5: 20,
    6: 13,
    7: Number.POSITIVE_INFINITY,
    8: 8,
    9: 6,
    10: 4,
    11: 3,
  };
  if (minor === 5) return patch >= 7 && patch < 20;
  const fix = fixedIn[minor];
  return fix !== undefined && patch < fix;
}
