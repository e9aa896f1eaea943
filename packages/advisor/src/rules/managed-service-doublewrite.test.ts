import { expect } from "vitest";
import {
  alibaba,
  atomicNvme,
  aurora,
  facts,
  mariadb1011,
  merge,
  mysql8025,
  mysql8035,
  rds,
} from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

const remote = (dw = true) => loads.iopsBound(dw, { device: null });

ruleTester("managed-service-doublewrite", {
  valid: [
    { name: "self-managed", facts: facts("v1", mysql8035, atomicNvme, loads.moderate()) },
    {
      name: "RDS, doublewrite mode unknown",
      facts: facts("v2", mysql8035, rds, { config: { doublewrite: null } }),
    },
    {
      name: "Alibaba, feature off but doublewrite off (the off rule reports it)",
      facts: facts("v3", mysql8035, alibaba, parts.off),
    },
  ],
  invalid: [
    {
      name: "RDS MySQL 8.0.35 write-bound: Blue/Green with storage upgrade",
      facts: facts("i1", mysql8035, parts.tuned, rds, remote()),
      severity: "warning",
      summary: [/Never set innodb_doublewrite by hand/, /write throughput/],
      platforms: ["aws-rds"],
      snippets: [
        "create-blue-green-deployment",
        "--upgrade-target-storage-config",
        "rds.optimized_writes=AUTO",
      ],
      check: (f) => {
        expect(f.actions[0]?.changes[0]).toMatchObject({
          variable: "rds.optimized_writes",
          to: "AUTO",
          via: "blue-green",
        });
        expect(f.actions[0]?.changes[0]?.removesTornPageProtection).toBe(false);
      },
    },
    {
      name: "RDS created after the launch: no storage upgrade flag",
      facts: facts(
        "i2",
        mysql8035,
        parts.tuned,
        merge(rds, { platform: { rdsStorageConfigUpgradeNeeded: false } }),
        remote(),
      ),
      severity: "warning",
      check: (f) => expect(f.actions[0]?.snippets[0]?.text).not.toContain("--upgrade-target-storage-config"),
    },
    {
      name: "RDS parameter rds.optimized_writes=OFF",
      facts: facts(
        "i3",
        mysql8035,
        parts.tuned,
        merge(rds, { platform: { rdsOptimizedWrites: "off" } }),
        remote(),
      ),
      severity: "warning",
      summary: [/because rds\.optimized_writes=OFF/],
    },
    {
      name: "RDS Optimized Writes active",
      facts: facts("i4", mysql8035, rds, parts.off),
      severity: "notice",
      summary: [/Do not set innodb_doublewrite yourself/],
      platforms: [],
    },
    {
      name: "RDS MySQL 8.0.28: upgrade first, blocked",
      facts: facts("i5", mysql8025, { server: { version: "8.0.28" } }, rds, remote()),
      severity: "warning",
      summary: [/needs RDS for MySQL 8\.0\.30\+/],
      blocked: true,
      check: (f) => expect(f.expectedGain?.throughput.high).toBeGreaterThan(0),
    },
    {
      name: "RDS MariaDB 10.11.4",
      facts: facts("i6", mariadb1011, { server: { version: "10.11.4-MariaDB" } }, rds, remote()),
      severity: "warning",
      platforms: ["aws-rds"],
    },
    { name: "Aurora", facts: facts("i7", mysql8035, aurora), severity: "notice", summary: [/do not apply/] },
    {
      name: "Alibaba without 16K atomic write",
      facts: facts("i8", mysql8035, alibaba, remote()),
      severity: "warning",
      platforms: ["alibaba-rds"],
      summary: [/\+40-48% QPS/],
    },
    {
      name: "Alibaba with 16K atomic write",
      facts: facts("i9", mysql8035, merge(alibaba, { platform: { alibaba16kAtomicWrite: true } }), parts.off),
      severity: "notice",
      summary: [/nothing to change/],
    },
  ],
});
