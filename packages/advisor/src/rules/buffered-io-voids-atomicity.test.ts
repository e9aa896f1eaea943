import { expect } from "vitest";
import {
  atomicNvme,
  ebsTwp,
  facts,
  mariadb106,
  mariadb114,
  mysql8035,
  virtio,
  zfs16k,
} from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

const fsync = { config: { flushMethod: "fsync" } };

ruleTester("buffered-io-voids-atomicity", {
  valid: [
    { name: "O_DIRECT on atomic NVMe", facts: facts("v1", mysql8035, atomicNvme, loads.moderate()) },
    {
      name: "O_DIRECT_NO_FSYNC is direct",
      facts: facts("v2", mysql8035, atomicNvme, { config: { flushMethod: "O_DIRECT_NO_FSYNC" } }),
    },
    { name: "ZFS does not need O_DIRECT", facts: facts("v3", mysql8035, zfs16k, fsync) },
    { name: "buffered on plain storage with doublewrite on", facts: facts("v4", mysql8035, virtio, fsync) },
    {
      name: "flush method unknown",
      facts: facts("v5", mysql8035, atomicNvme, parts.off, { config: { flushMethod: null } }),
    },
  ],
  invalid: [
    {
      name: "MySQL fsync on atomic NVMe: prerequisite notice",
      facts: facts("i1", mysql8035, atomicNvme, fsync, loads.moderate()),
      severity: "notice",
      summary: [/innodb_flush_method=fsync/, /16 KiB atomic unit does not protect/],
      platforms: ["mysql-option-file"],
      snippets: ["innodb_flush_method = O_DIRECT"],
      check: (f) =>
        expect(f.actions[0]?.changes[0]).toMatchObject({
          variable: "innodb_flush_method",
          from: "fsync",
          to: "O_DIRECT",
        }),
    },
    {
      name: "OFF with O_DSYNC on EBS with torn-write prevention: error",
      facts: facts("i2", mysql8035, ebsTwp, parts.off, { config: { flushMethod: "O_DSYNC" } }),
      severity: "error",
      summary: [/torn pages possible/],
    },
    {
      name: "MariaDB 11.4 innodb_data_file_buffering=ON: dynamic fix",
      facts: facts("i3", mariadb114, atomicNvme, { config: { dataFileBuffering: true } }),
      severity: "notice",
      platforms: ["mariadb-runtime"],
      snippets: ["SET GLOBAL innodb_data_file_buffering = OFF;"],
    },
    {
      name: "MariaDB 10.6 fsync: my.cnf + restart",
      facts: facts("i4", mariadb106, atomicNvme, fsync),
      severity: "notice",
      platforms: ["mariadb-option-file"],
    },
    {
      name: "OFF and buffered on plain storage",
      facts: facts("i5", mysql8035, virtio, parts.off, fsync),
      severity: "error",
    },
  ],
});
