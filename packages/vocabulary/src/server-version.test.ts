import { describe, expect, it } from "vitest";
import { formatVersion, parseServerVersion } from "./server-version.js";

describe("parseServerVersion", () => {
  it.each([
    ["8.0.35", null, "8.0.35", null, "community"],
    ["5.7.44-log", null, "5.7.44", null, "community"],
    ["8.0.36-0ubuntu0.22.04.1", null, "8.0.36", null, "community"],
    ["8.0.36-28", null, "8.0.36", "percona", "percona"],
    ["5.7.44-48-log", null, "5.7.44", "percona", "percona"],
    ["8.0.35", "Percona Server (GPL), Release 27", "8.0.35", "percona", "percona"],
    ["10.6.16-MariaDB-log", null, "10.6.16", "mariadb", "mariadb"],
    ["11.4.3-MariaDB-ubu2204", null, "11.4.3", "mariadb", "mariadb"],
    ["5.5.5-10.6.16-MariaDB", null, "10.6.16", "mariadb", "mariadb"],
    ["8.0.mysql_aurora.3.05.2", null, "8.0.32", "mysql", "aurora"],
    ["8.0.mysql_aurora.3.07.1", null, "8.0.36", "mysql", "aurora"],
    ["8.0.mysql_aurora.3.09.0", null, "8.0.40", "mysql", "aurora"],
    ["8.0.mysql_aurora.3.12.0", null, "8.0.42", "mysql", "aurora"],
    ["5.7.mysql_aurora.2.11.2", null, "5.7.12", "mysql", "aurora"],
    ["8.0.35-google", null, "8.0.35", "mysql", "google"],
    ["8.0.21-azure", null, "8.0.21", "mysql", "azure"],
    ["8.0.25-AliSQL", null, "8.0.25", "mysql", "alibaba"],
  ] as const)("%s (%s)", (raw, comment, version, flavor, build) => {
    const v = parseServerVersion(raw, comment);
    expect(v).not.toBeNull();
    expect(formatVersion(v!.version)).toBe(version);
    expect(v!.flavor).toBe(flavor);
    expect(v!.build).toBe(build);
  });

  it("keeps the Aurora release", () => {
    expect(parseServerVersion("8.0.mysql_aurora.3.05.2")?.auroraVersion).toBe("3.05.2");
  });

  it.each(["", "latest", "8.0", "mysql_aurora.3.05.2", "v8.0.35"])("refuses %j", (raw) => {
    expect(parseServerVersion(raw)).toBeNull();
  });
});
