import { facts, load, mariadb1011, mysql8035, st } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

const work = load({ flushed: 10, doublewrite: true, txn: 1 });
const io = {
  workload: {
    fileIo: {
      doublewrite: { writeSecondsPerSecond: st(0.2), miscSecondsPerSecond: st(0.1) },
      data: { writeSecondsPerSecond: st(0.4), miscSecondsPerSecond: st(0.2) },
      redo: { writeSecondsPerSecond: st(0.1) },
    },
  },
};

indicatorGroupTester("file-io-wait", {
  valid: [
    {
      name: "MySQL 8.0.35 doublewrite instrument",
      facts: facts("a", mysql8035, work, io),
      values: { dblwrShareOfFileIoWait: 0.3 },
    },
  ],
  invalid: [
    {
      name: "MariaDB: no doublewrite instrument",
      facts: facts("b", mariadb1011, work, io),
      nulls: {
        dblwrShareOfFileIoWait: {
          missing: ["workload.fileIo (no doublewrite instrument)"],
          note: /system_tablespace/,
        },
      },
    },
    {
      name: "performance_schema off",
      facts: facts("c", mysql8035, work, { config: { perfSchemaEnabled: false } }),
      nulls: {
        dblwrShareOfFileIoWait: {
          missing: ["workload.fileIo.doublewrite"],
          note: /performance_schema is off/,
        },
      },
    },
  ],
});
