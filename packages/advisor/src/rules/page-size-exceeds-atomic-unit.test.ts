import { atomicNvme, ebsTwp, facts, mysql84, virtio, virtioOldKernel, zfs16k } from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { parts } from "../fixtures/scenarios.js";

const page = (n: number) => ({ config: { pageSizeBytes: n } });

ruleTester("page-size-exceeds-atomic-unit", {
  valid: [
    { name: "16 KiB page on a 16 KiB unit", facts: facts("v1", mysql84, atomicNvme) },
    {
      name: "device reports 0: no atomic writes at all (gate handles it)",
      facts: facts("v2", mysql84, virtio, page(32768)),
    },
    { name: "atomic attributes absent: unknown", facts: facts("v3", mysql84, virtioOldKernel, page(65536)) },
    { name: "ZFS", facts: facts("v4", mysql84, zfs16k, page(32768)) },
    { name: "page size unknown", facts: facts("v5", mysql84, ebsTwp, { config: { pageSizeBytes: null } }) },
  ],
  invalid: [
    {
      name: "32 KiB pages on EBS torn-write prevention (16 KiB)",
      facts: facts("i1", mysql84, ebsTwp, page(32768)),
      severity: "notice",
      summary: [/32 KiB/, /only up to 16 KiB/, /innodb_page_size=16384/, /logical dump and reload/],
      platforms: [],
    },
    {
      name: "64 KiB pages with doublewrite OFF",
      facts: facts("i2", mysql84, atomicNvme, parts.off, page(65536)),
      severity: "error",
      summary: [/currently off/],
    },
    {
      name: "16 KiB pages on an 8 KiB device unit",
      facts: facts("i3", mysql84, atomicNvme, { storage: { atomicWrite: { unitMaxBytes: 8192 } } }),
      severity: "notice",
      summary: [/innodb_page_size=8192/],
    },
  ],
});
