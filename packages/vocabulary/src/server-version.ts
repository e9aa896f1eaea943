/**
 * @@version strings as servers print them, into flavor + version. One module with its table tests
 * (server-version.test.ts).
 *
 * - MySQL: 8.0.35, 5.7.44-log, 8.0.36-0ubuntu0.22.04.1, 8.4.3-commercial, 8.0.35-google (Cloud SQL).
 * - Percona Server: a numeric build after the version, 8.0.36-28, 5.7.44-48-log; its version_comment
 *   names Percona.
 * - MariaDB: 10.6.16-MariaDB-log, 11.4.3-MariaDB-ubu2204; over the MySQL protocol with the
 *   5.5.5- prefix that old clients needed (5.5.5-10.6.16-MariaDB).
 * - Aurora MySQL: 8.0.mysql_aurora.3.05.2 (version 3, MySQL 8.0 compatible) and 5.7.mysql_aurora.2.11.2
 *   (version 2, MySQL 5.7.12 compatible). @@aurora_version gives the Aurora release; the MySQL patch
 *   level comes from AWS's release notes table below
 *   (https://docs.aws.amazon.com/AmazonRDS/latest/AuroraMySQLReleaseNotes/AuroraMySQL.Updates.30Updates.html).
 * - Cloud suffixes (-google, -azure, -alibaba/-aliyun/AliSQL, -log, -debug): the leading
 *   major.minor.patch is the engine version, the suffix says who built it.
 */
import type { Flavor } from "./words.js";

export interface Version {
  readonly major: number;
  readonly minor: number;
  readonly patch: number;
}

export type Build = "community" | "percona" | "mariadb" | "aurora" | "google" | "azure" | "alibaba";

export interface ServerVersion {
  /** The engine version the server is compatible with (Aurora: the MySQL release it is based on). */
  readonly version: Version;
  /** Flavor the string itself shows, or null when it could be MySQL or Percona alike. */
  readonly flavor: Flavor | null;
  readonly build: Build;
  /** Aurora: the Aurora release, e.g. "3.05.2". */
  readonly auroraVersion?: string;
}

/**
 * Aurora MySQL version 3 minor → MySQL 8.0 patch it is compatible with (AWS release notes, document
 * history: https://docs.aws.amazon.com/AmazonRDS/latest/AuroraMySQLReleaseNotes/doc-history.html). Unlisted
 * later minors take the highest listed one below them: a lower patch only ever hides features.
 */
const AURORA3_MYSQL_PATCH: ReadonlyArray<readonly [number, number]> = [
  [1, 23],
  [2, 23],
  [3, 26],
  [4, 28],
  [5, 32],
  [6, 34],
  [7, 36],
  [8, 39],
  [9, 40],
  [10, 42],
];

function auroraMysqlPatch(auroraMinor: number): number {
  let patch = AURORA3_MYSQL_PATCH[0]![1];
  for (const [minor, p] of AURORA3_MYSQL_PATCH) if (auroraMinor >= minor) patch = p;
  return patch;
}

const SUFFIX_BUILDS: ReadonlyArray<readonly [RegExp, Build]> = [
  [/mariadb/i, "mariadb"],
  [/google/i, "google"],
  [/azure/i, "azure"],
  [/alibaba|aliyun|alisql/i, "alibaba"],
];

/** Parses @@version; null when no major.minor.patch (or Aurora form) is in it. */
export function parseServerVersion(raw: string, versionComment?: string | null): ServerVersion | null {
  const s = raw.trim();
  const aurora = /^(\d+)\.(\d+)\.mysql_aurora\.(\d+)\.(\d+)(?:\.(\d+))?/i.exec(s);
  if (aurora) {
    const [, maj, min, am, an, ap] = aurora;
    const major = Number(maj);
    const minor = Number(min);
    const auroraMajor = Number(am);
    const auroraMinor = Number(an);
    // Version 2 is MySQL 5.7.12 compatible throughout; version 3 follows the table.
    const patch = major === 5 ? 12 : auroraMajor >= 3 ? auroraMysqlPatch(auroraMinor) : 0;
    return {
      version: { major, minor, patch },
      flavor: "mysql",
      build: "aurora",
      auroraVersion: `${am}.${an}${ap !== undefined ? `.${ap}` : ""}`,
    };
  }
  // MariaDB behind the 5.5.5- compatibility prefix.
  const body = /^5\.5\.5-(\d+\.\d+\.\d+.*mariadb)/i.exec(s)?.[1] ?? s;
  const m = /^(\d+)\.(\d+)\.(\d+)(.*)$/.exec(body);
  if (!m) return null;
  const version = { major: Number(m[1]), minor: Number(m[2]), patch: Number(m[3]) };
  const suffix = m[4] ?? "";
  for (const [re, build] of SUFFIX_BUILDS) {
    if (re.test(suffix)) return { version, flavor: build === "mariadb" ? "mariadb" : "mysql", build };
  }
  if (/percona/i.test(versionComment ?? "") || /^-\d+(?:\.\d+)?(?:-log|-debug)?$/i.test(suffix))
    return { version, flavor: "percona", build: "percona" };
  if (/mariadb/i.test(versionComment ?? "")) return { version, flavor: "mariadb", build: "mariadb" };
  return { version, flavor: null, build: "community" };
}

export function formatVersion(x: Version): string {
  return `${x.major}.${x.minor}.${x.patch}`;
}
