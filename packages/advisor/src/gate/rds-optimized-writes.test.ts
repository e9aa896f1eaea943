import { describe, expect, it } from "vitest";
import { atomicNvme, facts, mariadb1011, mysql8025, mysql8035, rds } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";
import { rdsClassFamily } from "./rds-optimized-writes.js";

const off = { config: { doublewrite: "off" } };

gateCheckTester("rds-optimized-writes", {
  valid: [
    {
      name: "OFF on an Optimized Writes version",
      facts: facts("v1", mysql8035, rds, off),
      detail: [/16 KiB/],
    },
    {
      name: "class unknown: reading OFF is the evidence",
      facts: facts("v2", mysql8035, rds, off, { platform: { instanceClass: null } }),
    },
    { name: "MariaDB 10.11.6", facts: facts("v3", mariadb1011, rds, off) },
  ],
  invalid: [
    {
      name: "doublewrite still on",
      facts: facts("i1", mysql8035, rds),
      status: "fail",
      detail: [/still on/],
      fix: /Blue\/Green/,
      blocker: false,
    },
    {
      name: "8.0.28 has no Optimized Writes",
      facts: facts("i2", mysql8025, { server: { version: "8.0.28" } }, rds, off),
      status: "fail",
      detail: [/engine version has no Optimized Writes/],
    },
    {
      name: "rds.optimized_writes=OFF",
      facts: facts("i3", mysql8035, rds, off, { platform: { rdsOptimizedWrites: "off" } }),
      status: "fail",
      detail: [/rds\.optimized_writes is OFF/],
    },
    {
      name: "storage upgrade pending",
      facts: facts("i4", mysql8035, rds, off, { platform: { rdsStorageConfigUpgradeNeeded: true } }),
      status: "fail",
      detail: [/Blue\/Green storage upgrade/],
    },
    {
      name: "db.t3 class",
      facts: facts("i5", mysql8035, rds, off, { platform: { instanceClass: "db.t3.medium" } }),
      status: "fail",
      detail: [/db\.t3\.medium is not in AWS's documented/],
    },
  ],
  absent: [{ name: "self-managed", facts: facts("a1", mysql8035, atomicNvme, off) }],
});

describe("rdsClassFamily", () => {
  it.each([
    ["db.r6g.2xlarge", "r6g"],
    [" DB.X2IEDN.xlarge ", "x2iedn"],
    ["r6i.2xlarge", null],
    [null, null],
  ] as const)("%s -> %s", (cls, family) => expect(rdsClassFamily(cls)).toBe(family));
});
