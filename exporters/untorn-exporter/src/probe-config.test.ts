import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { loadProbeConfig, normalizeTarget } from "./probe-config.js";

function write(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), "untorn-probe-"));
  const p = join(dir, "probe.yml");
  writeFileSync(p, text);
  return p;
}

describe("normalizeTarget", () => {
  it.each([
    ["db1", "db1:3306"],
    ["DB1.Example.COM:3307", "db1.example.com:3307"],
    ["db1:03306", "db1:3306"],
    ["[::1]", "[::1]:3306"],
    ["[FE80::1]:3310", "[fe80::1]:3310"],
    ["/run//mysqld/mysqld.sock", "/run/mysqld/mysqld.sock"],
  ])("%s → %s", (raw, norm) => {
    expect(normalizeTarget(raw)).toBe(norm);
  });
});

describe("loadProbeConfig", () => {
  it("reads modules, their password file and their normalised allow-list", () => {
    const dir = mkdtempSync(join(tmpdir(), "untorn-probe-"));
    writeFileSync(join(dir, "pw"), "s3cret\n");
    const cfg = loadProbeConfig(
      write(
        `auth_modules:\n  client.rds:\n    user: exporter\n    password_file: ${join(dir, "pw")}\n    targets: ["DB1", "/run/mysqld/mysqld.sock"]\n`,
      ),
    );
    const m = cfg.get("client.rds")!;
    expect([...m.targets]).toEqual(["db1:3306", "/run/mysqld/mysqld.sock"]);
    expect(m.credentials).toEqual({ user: "exporter", password: "s3cret" });
  });

  it.each([
    ["auth_modules: {}\n", /at least one auth module/],
    ["auth_modules:\n  a:\n    user: u\n    password: p\n    targets: []\n", /at least one target/],
    ["auth_modules:\n  a:\n    user: u\n    targets: [db1]\n", /exactly one of password and password_file/],
    [
      "auth_modules:\n  a:\n    user: u\n    password: p\n    password_file: /x\n    targets: [db1]\n",
      /exactly one of password and password_file/,
    ],
    ["auth_modules:\n  a:\n    user: u\n    password: p\n    targets: ['db1;rm']\n", /target must be host/],
    [
      "auth_modules:\n  a:\n    user: u\n    password: p\n    targets: [db1]\n    dsn: x\n",
      /Unrecognized key/,
    ],
    [
      "auth_modules:\n  '../x':\n    user: u\n    password: p\n    targets: [db1]\n",
      /auth_modules\.\.\.\/x: Invalid key/,
    ],
    [
      "auth_modules:\n  a:\n    user: u\n    password: p\n    targets: [db1]\n    server_public_key_file: /nonexistent.pem\n",
      /server_public_key_file: ENOENT/,
    ],
    ["modules: {}\n", /auth_modules: .*expected record/],
    ["auth_modules: [\n", /--probe.config.file/],
  ])("refuses %j", (text, message) => {
    expect(() => loadProbeConfig(write(text))).toThrow(message);
  });
});
