import { atomicNvme, ebsTwp, facts, mysql8035, zfs16k } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("alignment", {
  valid: [
    { name: "whole disk", facts: facts("v1", mysql8035, atomicNvme), detail: [/offset 0/] },
    { name: "partition at 1 MiB", facts: facts("v2", mysql8035, ebsTwp), detail: [/aligned to 1 MiB/] },
  ],
  invalid: [
    {
      name: "LVM at 4K",
      facts: facts("i1", mysql8035, ebsTwp, {
        storage: { layers: ["partition", "lvm"], dataOffsetAlignmentBytes: 4096 },
      }),
      status: "fail",
      fix: /pvcreate --dataalignmentoffset/,
      blocker: true,
    },
    {
      name: "24K: not a power of two",
      facts: facts("i2", mysql8035, ebsTwp, { storage: { dataOffsetAlignmentBytes: 24576 } }),
      status: "fail",
    },
    {
      name: "partition start unknown",
      facts: facts("i3", mysql8035, ebsTwp, { storage: { dataOffsetAlignmentBytes: null } }),
      status: "unknown",
      blocker: false,
    },
    {
      name: "md RAID",
      facts: facts("i4", mysql8035, atomicNvme, { storage: { layers: ["md-raid"] } }),
      status: "not-established",
      detail: [/md-raid/],
    },
    {
      name: "layers unknown",
      facts: facts("i5", mysql8035, atomicNvme, { storage: { layers: null } }),
      status: "unknown",
    },
  ],
  absent: [{ name: "ZFS", facts: facts("a1", mysql8035, zfs16k) }],
});
