import { atomicNvme, facts, mysql8035, zfs16k } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("no-split", {
  valid: [
    {
      name: "max I/O 128K",
      facts: facts("v1", mysql8035, atomicNvme, { storage: { maxIoBytes: 131072 } }),
      detail: [/128 KiB >= page size/],
    },
  ],
  invalid: [
    {
      name: "max I/O 8K splits every page",
      facts: facts("i1", mysql8035, atomicNvme, { storage: { maxIoBytes: 8192 } }),
      status: "fail",
      fix: /max_sectors_kb/,
      blocker: true,
    },
    {
      name: "unknown is not blocking",
      facts: facts("i2", mysql8035, atomicNvme, { storage: { maxIoBytes: null } }),
      status: "unknown",
      blocking: false,
      blocker: false,
    },
  ],
  absent: [{ name: "ZFS", facts: facts("a1", mysql8035, zfs16k) }],
});
