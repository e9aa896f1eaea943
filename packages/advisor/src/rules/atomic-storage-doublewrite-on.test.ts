import { expect } from "vitest";
import {
  atomicNvme,
  ebsTwp,
  facts,
  mariadb114,
  mariadb1011,
  mysql57,
  mysql8035,
  rds,
  virtio,
  zfs16k,
} from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

ruleTester("atomic-storage-doublewrite-on", {
  valid: [
    { name: "storage unsafe", facts: facts("v1", mysql8035, virtio, loads.deviceBound()) },
    { name: "already off", facts: facts("v2", mysql8035, atomicNvme, parts.off, loads.moderate(false)) },
    {
      name: "DETECT_ONLY (detect-only-step covers it)",
      facts: facts("v3", mysql8035, atomicNvme, parts.detectOnly),
    },
    { name: "RDS manages it", facts: facts("v4", mysql8035, rds, loads.moderate(true, { device: null })) },
    {
      name: "doublewrite mode unknown",
      facts: facts("v5", mysql8035, atomicNvme, { config: { doublewrite: null } }, loads.moderate()),
    },
  ],
  invalid: [
    {
      name: "MySQL 8.0.35 write-bound on atomic NVMe: my.cnf + restart",
      facts: facts("i1", mysql8035, parts.tuned, atomicNvme, loads.deviceBound()),
      severity: "warning",
      summary: [/verified/, /write throughput/, /DETECT_ONLY first/],
      platforms: ["mysql-option-file"],
      snippets: ["innodb_doublewrite = OFF"],
      check: (f) => {
        const c = f.actions[0]?.changes[0];
        expect(c).toMatchObject({
          variable: "innodb_doublewrite",
          to: "OFF",
          restart: true,
          removesTornPageProtection: true,
        });
        expect(f.risk.level).toBe("medium");
        expect(f.risk.text).toMatch(/restore .* from backup|rebuild the replica/);
        expect(f.actions[0]?.steps.join(" ")).toMatch(/NOPERSIST/);
      },
    },
    {
      name: "MariaDB 11.8: SET GLOBAL, no restart",
      facts: facts(
        "i2",
        mariadb114,
        { server: { version: "11.8.3-MariaDB" } },
        atomicNvme,
        loads.deviceBound(),
      ),
      severity: "warning",
      platforms: ["mariadb-runtime"],
      snippets: ["SET GLOBAL innodb_doublewrite = OFF;", "innodb_doublewrite = OFF"],
      check: (f) => expect(f.actions[0]?.restart).toBe(false),
    },
    {
      name: "MariaDB 11.4: dynamic or not is not established, so my.cnf + restart and how to check",
      facts: facts("i2b", mariadb114, atomicNvme, loads.deviceBound()),
      severity: "warning",
      platforms: ["mariadb-option-file"],
      snippets: ["[mysqld]\ninnodb_doublewrite = OFF"],
      check: (f) => {
        expect(f.actions[0]?.restart).toBe(true);
        expect(f.actions[0]?.snippets.map((s) => s.text).join("\n")).toMatch(
          /information_schema\.SYSTEM_VARIABLES/,
        );
      },
    },
    {
      name: "MariaDB 10.11: read-only, my.cnf + restart",
      facts: facts("i3", mariadb1011, ebsTwp, loads.iopsBound()),
      severity: "warning",
      platforms: ["mariadb-option-file"],
    },
    {
      name: "MySQL 5.7 on ZFS 16K, not write-bound: efficiency only",
      facts: facts("i4", mysql57, zfs16k, loads.moderate()),
      severity: "notice",
      summary: [/no throughput gain/, /fewer write bytes/, /low priority/],
      platforms: ["mysql-option-file"],
      check: (f) => {
        expect(f.expectedGain?.throughput).toEqual({ low: 0, high: 0 });
        expect(f.actions[0]?.title).toMatch(/read-only before 8\.0\.30/);
      },
    },
  ],
});
