import { describe, expect, it } from "vitest";
import { detectFlavor, hasMdev31124, normaliseDoublewrite, serverInfo } from "./server-info.js";

describe("hasMdev31124", () => {
  it.each([
    ["10.5.6", false],
    ["10.5.7", true],
    ["10.5.20", false],
    ["10.6.12", true],
    ["10.6.13", false],
    ["10.7.8", true],
    ["10.11.2", true],
    ["10.11.3", false],
    ["10.11.19-MariaDB-0+deb12u1", false],
    ["11.4.2", false],
  ] as const)("MariaDB %s: %s", (version, affected) => {
    expect(hasMdev31124("mariadb", version)).toBe(affected);
  });
  it("never on MySQL", () => {
    expect(hasMdev31124("mysql", "10.6.1")).toBe(false);
  });
});

describe("serverInfo", () => {
  it("reads flavor, doublewrite and sizes from the variables row", () => {
    const i = serverInfo({
      version: "8.0.36-28",
      comment: "Percona Server (GPL), Release 28",
      dw: "DETECT_AND_RECOVER",
      page: "16384",
      bp: 134217728,
      flog: 1,
      fm: "O_DIRECT",
      datadir: "/var/lib/mysql/",
    });
    expect(i).toMatchObject({
      flavor: "percona",
      doublewrite: "detect_and_recover",
      pageSize: 16384,
      bufferPoolBytes: 134217728,
      flushLogAtTrxCommit: 1,
      mdev31124: false,
    });
    expect(detectFlavor("10.11.19-MariaDB", "")).toBe("mariadb");
    expect(normaliseDoublewrite(1)).toBe("on");
    expect(normaliseDoublewrite("0")).toBe("off");
    expect(normaliseDoublewrite("fast")).toBe("fast");
  });
});
