import { expect } from "vitest";
import {
  atomicNvme,
  facts,
  mariadb114,
  mysql8025,
  mysql8035,
  percona8036,
  rds,
  virtio,
} from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

ruleTester("detect-only-step", {
  valid: [
    {
      name: "8.0.29 has no DETECT_ONLY",
      facts: facts("v1", mysql8025, { server: { version: "8.0.29" } }, atomicNvme, loads.moderate()),
    },
    { name: "MariaDB has no DETECT_ONLY", facts: facts("v2", mariadb114, atomicNvme, loads.moderate()) },
    { name: "unsafe storage", facts: facts("v3", mysql8035, virtio, loads.moderate()) },
    { name: "RDS", facts: facts("v4", mysql8035, rds, loads.moderate(true, { device: null })) },
    { name: "already off", facts: facts("v5", mysql8035, atomicNvme, parts.off, loads.moderate(false)) },
  ],
  invalid: [
    {
      name: "8.0.35 on verified NVMe: runtime stage",
      facts: facts("i1", mysql8035, parts.tuned, atomicNvme, loads.deviceBound()),
      severity: "notice",
      summary: [/without a restart/, /write throughput/],
      platforms: ["mysql-runtime"],
      snippets: ["SET GLOBAL innodb_doublewrite = 'DETECT_ONLY';", "innodb_doublewrite = DETECT_ONLY"],
      check: (f) => {
        expect(f.actions[0]?.changes[0]).toMatchObject({
          to: "DETECT_ONLY",
          restart: false,
          removesTornPageProtection: true,
        });
        expect(f.risk.text).toMatch(/cannot repair/);
        // DETECT_ONLY keeps one write per batch: its write-op saving is not claimed.
        expect(f.expectedGain?.writeOpsPerTxn).toBeNull();
      },
    },
    {
      name: "Percona 8.0.36",
      facts: facts("i2", percona8036, atomicNvme, loads.moderate()),
      severity: "notice",
      platforms: ["mysql-runtime"],
    },
    {
      name: "DETECT_ONLY on verified storage: OFF next",
      facts: facts("i3", mysql8035, atomicNvme, parts.detectOnly, loads.moderate(false)),
      severity: "notice",
      summary: [/needs a restart/],
      platforms: ["mysql-option-file"],
      snippets: ["innodb_doublewrite = OFF"],
    },
  ],
});
