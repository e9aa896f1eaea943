import { describe, expect, it } from "vitest";
import { type Capabilities, capabilitiesOf, compareVersions, parseVersion } from "./capabilities.js";
import type { Flavor } from "./words.js";

const caps = (flavor: Flavor, version: string): Capabilities => {
  const v = parseVersion(version);
  if (!v) throw new Error(version);
  return capabilitiesOf(flavor, v);
};

describe("parseVersion", () => {
  it.each([
    ["8.0.35", [8, 0, 35]],
    ["8.0.36-28", [8, 0, 36]],
    ["10.11.6-MariaDB-log", [10, 11, 6]],
    ["11.4.3-MariaDB-ubu2404", [11, 4, 3]],
    ["5.7.44-log", [5, 7, 44]],
  ] as const)("%s", (s, [major, minor, patch]) => {
    expect(parseVersion(s)).toEqual({ major, minor, patch });
  });
  it("returns null without major.minor.patch", () => expect(parseVersion("8.0")).toBeNull());
  it("orders versions numerically", () => {
    const a = parseVersion("8.0.9");
    const b = parseVersion("8.0.10");
    if (!a || !b) throw new Error("parse");
    expect(compareVersions(a, b)).toBeLessThan(0);
  });
});

// docs/reference/versions.md §0 as a table: flavor, version, then the capabilities that change across it.
describe("version matrix (docs/reference/versions.md §0)", () => {
  it.each([
    // flavor, version, location, detectOnly, runtimeOff, pagesVar, default pages, dblwr instrument
    ["mysql", "5.7.44", "system-tablespace", false, false, false, null, false],
    ["mysql", "8.0.19", "system-tablespace", false, false, false, null, false],
    ["mysql", "8.0.20", "dblwr-files", false, false, true, "write_io_threads", true],
    ["mysql", "8.0.29", "dblwr-files", false, false, true, "write_io_threads", true],
    ["mysql", "8.0.30", "dblwr-files", true, false, true, "write_io_threads", true],
    ["mysql", "8.3.0", "dblwr-files", true, false, true, "write_io_threads", true],
    ["mysql", "8.4.0", "dblwr-files", true, false, true, 128, true],
    ["mysql", "9.1.0", "dblwr-files", true, false, true, 128, true],
    ["percona", "5.7.11", "percona-parallel-file", false, false, false, null, false],
    ["percona", "8.0.19", "percona-parallel-file", false, false, false, null, false],
    ["percona", "8.0.36", "dblwr-files", true, false, true, "write_io_threads", true],
    ["mariadb", "10.6.16", "system-tablespace", false, false, false, null, false],
    ["mariadb", "11.0.5", "system-tablespace", false, false, false, null, false],
    ["mariadb", "11.0.6", "system-tablespace", false, true, false, null, false],
    ["mariadb", "11.4.3", "system-tablespace", false, false, false, null, false],
    ["mariadb", "11.8.3", "system-tablespace", false, true, false, null, false],
  ] as const)("%s %s", (flavor, version, location, detectOnly, runtimeOff, pagesVar, pages, instrument) => {
    const c = caps(flavor, version);
    expect(c.doublewriteLocation).toBe(location);
    expect(c.detectOnly).toBe(detectOnly);
    expect(c.runtimeBetweenEnabledModes).toBe(detectOnly);
    expect(c.persistRefused).toBe(detectOnly);
    expect(c.runtimeOff).toBe(runtimeOff);
    expect(c.fastMode).toBe(runtimeOff);
    expect(c.doublewritePagesVariable).toBe(pagesVar);
    expect(c.defaultDoublewritePages).toBe(pages);
    expect(c.dblwrFileInstrument).toBe(instrument);
  });

  it.each([
    ["11.0.5", false, false],
    ["11.0.6", true, false],
    ["11.1.6", false, true],
    ["11.2.4", false, true],
    ["11.4.5", false, true],
    ["11.5.2", false, true],
    ["11.6.2", true, false],
    ["12.0.1", true, false],
  ] as const)(
    "MariaDB %s: dynamic innodb_doublewrite %s, not established %s (docs/reference/mariadb.md §2.2)",
    (v, yes, unknown) => {
      const c = caps("mariadb", v);
      expect(c.runtimeOff).toBe(yes);
      expect(c.runtimeOffUnknown).toBe(unknown);
    },
  );

  it.each([
    ["10.5.6", false],
    ["10.5.7", true],
    ["10.5.20", false],
    ["10.6.12", true],
    ["10.6.13", false],
    ["10.7.8", true],
    ["10.11.2", true],
    ["10.11.3", false],
    ["11.0.2", false],
  ] as const)(
    "MDEV-31124 undercount on MariaDB %s: %s (docs/reference/status-counters.md §4)",
    (v, affected) => {
      expect(caps("mariadb", v).dataWrittenUndercountsDoublewrite).toBe(affected);
    },
  );

  it.each([
    ["mysql", "8.0.28", false],
    ["mysql", "8.0.30", true],
    ["mysql", "8.4.3", true],
    ["mariadb", "10.6.9", false],
    ["mariadb", "10.6.10", true],
    ["mariadb", "10.11.3", false],
    ["mariadb", "10.11.4", true],
    ["mariadb", "11.2.4", false],
    ["mariadb", "11.4.2", false],
    ["mariadb", "11.4.3", true],
    ["mariadb", "11.8.0", true],
  ] as const)(
    "RDS Optimized Writes on %s %s: %s (docs/reference/atomic-storage.md §8.1)",
    (flavor, v, ok) => {
      expect(caps(flavor, v).rdsOptimizedWritesVersion).toBe(ok);
    },
  );

  it("MariaDB 11.0.1+ has innodb_data_file_buffering (docs/reference/mariadb.md §2.5)", () => {
    expect(caps("mariadb", "11.0.0").dataFileBufferingVariable).toBe(false);
    expect(caps("mariadb", "11.0.1").dataFileBufferingVariable).toBe(true);
    expect(caps("mysql", "9.1.0").dataFileBufferingVariable).toBe(false);
  });

  it("checkpoint age is observable from MariaDB 10.5 and MySQL 8.0.30 (docs/reference/status-counters.md §4)", () => {
    expect(caps("mariadb", "10.4.30").checkpointAgeStatus).toBe(false);
    expect(caps("mariadb", "10.5.0").checkpointAgeStatus).toBe(true);
    expect(caps("mysql", "8.0.29").checkpointAgeStatus).toBe(false);
    expect(caps("mysql", "8.0.30").checkpointAgeStatus).toBe(true);
  });
});
