import { expect } from "vitest";
import {
  ebsTwp,
  facts,
  mariadb1011,
  mysql84,
  mysql8019,
  mysql8025,
  mysql8035,
  virtio,
} from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

ruleTester("doublewrite-pages-too-small", {
  valid: [
    {
      name: "8.0.19 has no innodb_doublewrite_pages",
      facts: facts("v1", mysql8019, virtio, loads.smallBatches()),
    },
    {
      name: "MariaDB has no innodb_doublewrite_pages",
      facts: facts("v2", mariadb1011, virtio, loads.smallBatches()),
    },
    {
      name: "8.4 default 128 with full 120-page batches",
      facts: facts("v3", mysql84, virtio, loads.smallBatches({ batchPages: 126 })),
    },
    {
      name: "batches half full",
      facts: facts("v4", mysql8035, virtio, loads.smallBatches({ batchPages: 2, flushWaits: null })),
    },
    {
      name: "few batches, no waits, not write-bound",
      facts: facts("v5", mysql8035, virtio, loads.smallBatches({ flushed: 40, flushWaits: 0 })),
    },
    { name: "doublewrite off", facts: facts("v6", mysql8035, virtio, parts.off, loads.moderate(false)) },
    {
      name: "not collected, but 64-page batches prove it is not the default of 4",
      facts: facts(
        "v7",
        mysql8035,
        { config: { doublewritePages: null, writeIoThreads: 4 } },
        virtio,
        loads.smallBatches({ batchPages: 64 }),
      ),
    },
  ],
  invalid: [
    {
      name: "8.0.25 default 4 pages, 250 full batches/s with batch waits",
      facts: facts("i1", mysql8025, ebsTwp, loads.smallBatches()),
      severity: "warning",
      summary: [/average 4 of 4 pages \(100% full\)/, /8\.0\.20-8\.3 default/, /250 batches\/s/, /=128 cuts/],
      platforms: ["mysql-option-file"],
      snippets: ["innodb_doublewrite_pages = 128"],
      check: (f) => {
        const change = f.actions[0]?.changes[0];
        expect(change).toMatchObject({
          variable: "innodb_doublewrite_pages",
          from: "4",
          to: "128",
          restart: true,
        });
        expect(change?.removesTornPageProtection).toBe(false);
        expect(f.expectedGain?.writeOpsPerTxn?.high).toBeGreaterThan(0.1);
      },
    },
    {
      name: "innodb_doublewrite_pages=0 means innodb_write_io_threads",
      facts: facts(
        "i2",
        mysql8035,
        { config: { doublewritePages: 0, writeIoThreads: 4 } },
        virtio,
        loads.smallBatches(),
      ),
      severity: "warning",
      summary: [/of 4 pages/],
    },
    {
      name: "innodb_doublewrite_pages not collected on 8.0.35: the default (innodb_write_io_threads) is assumed and said",
      facts: facts(
        "i2b",
        mysql8035,
        { config: { doublewritePages: null, writeIoThreads: 4 } },
        ebsTwp,
        loads.smallBatches(),
      ),
      severity: "warning",
      summary: [/of 4 pages/],
      check: (f) => expect(f.actions[0]?.changes[0]).toMatchObject({ from: null, to: "128" }),
    },
    {
      name: "no batch waits and not write-bound, but 250 batches/s: notice",
      facts: facts("i3", mysql8035, virtio, loads.smallBatches({ flushWaits: null })),
      severity: "notice",
    },
    {
      name: "IOPS-bound with 4-page batches: throughput gain",
      facts: facts("i4", mysql8035, ebsTwp, loads.iopsBound(true, { batchPages: 4 })),
      severity: "warning",
      summary: [/write throughput \+\d+% to \+\d+%/],
      check: (f) => expect(f.expectedGain?.throughput.high).toBeGreaterThan(0.1),
    },
    {
      name: "8.4 lowered to 16",
      facts: facts(
        "i5",
        mysql84,
        { config: { doublewritePages: 16 } },
        virtio,
        loads.smallBatches({ batchPages: 16 }),
      ),
      severity: "warning",
      summary: [/lowered from the 8\.4 default of 128/],
    },
  ],
});
