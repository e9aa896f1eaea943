import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "./capabilities.js";
import type { InstanceFacts } from "./facts.js";
import {
  ebsTwp,
  facts,
  load,
  mariadb1011,
  mysql84,
  mysql8035,
  st,
  virtio,
  without,
} from "./fixtures/build.js";
import { buildProfile } from "./profile.js";

const profile = (f: InstanceFacts) => buildProfile(f, capabilitiesFor(f));

describe("buildProfile", () => {
  // docs/reference/iops-metering.md §11 (MariaDB 10.11): data_writes = flushed + dblwr_writes; data_written = (flushed + dblwr pages) x 16 KiB.
  const f = facts(
    "p",
    mariadb1011,
    virtio,
    load({
      flushed: 1200,
      doublewrite: true,
      batchPages: 120,
      txn: 400,
      device: { util: 0.3, writeLatency: 0.001 },
    }),
  );
  const p = profile(f).indicators;

  it("derives amplification, batch size and shares from the docs/reference/iops-metering.md §11 identities", () => {
    expect(p.amplification.value).toBe(1);
    expect(p.avgBatchPages.value).toBe(120);
    expect(p.batchCapacityPages.value).toBe(128);
    expect(p.batchFill.value).toBeCloseTo(120 / 128);
    expect(p.dblwrBytesRate.value).toBe(1200 * 16384);
    expect(p.dblwrShareOfInnodbWriteBytes.value).toBe(0.5);
    expect(p.dblwrShareOfWriteOps.value).toBeCloseTo(10 / 1210);
    expect(p.transactionRate.value).toBe(400);
    expect(p.transactionRate.basis).toBe("Handler_commit/s");
    expect(p.writeBytesPerTxn.value).toBeCloseTo((2400 * 16384) / 400);
    expect(p.dblwrBytesPerTxn.value).toBeCloseTo((1200 * 16384) / 400);
  });

  it("gives every indicator a unit and a basis", () => {
    for (const i of Object.values(p)) {
      expect(i.unit).toBeTruthy();
      expect(i.basis.length).toBeGreaterThan(5);
    }
  });

  it("corrects Innodb_data_written on MDEV-31124 releases (docs/reference/status-counters.md §4)", () => {
    const bad = facts(
      "m",
      mariadb1011,
      { server: { version: "10.11.2-MariaDB" } },
      load({ flushed: 100, doublewrite: true, txn: 10, mdev31124: true }),
    );
    const prof = profile(bad);
    expect(prof.indicators.dblwrShareOfInnodbWriteBytes.value).toBeCloseTo(0.5);
    expect(prof.notes.join(" ")).toMatch(/MDEV-31124/);
    // The same raw numbers on a fixed release are taken as they are: the denominator then lacks the
    // doublewrite bytes and the share reads ~1, which is why the correction is tied to the version.
    const fixed = facts(
      "m",
      mariadb1011,
      { server: { version: "10.11.3-MariaDB" } },
      load({ flushed: 100, doublewrite: true, txn: 10, mdev31124: true }),
    );
    expect(profile(fixed).indicators.dblwrShareOfInnodbWriteBytes.value).toBeGreaterThan(0.99);
  });

  it("reads the batch capacity from innodb_doublewrite_pages, 0 meaning innodb_write_io_threads (docs/reference/mysql.md §1.4)", () => {
    expect(profile(facts("a", mysql8035)).indicators.batchCapacityPages.value).toBe(4);
    const zero = facts("b", mysql8035, { config: { doublewritePages: 0, writeIoThreads: 8 } });
    expect(profile(zero).indicators.batchCapacityPages.value).toBe(8);
    // Not collected: the version's default is assumed, and the missing input is still reported.
    const unknown = facts("c", mysql8035, { config: { doublewritePages: null } });
    expect(profile(unknown).indicators.batchCapacityPages).toMatchObject({ value: 4 });
    expect(profile(unknown).indicators.batchCapacityPages.basis).toMatch(/assumed the 8\.0\.20-8\.3 default/);
    const neither = facts("c2", mysql8035, { config: { doublewritePages: null, writeIoThreads: null } });
    expect(profile(neither).indicators.batchCapacityPages.value).toBeNull();
    const on84 = facts("c3", mysql84, { config: { doublewritePages: null } });
    expect(profile(on84).indicators.batchCapacityPages.value).toBe(128);
  });

  it("does not assume the legacy area's size for other page sizes", () => {
    const f8k = facts("d", mariadb1011, { config: { pageSizeBytes: 8192 } });
    expect(profile(f8k).indicators.batchCapacityPages.value).toBeNull();
  });

  it("marks missing inputs as missing, never 0", () => {
    const gone = without(f, "workload.device", "workload.rates.dblwrWrites");
    const q = profile(gone).indicators;
    expect(q.deviceWriteIops).toMatchObject({ value: null, missing: ["workload.device.writeIops"] });
    expect(q.dblwrShareOfDeviceWriteBytes.value).toBeNull();
    expect(q.avgBatchPages.missing).toEqual(["workload.rates.dblwrWrites"]);
    expect(q.amplification.value).toBe(1);
  });

  it("leaves a ratio with a zero denominator undefined, with a note", () => {
    const idle = facts("e", mysql8035, load({ flushed: 0, doublewrite: true, txn: 0 }));
    const q = profile(idle).indicators;
    expect(q.amplification.value).toBeNull();
    expect(q.amplification.missing).toEqual([]);
    expect(q.amplification.note).toMatch(/denominator was 0/);
  });

  it("computes the doublewrite share of file I/O wait only where the instrument exists (docs/reference/performance-schema.md §5.1)", () => {
    const io = {
      workload: {
        fileIo: {
          doublewrite: { writeSecondsPerSecond: st(0.2), miscSecondsPerSecond: st(0.1) },
          data: { writeSecondsPerSecond: st(0.4), miscSecondsPerSecond: st(0.2) },
          redo: { writeSecondsPerSecond: st(0.1) },
        },
      },
    };
    expect(
      profile(facts("f", mysql8035, load({ flushed: 10, doublewrite: true, txn: 1 }), io)).indicators
        .dblwrShareOfFileIoWait.value,
    ).toBeCloseTo(0.3);
    const maria = profile(facts("g", mariadb1011, load({ flushed: 10, doublewrite: true, txn: 1 }), io))
      .indicators.dblwrShareOfFileIoWait;
    expect(maria.value).toBeNull();
    expect(maria.note).toMatch(/system_tablespace/);
  });

  it("meters IOPS against the limit in the provider's units", () => {
    // EBS counts up to 256 KiB as one I/O: 10 writes of 2 MiB are 80 units.
    const f2 = facts("h", mysql8035, ebsTwp, {
      workload: {
        windowSeconds: 3600,
        device: {
          writeIops: { avg: 10 },
          writeBytesPerSecond: { avg: 10 * 2097152 },
          readIops: { avg: 0 },
          readBytesPerSecond: { avg: 0 },
        },
      },
    });
    expect(profile(f2).indicators.iopsLimitShare.value).toBeCloseTo(80 / 3000);
  });

  it("falls back to the redo capacity for the checkpoint age share", () => {
    const f3 = facts(
      "i",
      mysql8035,
      { config: { redoLogCapacityBytes: 1000 } },
      {
        workload: { windowSeconds: 3600, gauges: { checkpointAgeBytes: { avg: 600, p95: 800 } } },
      },
    );
    const c = profile(f3).indicators.checkpointAgeShare;
    expect(c.value).toBeCloseTo(0.6);
    expect(c.peak).toBeCloseTo(0.8);
    expect(c.basis).toMatch(/redo log capacity/);
  });
});
