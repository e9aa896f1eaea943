import { describe, expect, it } from "vitest";
import { atLeast, detectFlavor, hasMdev31124, parseVersion } from "./version.js";

describe("version helpers", () => {
  it.each([
    ["10.11.19-MariaDB-0+deb12u1", [10, 11, 19]],
    ["8.0.35", [8, 0, 35]],
    ["8.4.3-3", [8, 4, 3]],
    ["9.1.0", [9, 1, 0]],
    ["8.0.mysql_aurora.3.05.2", [8, 0, 32]],
    ["garbage", [0, 0, 0]],
  ])("parses %s", (v, expected) => {
    expect(parseVersion(v)).toEqual(expected);
  });

  it.each([
    ["10.11.19-MariaDB", "Debian 12", "mariadb"],
    ["8.0.36-28", "Percona Server (GPL), Release 28, Revision 47601f19", "percona"],
    ["8.0.36", "Source distribution", "mysql"],
    ["8.0.32", "MySQL Community Server - GPL", "mysql"],
  ])("detects %s / %s as %s", (v, c, flavor) => {
    expect(detectFlavor(v, c)).toBe(flavor);
  });

  it("compares versions", () => {
    expect(atLeast([8, 0, 30], [8, 0, 30])).toBe(true);
    expect(atLeast([8, 0, 29], [8, 0, 30])).toBe(false);
    expect(atLeast([9, 0, 0], [8, 4, 9])).toBe(true);
  });

  it.each([
    [[10, 5, 6], false],
    [[10, 5, 7], true],
    [[10, 5, 20], false],
    [[10, 6, 12], true],
    [[10, 6, 13], false],
    [[10, 7, 5], true],
    [[10, 11, 2], true],
    [[10, 11, 3], false],
    [[11, 4, 2], false],
  ] as const)("MDEV-31124 affects MariaDB %j: %s", (v, affected) => {
    expect(hasMdev31124("mariadb", v)).toBe(affected);
    expect(hasMdev31124("mysql", v)).toBe(false);
  });
});
