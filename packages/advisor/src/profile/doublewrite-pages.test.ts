import { facts, load, mariadb1011, mysql8035, virtio, without } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

const base = facts("a", mariadb1011, virtio, load({ flushed: 1200, doublewrite: true, txn: 400 }));

indicatorGroupTester("doublewrite-pages", {
  valid: [
    {
      name: "every flushed page doublewritten",
      facts: base,
      values: { dblwrPagesRate: 1200, amplification: 1 },
    },
    {
      name: "doublewrite off: 0 pages, amplification 0",
      facts: facts("b", mysql8035, load({ flushed: 500, doublewrite: false, txn: 10 })),
      values: { dblwrPagesRate: 0, amplification: 0 },
    },
  ],
  invalid: [
    {
      name: "dblwr counter missing",
      facts: without(base, "workload.rates.dblwrPagesWritten"),
      nulls: {
        dblwrPagesRate: { missing: ["workload.rates.dblwrPagesWritten"] },
        amplification: { missing: ["workload.rates.dblwrPagesWritten"] },
      },
    },
    {
      name: "idle: nothing flushed",
      facts: facts("c", mysql8035, load({ flushed: 0, doublewrite: true, txn: 0 })),
      nulls: { amplification: { missing: [], note: /denominator was 0/ } },
    },
  ],
});
