import { facts, load, mariadb1011, virtio, without } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

// load(): fsyncs = dblwr writes x 1 + 2% of flushed + 5 = 10 + 24 + 5.
const base = facts(
  "a",
  mariadb1011,
  virtio,
  load({ flushed: 1200, doublewrite: true, batchPages: 120, txn: 400 }),
);

indicatorGroupTester("per-transaction", {
  valid: [
    {
      name: "400 transactions/s",
      facts: base,
      values: {
        fsyncsPerTxn: 39 / 400,
        writeBytesPerTxn: (2400 * 16384) / 400,
        writeOpsPerTxn: 1210 / 400,
        dblwrBytesPerTxn: (1200 * 16384) / 400,
      },
    },
  ],
  invalid: [
    {
      name: "no commit counter",
      facts: without(base, "workload.rates.handlerCommits", "workload.rates.commits"),
      nulls: {
        fsyncsPerTxn: { missing: ["workload.rates.commits"] },
        dblwrBytesPerTxn: { missing: ["workload.rates.commits"] },
      },
    },
    {
      name: "no transactions in the window",
      facts: facts("b", mariadb1011, load({ flushed: 10, doublewrite: true, txn: 0 })),
      nulls: { writeOpsPerTxn: { missing: [], note: /denominator was 0/ } },
    },
  ],
});
