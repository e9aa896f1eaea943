import { atomicNvme, facts, load, mariadb1011, mysql8035, st, virtio } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

const work = load({ flushed: 100, doublewrite: true, txn: 10, device: { util: 0.2, writeLatency: 0.001 } });

indicatorGroupTester("window-notes", {
  valid: [
    { name: "facts agree", facts: facts("a", mysql8035, atomicNvme, work), values: {} },
    {
      name: "read-only",
      facts: facts(
        "b",
        mysql8035,
        { config: { readOnly: true } },
        load({ flushed: 0, doublewrite: true, txn: 0 }),
      ),
      values: {},
      notes: [/innodb_read_only=ON/],
    },
  ],
  invalid: [
    {
      name: "off, yet doublewrite pages were written",
      facts: facts("c", mysql8035, { config: { doublewrite: "off" } }, work),
      nulls: {},
      notes: [/innodb_doublewrite is off but doublewrite pages were written/],
    },
    {
      name: "pages flushed, no doublewrite pages: redo logging disabled?",
      facts: facts("d", mysql8035, load({ flushed: 100, doublewrite: false, txn: 10 })),
      nulls: {},
      notes: [/redo logging may be disabled/],
    },
    {
      name: "MariaDB system_tablespace, buffered I/O with device facts",
      facts: facts("e", mariadb1011, virtio, work, {
        config: { flushMethod: "fsync" },
        workload: { fileIo: { system_tablespace: { writeSecondsPerSecond: st(0.1) } } },
      }),
      nulls: {},
      notes: [/system_tablespace/, /buffered I\/O/],
    },
  ],
});
