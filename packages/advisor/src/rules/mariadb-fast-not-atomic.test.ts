import { atomicNvme, facts, mariadb114, mysql8035, virtio } from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads } from "../fixtures/scenarios.js";

const fast = { config: { doublewrite: "fast", doublewriteRaw: "fast" } };

ruleTester("mariadb-fast-not-atomic", {
  valid: [
    { name: "MariaDB ON", facts: facts("v1", mariadb114, virtio, loads.moderate()) },
    { name: "MariaDB OFF", facts: facts("v2", mariadb114, virtio, { config: { doublewrite: "off" } }) },
    { name: "MySQL never reports fast", facts: facts("v3", mysql8035, virtio, loads.moderate()) },
  ],
  invalid: [
    {
      name: "different file systems: error, SET GLOBAL back to ON",
      facts: facts(
        "i1",
        mariadb114,
        virtio,
        fast,
        { storage: { systemTablespaceSameFilesystem: false } },
        loads.moderate(),
      ),
      severity: "error",
      summary: [
        /not atomic writes/,
        /saves no write bytes/,
        /different file systems/,
        /50% of InnoDB write bytes/,
      ],
      platforms: ["mariadb-runtime"],
      snippets: ["SET GLOBAL innodb_doublewrite = ON;"],
    },
    {
      name: "different file systems under O_DIRECT_NO_FSYNC: ON alone maps back to fast, so change the flush method too",
      facts: facts(
        "i5",
        mariadb114,
        virtio,
        fast,
        { config: { flushMethod: "O_DIRECT_NO_FSYNC", dataFileBuffering: null } },
        { storage: { systemTablespaceSameFilesystem: false } },
        loads.moderate(),
      ),
      severity: "error",
      summary: [/O_DIRECT_NO_FSYNC maps ON to fast/],
      platforms: ["mariadb-option-file"],
      snippets: ["innodb_flush_method = O_DIRECT\ninnodb_doublewrite = ON"],
    },
    {
      name: "file systems unknown: warning, check them",
      facts: facts("i2", mariadb114, virtio, fast, loads.moderate()),
      severity: "warning",
      platforms: ["host"],
      snippets: ["df --output=target"],
    },
    {
      name: "same file system: notice, nothing to change",
      facts: facts("i3", mariadb114, virtio, fast, { storage: { systemTablespaceSameFilesystem: true } }),
      severity: "notice",
      platforms: [],
    },
    {
      name: "O_DIRECT_NO_FSYNC maps ON to fast; verified storage points to OFF",
      facts: facts(
        "i4",
        mariadb114,
        atomicNvme,
        fast,
        { config: { flushMethod: "O_DIRECT_NO_FSYNC", dataFileBuffering: null } },
        { storage: { systemTablespaceSameFilesystem: true } },
      ),
      severity: "notice",
      summary: [/O_DIRECT_NO_FSYNC maps ON to fast/, /OFF, not fast, removes the copy/],
    },
  ],
});
