import { facts, load, mysql8035, without } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

const base = facts(
  "a",
  mysql8035,
  load({ flushed: 100, doublewrite: true, txn: 10, rowsChanged: 50, rowsRead: 150 }),
);

indicatorGroupTester("row-operations", {
  valid: [{ name: "a quarter of the rows change", facts: base, values: { writeShareOfRowOps: 0.25 } }],
  invalid: [
    {
      name: "rows read not collected",
      facts: without(base, "workload.rates.rowsRead"),
      nulls: { writeShareOfRowOps: { missing: ["workload.rates.rowsRead"] } },
    },
    {
      name: "no row operations",
      facts: facts(
        "b",
        mysql8035,
        load({ flushed: 1, doublewrite: true, txn: 0, rowsChanged: 0, rowsRead: 0 }),
      ),
      nulls: { writeShareOfRowOps: { missing: [], note: /denominator was 0/ } },
    },
  ],
});
