import { expect } from "vitest";
import {
  atomicNvme,
  aurora,
  ebsTwp,
  facts,
  mariadb1011,
  metered16kPlain,
  mysql84,
  mysql8035,
  rds,
  virtio,
} from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

ruleTester("doublewrite-share-high", {
  valid: [
    { name: "not write-bound", facts: facts("v1", mysql84, ebsTwp, loads.moderate()) },
    { name: "doublewrite off", facts: facts("v2", mysql84, atomicNvme, parts.off, loads.deviceBound(false)) },
    {
      name: "write-bound but doublewrite share unknown (no page size, no data bytes)",
      facts: facts("v3", mysql84, atomicNvme, { config: { pageSizeBytes: null } }, loads.deviceBound(), {
        workload: { rates: { dataWrittenBytes: null, pagesWritten: null, bufferPoolPagesFlushed: null } },
      }),
    },
    {
      name: "write-bound with few doublewrite pages (most flushes single-page, amplification 0.2)",
      facts: facts("v4", mysql84, atomicNvme, loads.deviceBound(), {
        workload: { rates: { dblwrPagesWritten: { avg: 500 }, dblwrWrites: { avg: 5 } } },
      }),
    },
  ],
  invalid: [
    {
      name: "16 KiB-metered volume at its limit, storage unsafe",
      facts: facts("i1", mysql8035, parts.tuned, metered16kPlain, loads.metered16kBound()),
      severity: "warning",
      summary: [/46% of the device's write bytes/, /\+22% to \+87% write throughput/, /Safety gate: unsafe/],
      platforms: ["host"],
      blocked: true,
      check: (f) => {
        expect(f.expectedGain?.binding).toBe("iops-16k");
        expect(f.blocked?.toVerify.join(" ")).toMatch(/tornWriteProtection|nvme id-ns/);
      },
    },
    {
      name: "likely write-bound on virtio: notice, blocked",
      facts: facts("i2", mariadb1011, virtio, loads.busy()),
      severity: "notice",
      summary: [/probably write-bound/],
      blocked: true,
    },
    {
      name: "verified storage points to the turn-off finding",
      facts: facts("i3", mysql84, atomicNvme, loads.deviceBound()),
      severity: "warning",
      platforms: ["host"],
      blocked: false,
      check: (f) => expect(f.actions[0]?.title).toMatch(/atomic-storage-doublewrite-on/),
    },
    {
      name: "RDS points to the managed-service finding",
      facts: facts("i4", mysql8035, parts.tuned, rds, loads.iopsBound(true, { device: null })),
      severity: "warning",
      platforms: ["aws-rds"],
      summary: [/of InnoDB's data write bytes/],
    },
    {
      name: "Aurora: no pointer to an RDS feature that does not apply",
      facts: facts("i5", mysql8035, parts.tuned, aurora, loads.iopsBound(true, { device: null })),
      severity: "warning",
      platforms: [],
    },
    {
      name: "another managed service: ask the provider, never flip it by hand",
      facts: facts(
        "i6",
        mysql8035,
        parts.tuned,
        { platform: { managed: "other" } },
        loads.iopsBound(true, { device: null }),
      ),
      severity: "warning",
      platforms: ["host"],
      check: (f) => expect(f.actions[0]?.steps.join(" ")).toMatch(/do not change innodb_doublewrite by hand/),
    },
  ],
});
