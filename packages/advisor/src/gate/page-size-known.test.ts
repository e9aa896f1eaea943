import { atomicNvme, facts, mysql8035, rds, zfs16k } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("page-size-known", {
  valid: [
    { name: "16 KiB", facts: facts("v1", mysql8035, atomicNvme), detail: [/= 16 KiB/] },
    { name: "on ZFS too", facts: facts("v2", mysql8035, zfs16k) },
  ],
  invalid: [
    {
      name: "not collected",
      facts: facts("i1", mysql8035, atomicNvme, { config: { pageSizeBytes: null } }),
      status: "unknown",
      fix: /untorn_innodb_page_size_bytes/,
      blocker: false,
    },
  ],
  absent: [{ name: "provider-managed", facts: facts("a1", mysql8035, rds) }],
});
