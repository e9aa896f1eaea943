import { facts, load, mariadb1011, mysql84, mysql8035, virtio, without } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

const work = load({ flushed: 1200, doublewrite: true, batchPages: 120, txn: 400 });

indicatorGroupTester("doublewrite-batches", {
  valid: [
    {
      name: "legacy 16 KiB area: 128 pages",
      facts: facts("a", mariadb1011, virtio, work),
      values: { avgBatchPages: 120, batchCapacityPages: 128, batchFill: 120 / 128 },
      basis: { batchCapacityPages: /legacy system-tablespace area/ },
    },
    {
      name: "innodb_doublewrite_pages",
      facts: facts("b", mysql8035, load({ flushed: 400, doublewrite: true, batchPages: 4, txn: 10 })),
      values: { avgBatchPages: 4, batchCapacityPages: 4, batchFill: 1 },
      basis: { batchCapacityPages: /^innodb_doublewrite_pages$/ },
    },
    {
      name: "0 means innodb_write_io_threads",
      facts: facts("c", mysql8035, { config: { doublewritePages: 0, writeIoThreads: 8 } }, work),
      values: { batchCapacityPages: 8 },
      basis: { batchCapacityPages: /write_io_threads/ },
    },
    {
      name: "not collected on 8.4: the default 128",
      facts: facts("d", mysql84, { config: { doublewritePages: null } }, work),
      values: { batchCapacityPages: 128 },
      basis: { batchCapacityPages: /assumed the 8\.4\+ default/ },
    },
  ],
  invalid: [
    {
      name: "not collected, and batches larger than the 8.0 default prove it was changed",
      facts: facts("e", mysql8035, { config: { doublewritePages: null } }, work),
      nulls: { batchCapacityPages: { missing: ["config.doublewritePages"] }, batchFill: {} },
    },
    {
      name: "legacy area with 8 KiB pages: not established",
      facts: facts("f", mariadb1011, { config: { pageSizeBytes: 8192 } }),
      nulls: { batchCapacityPages: { missing: [], note: /denominator was 0/ } },
    },
    {
      name: "doublewrite writes not collected",
      facts: without(facts("g", mariadb1011, virtio, work), "workload.rates.dblwrWrites"),
      nulls: { avgBatchPages: { missing: ["workload.rates.dblwrWrites"] } },
    },
  ],
});
