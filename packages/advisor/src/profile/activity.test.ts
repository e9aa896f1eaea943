import { facts, load, mariadb1011, virtio, without } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

const base = facts("a", mariadb1011, virtio, load({ flushed: 1200, doublewrite: true, txn: 400 }));

indicatorGroupTester("activity", {
  valid: [
    {
      name: "Handler_commit and pages flushed",
      facts: base,
      values: { transactionRate: 400, pagesFlushedRate: 1200 },
      basis: { transactionRate: /^Handler_commit\/s$/, pagesFlushedRate: /buffer_pool_pages_flushed/ },
    },
    {
      name: "Com_commit and Innodb_pages_written when the others are not collected",
      facts: without(base, "workload.rates.handlerCommits", "workload.rates.bufferPoolPagesFlushed"),
      values: { transactionRate: 80, pagesFlushedRate: 1200 },
      basis: { transactionRate: /^Com_commit\/s$/, pagesFlushedRate: /^Innodb_pages_written\/s$/ },
    },
  ],
  invalid: [
    {
      name: "no commit counter",
      facts: without(base, "workload.rates.handlerCommits", "workload.rates.commits"),
      nulls: { transactionRate: { missing: ["workload.rates.commits"] } },
    },
    {
      name: "no flush counter",
      facts: without(base, "workload.rates.bufferPoolPagesFlushed", "workload.rates.pagesWritten"),
      nulls: { pagesFlushedRate: { missing: ["workload.rates.pagesWritten"] } },
    },
    {
      name: "no workload",
      facts: facts("n", mariadb1011),
      nulls: { transactionRate: {}, pagesFlushedRate: {} },
    },
  ],
});
