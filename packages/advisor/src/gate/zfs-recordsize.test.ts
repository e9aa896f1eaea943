import { atomicNvme, facts, mysql8035, zfs16k, zfs128k } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("zfs-recordsize", {
  valid: [
    { name: "recordsize 16K", facts: facts("v1", mysql8035, zfs16k), detail: [/copy-on-write record/] },
  ],
  invalid: [
    {
      name: "recordsize 128K",
      facts: facts("i1", mysql8035, zfs128k),
      status: "not-established",
      detail: [/128 KiB differs/],
      fix: /recordsize=16K/,
      blocker: false,
    },
    {
      name: "recordsize unknown",
      facts: facts("i2", mysql8035, zfs16k, { storage: { zfsRecordsizeBytes: null } }),
      status: "unknown",
    },
    {
      name: "page size unknown",
      facts: facts("i3", mysql8035, zfs16k, { config: { pageSizeBytes: null } }),
      status: "unknown",
      fix: /recordsize=16K/,
    },
    {
      name: "32K pages on a 16K recordsize",
      facts: facts("i4", mysql8035, zfs16k, { config: { pageSizeBytes: 32768 } }),
      status: "not-established",
      fix: /recordsize=32K/,
    },
  ],
  absent: [{ name: "ext4", facts: facts("a1", mysql8035, atomicNvme) }],
});
