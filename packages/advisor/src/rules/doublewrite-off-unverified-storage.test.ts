import { expect } from "vitest";
import {
  atomicNvme,
  aurora,
  facts,
  mariadb114,
  mysql8025,
  mysql8035,
  rds,
  virtio,
  zfs16k,
} from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

ruleTester("doublewrite-off-unverified-storage", {
  valid: [
    { name: "off on ZFS 16K", facts: facts("v1", mysql8035, zfs16k, parts.off, loads.moderate(false)) },
    {
      name: "off on verified NVMe",
      facts: facts("v2", mysql8035, atomicNvme, parts.off, loads.moderate(false)),
    },
    { name: "RDS Optimized Writes", facts: facts("v3", mysql8035, rds, parts.off) },
    { name: "Aurora", facts: facts("v4", mysql8035, aurora, parts.off) },
    { name: "on", facts: facts("v5", mysql8035, virtio, loads.moderate()) },
    {
      name: "fast keeps the copy",
      facts: facts("v6", mariadb114, virtio, { config: { doublewrite: "fast" } }),
    },
  ],
  invalid: [
    {
      name: "MySQL 8.0.25 off on virtio: my.cnf + restart",
      facts: facts("i1", mysql8025, virtio, parts.off, loads.moderate(false)),
      severity: "critical",
      summary: [/innodb_doublewrite=OFF/, /unsafe/, /cannot be repaired/],
      platforms: ["mysql-option-file"],
      snippets: ["innodb_doublewrite = ON"],
      check: (f) => expect(f.actions[0]?.changes[0]?.removesTornPageProtection).toBe(false),
    },
    {
      name: "MySQL 8.0.35 DETECT_ONLY on virtio: SET GLOBAL back to ON",
      facts: facts("i2", mysql8035, virtio, parts.detectOnly, loads.moderate(false)),
      severity: "error",
      summary: [/DETECT_ONLY detects a torn page/],
      platforms: ["mysql-runtime"],
      snippets: ["SET GLOBAL innodb_doublewrite = 'ON';"],
    },
    {
      name: "MariaDB 11.8 off: SET GLOBAL ON",
      facts: facts("i3", mariadb114, { server: { version: "11.8.3-MariaDB" } }, virtio, parts.off),
      severity: "critical",
      platforms: ["mariadb-runtime"],
      snippets: ["SET GLOBAL innodb_doublewrite = ON;"],
    },
    {
      name: "MariaDB 11.4 off: ON in my.cnf and restart (11.4 minors not established as dynamic)",
      facts: facts("i3b", mariadb114, virtio, parts.off),
      severity: "critical",
      platforms: ["mariadb-option-file"],
      snippets: ["[mysqld]\ninnodb_doublewrite = ON"],
    },
    {
      name: "off with no storage facts at all",
      facts: facts("i4", mysql8035, parts.off),
      severity: "critical",
      summary: [/unverified/],
      check: (f) => expect(f.prerequisites.length).toBeGreaterThan(0),
    },
    {
      name: "RDS without Optimized Writes: reset the parameter group",
      facts: facts("i5", mysql8025, { server: { version: "8.0.28" } }, rds, parts.off),
      severity: "critical",
      platforms: ["aws-rds"],
      snippets: ["reset-db-parameter-group", "ParameterName=innodb_doublewrite"],
    },
  ],
});
