import { facts, load, mariadb1011, virtio, without } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

const base = facts("a", mariadb1011, virtio, load({ flushed: 1200, doublewrite: true, txn: 400 }));

indicatorGroupTester("activity", {
  valid: [
    {
      name: "client commits, not Handler_commit (12x as many), and pages flushed",
      facts: base,
      values: { transactionRate: 400, pagesFlushedRate: 1200 },
      basis: {
        transactionRate: /^client COMMIT \+ ROLLBACK\/s$/,
        pagesFlushedRate: /buffer_pool_pages_flushed/,
      },
    },
    {
      name: "Innodb_pages_written when pages flushed is not collected",
      facts: without(base, "workload.rates.handlerCommits", "workload.rates.bufferPoolPagesFlushed"),
      values: { transactionRate: 400, pagesFlushedRate: 1200 },
      basis: { transactionRate: /^client COMMIT/, pagesFlushedRate: /^Innodb_pages_written\/s$/ },
    },
    {
      name: "Handler_commit, named as such, when no client commit was counted (autocommit workload)",
      facts: without(base, "workload.rates.commits"),
      values: { transactionRate: 4800 },
      basis: { transactionRate: /^Handler_commit\/s \(no client COMMIT counted: autocommit workload\)$/ },
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
