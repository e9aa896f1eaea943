import { atomicNvme, btrfs, facts, mysql8035 } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("btrfs", {
  valid: [],
  invalid: [
    {
      name: "nodatacow",
      facts: facts("i1", mysql8035, btrfs),
      status: "fail",
      detail: [/in place/],
      blocker: true,
    },
    {
      name: "copy-on-write [L]",
      facts: facts("i2", mysql8035, btrfs, { storage: { btrfsNodatacow: false } }),
      status: "not-established",
      detail: [/\[L\]/],
      fix: /ZFS with recordsize/,
      blocker: false,
    },
  ],
  absent: [{ name: "ext4", facts: facts("a1", mysql8035, atomicNvme) }],
});
