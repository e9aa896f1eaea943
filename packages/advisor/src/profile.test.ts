// Cross-group checks of the whole profile; each indicator group has its own table test in src/profile/.
import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "./capabilities.js";
import type { InstanceFacts } from "./facts.js";
import { facts, load, mariadb1011, mysql84, mysql8035, virtio, without } from "./fixtures/build.js";
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
    expect(p.transactionRate.basis).toBe("client COMMIT + ROLLBACK/s");
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
});
