import { describe, expect, it } from "vitest";
import { type Change, changeSchema, describeChange, removesProtection, stepFor } from "./change.ts";
import { mysql } from "./testing.ts";

const c = (x: unknown): Change => changeSchema.parse(x);

describe("stepFor: per flavor, version and platform", () => {
  it.each([
    [
      "MySQL 8.0.35 OFF: option file + restart (SET GLOBAL cannot reach OFF)",
      "mysql",
      "8.0.35",
      { kind: "doublewrite-off" },
      "option-file-restart",
      true,
      "off",
    ],
    [
      "MySQL 8.0.25 OFF: option file + restart (read-only before 8.0.30)",
      "mysql",
      "8.0.25",
      { kind: "doublewrite-off" },
      "option-file-restart",
      true,
      "off",
    ],
    [
      "MySQL 8.0.35 DETECT_ONLY: SET GLOBAL, no restart",
      "mysql",
      "8.0.35",
      { kind: "doublewrite-detect-only" },
      "set-global",
      false,
      "detect_only",
    ],
    [
      "Percona 8.0.36 DETECT_ONLY: SET GLOBAL",
      "percona",
      "8.0.36-28",
      { kind: "doublewrite-detect-only" },
      "set-global",
      false,
      "detect_only",
    ],
    [
      "MariaDB 10.11 OFF: option file + restart",
      "mariadb",
      "10.11.6-MariaDB",
      { kind: "doublewrite-off" },
      "option-file-restart",
      true,
      "off",
    ],
    [
      "MariaDB 11.0.6 OFF: SET GLOBAL (MDEV-33545)",
      "mariadb",
      "11.0.6-MariaDB",
      { kind: "doublewrite-off" },
      "set-global",
      false,
      "off",
    ],
    [
      "MariaDB 11.8 OFF: SET GLOBAL",
      "mariadb",
      "11.8.2-MariaDB",
      { kind: "doublewrite-off" },
      "set-global",
      false,
      "off",
    ],
    [
      "MariaDB 11.4 OFF: option file (dynamic not established)",
      "mariadb",
      "11.4.3-MariaDB",
      { kind: "doublewrite-off" },
      "option-file-restart",
      true,
      "off",
    ],
  ] as const)("%s", (_name, flavor, version, change, method, restart, mode) => {
    const r = stepFor(c(change), mysql("r1", "replica", { flavor, version }));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.step.method).toBe(method);
    expect(r.step.restart).toBe(restart);
    expect(r.step.expect.doublewriteMode).toBe(mode);
    expect(r.step.removesTornPageProtection).toBe(true);
    expect(r.step.revert.previousValue).toBe("ON");
    expect(r.step.revert.expect.doublewriteMode).toBe("on");
    expect(r.step.steps.join(" ")).not.toContain("Roll out replica by replica");
  });

  it("OFF on a primary: switch over first", () => {
    const r = stepFor(c({ kind: "doublewrite-off" }), mysql("p1", "primary"));
    expect(r.ok && r.step.switchover).toBe(true);
    expect(r.ok && r.step.steps[0]).toMatch(/switch over/);
  });

  it("MySQL OFF expects the doublewrite counters flat; DETECT_ONLY does not (metadata is still written)", () => {
    const off = stepFor(c({ kind: "doublewrite-off" }), mysql("r1", "replica"));
    const det = stepFor(c({ kind: "doublewrite-detect-only" }), mysql("r1", "replica"));
    expect(off.ok && off.step.expect.doublewriteFlat).toBe(true);
    expect(det.ok && det.step.expect.doublewriteFlat).toBeUndefined();
  });

  it("innodb_doublewrite_pages: SET PERSIST_ONLY + restart on MySQL 8.0.20+, read back as a gauge", () => {
    const r = stepFor(c({ kind: "doublewrite-pages", pages: 128 }), mysql("r1", "replica"));
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.step).toMatchObject({
      method: "set-persist-only-restart",
      restart: true,
      current: "4",
      target: "128",
    });
    expect(r.step.snippets[0]!.text).toContain("SET PERSIST_ONLY innodb_doublewrite_pages = '128'");
    expect(r.step.expect.doublewritePages).toBe(128);
    expect(r.step.revert).toMatchObject({ previousValue: "4", expect: { doublewritePages: 4 } });
  });

  it("RDS: parameter group + reboot for a static variable", () => {
    const r = stepFor(
      c({ kind: "doublewrite-pages", pages: 128 }),
      mysql("r1", "replica", { managed: "rds" }),
    );
    expect(r.ok && r.step.method).toBe("parameter-group-reboot");
    expect(r.ok && r.step.snippets[0]!.text).toContain("ApplyMethod=pending-reboot");
    expect(r.ok && r.step.steps.join(" ")).toContain("in-sync");
  });

  it("flush method on MariaDB 11: option file, with the deprecation noted", () => {
    const f = mysql("r1", "replica", { flavor: "mariadb", version: "11.4.3-MariaDB" });
    const r = stepFor(c({ kind: "flush-method", method: "fsync" }), f);
    expect(r.ok && r.step.method).toBe("option-file-restart");
    expect(r.ok && r.step.steps.join(" ")).toContain("innodb_data_file_buffering");
    expect(r.ok && r.step.expect.configInfo).toEqual({ flush_method: "fsync" });
  });

  it("RDS Blue/Green with Optimized Writes: a switchover, verified by doublewrite reading off", () => {
    const r = stepFor(
      c({ kind: "atomic-storage", platform: "rds-blue-green" }),
      mysql("r1", "replica", { managed: "rds", verified: false }),
    );
    expect(r.ok && r.step).toMatchObject({
      method: "blue-green-switchover",
      switchover: true,
      expect: { doublewriteMode: "off" },
    });
  });

  it("Alibaba 16K atomic write: console toggle on the primary; replicas inherit it", () => {
    const p = stepFor(
      c({ kind: "atomic-storage", platform: "alibaba-16k" }),
      mysql("p1", "primary", { managed: "alibaba-rds", verified: false }),
    );
    expect(p.ok && p.step).toMatchObject({ method: "console-toggle", restart: true });
    const r = stepFor(
      c({ kind: "atomic-storage", platform: "alibaba-16k" }),
      mysql("r1", "replica", { managed: "alibaba-rds", verified: false }),
    );
    expect(!r.ok && r.ineligible.reason).toBe("inherits-setting");
  });

  it("self-managed migration keeps doublewrite on and is verified by the safety gate afterwards", () => {
    const r = stepFor(
      c({ kind: "atomic-storage", platform: "self-managed-migration" }),
      mysql("r1", "replica", { verified: false }),
    );
    expect(r.ok && r.step.expect).toEqual({ restart: true, gateVerified: true });
    expect(r.ok && r.step.removesTornPageProtection).toBe(false);
  });

  it.each([
    [
      "DETECT_ONLY on MariaDB",
      { kind: "doublewrite-detect-only" },
      { flavor: "mariadb", version: "10.11.6-MariaDB" },
      "version-without-setting",
    ],
    [
      "DETECT_ONLY on MySQL 8.0.25",
      { kind: "doublewrite-detect-only" },
      { version: "8.0.25" },
      "version-without-setting",
    ],
    [
      "pages on MySQL 5.7",
      { kind: "doublewrite-pages", pages: 64 },
      { version: "5.7.44" },
      "version-without-setting",
    ],
    ["OFF on RDS", { kind: "doublewrite-off" }, { managed: "rds" }, "provider-managed"],
    ["OFF when already off", { kind: "doublewrite-off" }, { doublewrite: "off" }, "already-at-target"],
    [
      "Blue/Green on a self-managed server",
      { kind: "atomic-storage", platform: "rds-blue-green" },
      {},
      "platform-mismatch",
    ],
    [
      "Blue/Green on RDS MySQL 8.0.28",
      { kind: "atomic-storage", platform: "rds-blue-green" },
      { managed: "rds", version: "8.0.28" },
      "version-without-setting",
    ],
    ["pages already at target", { kind: "doublewrite-pages", pages: 4 }, {}, "already-at-target"],
  ] as const)("ineligible: %s", (_n, change, opts, reason) => {
    const r = stepFor(c(change), mysql("r1", "replica", opts));
    expect(r.ok).toBe(false);
    if (!r.ok) expect(r.ineligible.reason).toBe(reason);
  });

  it("custom variables must be read back by the exporter and safe to write into SQL", () => {
    expect(
      changeSchema.safeParse({
        kind: "custom-variable",
        variable: "innodb_io_capacity",
        value: "1",
        dynamic: true,
      }).success,
    ).toBe(false);
    expect(
      changeSchema.safeParse({
        kind: "custom-variable",
        variable: "innodb_flush_method",
        value: "x'; DROP",
        dynamic: false,
      }).success,
    ).toBe(false);
    const r = stepFor(
      c({ kind: "custom-variable", variable: "innodb_use_fdatasync", value: "ON", dynamic: true }),
      mysql("r1", "replica"),
    );
    expect(r.ok && r.step).toMatchObject({
      method: "set-global",
      restart: false,
      expect: { configInfo: { use_fdatasync: "ON" } },
    });
  });
});

describe("stepFor: doublewrite back ON", () => {
  it.each([
    [
      "MySQL 8.0.35 from OFF: option file + restart (SET GLOBAL cannot leave OFF)",
      "mysql",
      "8.0.35",
      "off",
      "option-file-restart",
      true,
    ],
    [
      "MySQL 8.0.25 from OFF: option file + restart (read-only before 8.0.30)",
      "mysql",
      "8.0.25",
      "off",
      "option-file-restart",
      true,
    ],
    [
      "MySQL 8.0.35 from DETECT_ONLY: SET GLOBAL between enabled modes",
      "mysql",
      "8.0.35",
      "detect_only",
      "set-global",
      false,
    ],
    [
      "MariaDB 10.11 from OFF: option file + restart (static before 11.0.6)",
      "mariadb",
      "10.11.6-MariaDB",
      "off",
      "option-file-restart",
      true,
    ],
    [
      "MariaDB 11.0.6 from OFF: SET GLOBAL (MDEV-33545)",
      "mariadb",
      "11.0.6-MariaDB",
      "off",
      "set-global",
      false,
    ],
  ] as const)("%s", (_name, flavor, version, from, method, restart) => {
    // No storage facts: the safety gate is unverified, and turning protection back on does not need it.
    const f = mysql("r1", "replica", { flavor, version, doublewrite: from, verified: false });
    const r = stepFor(c({ kind: "doublewrite-on" }), f);
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.step).toMatchObject({ method, restart, target: "ON", variable: "innodb_doublewrite" });
    expect(r.step.removesTornPageProtection).toBe(false);
    expect(r.step.expect).toEqual({ restart, doublewriteMode: "on" });
    expect(r.step.revert.previousValue).toBe(from.toUpperCase());
    expect(r.step.revert.expect.doublewriteMode).toBe(from);
    expect(r.step.snippets.map((s) => s.text).join("\n")).toContain("innodb_doublewrite = ON");
  });

  it("is not offered where doublewrite already protects, on managed services or a read-only server", () => {
    for (const dw of ["on", "detect_and_recover"]) {
      const r = stepFor(c({ kind: "doublewrite-on" }), mysql("r1", "replica", { doublewrite: dw }));
      expect(!r.ok && r.ineligible.reason).toBe("already-at-target");
    }
    const rds = stepFor(
      c({ kind: "doublewrite-on" }),
      mysql("r1", "replica", { doublewrite: "off", managed: "rds" }),
    );
    expect(!rds.ok && rds.ineligible.reason).toBe("provider-managed");
  });

  it("does not remove protection", () => {
    expect(removesProtection(c({ kind: "doublewrite-on" }))).toBe(false);
    // innodb_doublewrite set as a custom variable: the vocabulary's modes decide, in any spelling.
    const custom = (value: string) =>
      removesProtection(
        c({ kind: "custom-variable", variable: "innodb_doublewrite", value, dynamic: false }),
      );
    expect(["OFF", "0", "false", "DETECT_ONLY"].map(custom)).toEqual([true, true, true, true]);
    expect(["ON", "1", "TRUE", "DETECT_AND_RECOVER", "fast"].map(custom)).toEqual([
      false,
      false,
      false,
      false,
      false,
    ]);
    expect(describeChange(c({ kind: "doublewrite-on" }))).toBe("innodb_doublewrite = ON");
  });
});
