import { atomicNvme, facts, mariadb114, mysql8035, zfs16k } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("direct-io", {
  valid: [
    { name: "O_DIRECT", facts: facts("v1", mysql8035, atomicNvme), detail: [/bypass the page cache/] },
    { name: "MariaDB 11 innodb_data_file_buffering=OFF", facts: facts("v2", atomicNvme, mariadb114) },
  ],
  invalid: [
    {
      name: "fsync: buffered",
      facts: facts("i1", mysql8035, atomicNvme, { config: { flushMethod: "fsync" } }),
      status: "fail",
      fix: /innodb_flush_method=O_DIRECT/,
      blocker: true,
    },
    {
      name: "MariaDB 11 buffered",
      facts: facts("i2", atomicNvme, mariadb114, { config: { dataFileBuffering: true } }),
      status: "fail",
      fix: /innodb_data_file_buffering=OFF/,
      blocker: true,
    },
    {
      name: "flush method unknown",
      facts: facts("i3", mysql8035, atomicNvme, { config: { flushMethod: null } }),
      status: "unknown",
      blocker: false,
    },
  ],
  absent: [{ name: "ZFS", facts: facts("a1", mysql8035, zfs16k) }],
});
