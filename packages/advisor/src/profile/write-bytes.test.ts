import { facts, load, mariadb1011, mysql8035, virtio, without } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

// docs/reference/iops-metering.md §11: data_written = (flushed + dblwr pages) x 16 KiB; data_writes = flushed + dblwr writes.
const work = load({ flushed: 1200, doublewrite: true, batchPages: 120, txn: 400 });
const mdev = (version: string) =>
  facts(
    "m",
    mariadb1011,
    { server: { version } },
    load({ flushed: 100, doublewrite: true, txn: 10, mdev31124: true }),
  );

indicatorGroupTester("write-bytes", {
  valid: [
    {
      name: "half the InnoDB bytes are doublewrite",
      facts: facts("a", mariadb1011, virtio, work),
      values: {
        dblwrBytesRate: 1200 * 16384,
        innodbWriteBytesRate: 2400 * 16384,
        dblwrShareOfInnodbWriteBytes: 0.5,
        dblwrShareOfWriteOps: 10 / 1210,
      },
    },
    {
      name: "MDEV-31124 release: Innodb_data_written corrected",
      facts: mdev("10.11.2-MariaDB"),
      values: { innodbWriteBytesRate: 200 * 16384, dblwrShareOfInnodbWriteBytes: 0.5 },
      notes: [/corrected for MDEV-31124/],
    },
  ],
  invalid: [
    {
      name: "page size unknown",
      facts: facts("b", mysql8035, { config: { pageSizeBytes: null } }, work),
      nulls: {
        dblwrBytesRate: { missing: ["config.pageSizeBytes"] },
        dblwrShareOfInnodbWriteBytes: { missing: ["config.pageSizeBytes"] },
      },
    },
    {
      name: "MDEV-31124 release without the doublewrite counter: no correction possible",
      facts: without(mdev("10.11.2-MariaDB"), "workload.rates.dblwrPagesWritten"),
      nulls: {
        innodbWriteBytesRate: { missing: ["workload.rates.dblwrPagesWritten"] },
      },
    },
    {
      name: "Innodb_data_writes not collected",
      facts: without(facts("c", mysql8035, work), "workload.rates.dataWrites"),
      nulls: { dblwrShareOfWriteOps: { missing: ["workload.rates.dataWrites"] } },
    },
  ],
});
