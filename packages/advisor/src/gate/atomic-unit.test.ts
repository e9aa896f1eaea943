import {
  atomicNvme,
  ebsTwp,
  facts,
  hdd,
  mysql8035,
  virtio,
  virtioOldKernel,
  zfs16k,
} from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("atomic-unit", {
  valid: [
    {
      name: "NVMe with a 16K atomic unit",
      facts: facts("v1", mysql8035, atomicNvme),
      detail: [/16 KiB >= /],
    },
    {
      name: "EBS torn-write prevention over a kernel showing 0",
      facts: facts("v2", mysql8035, ebsTwp),
      detail: [/AWS EBS torn-write prevention \(detected\)/],
    },
  ],
  invalid: [
    {
      name: "virtio reports 0",
      facts: facts("i1", mysql8035, virtio),
      status: "fail",
      detail: [/is 0/],
      fix: /nvme id-ns -v/,
      blocker: true,
    },
    {
      name: "0 with the page size unknown is still unsafe",
      facts: facts("i2", mysql8035, virtio, { config: { pageSizeBytes: null } }),
      status: "fail",
      detail: [/whatever innodb_page_size is/],
      blocker: true,
    },
    {
      name: "32K pages on a 16K unit",
      facts: facts("i3", mysql8035, atomicNvme, { config: { pageSizeBytes: 32768 } }),
      status: "fail",
      detail: [/can tear/],
      fix: /Linux 6\.11/,
      blocker: true,
    },
    {
      name: "old kernel: unknown, not zero",
      facts: facts("i4", mysql8035, virtioOldKernel, { storage: { fsClusterSizeBytes: 16384 } }),
      status: "unknown",
      detail: [/unknown, not zero/],
      blocker: false,
    },
    {
      name: "page size unknown",
      facts: facts("i5", mysql8035, atomicNvme, { config: { pageSizeBytes: null } }),
      status: "unknown",
      detail: [/page size unknown/],
    },
    { name: "spinning disk", facts: facts("i6", mysql8035, hdd), status: "fail" },
    {
      name: "no storage facts",
      facts: facts("i7", mysql8035),
      status: "unknown",
      detail: [/No atomic-write unit/],
    },
  ],
  absent: [{ name: "ZFS", facts: facts("a1", mysql8035, zfs16k) }],
});
