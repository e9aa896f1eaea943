import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "./capabilities.js";
import type { InstanceFacts } from "./facts.js";
import {
  atomicNvme,
  facts,
  load,
  mariadb1011,
  metered16kTwp,
  mysql8019,
  mysql8035,
  percona57,
  virtio,
} from "./fixtures/build.js";
import {
  benefitOf,
  doublewriteRemovalGain,
  NO_GAIN,
  PER_REQUEST_CEILING,
  rangeFor,
  saturatedBound,
} from "./gain.js";
import { buildProfile } from "./profile.js";
import { judgeWriteBound } from "./verdict.js";

const gainOf = (f: InstanceFacts, to: "off" | "detect_only" = "off") => {
  const caps = capabilitiesFor(f);
  const profile = buildProfile(f, caps);
  const verdict = judgeWriteBound(f, caps, profile);
  return { verdict, gain: doublewriteRemovalGain(f, caps, profile, verdict, to) };
};

/** The emulated IOPS-limited volume of docs/reference/iops-metering.md §11: MariaDB 10.11, 124-page batches, ~10 fsyncs per batch. */
const limited = (ioUnitBytes: number, iops: number, flushed: number) =>
  facts(
    "cal",
    mariadb1011,
    metered16kTwp,
    { storage: { limits: { iops, ioUnitBytes, bandwidthBytesPerSecond: null } } },
    load({
      flushed,
      doublewrite: true,
      batchPages: 124,
      fsyncsPerBatch: 10,
      txn: flushed / 5,
      waitFree: 2,
      checkpointShare: 0.8,
      device: { util: 0.9, writeLatency: 0.004, readIops: 20 },
    }),
  );

describe("saturated-resource bound", () => {
  it("is s / (1 - s), capped at +100% (RDS 'up to 2x', docs/reference/atomic-storage.md §8.1)", () => {
    expect(saturatedBound(0)).toBe(0);
    expect(saturatedBound(0.2)).toBeCloseTo(0.25);
    expect(saturatedBound(0.5)).toBe(1);
    expect(saturatedBound(0.9)).toBe(1);
  });

  it("scales by verdict", () => {
    const b = { low: 0.8, high: 0.8 };
    expect(rangeFor("write-bound", b)).toEqual({ low: 0.2, high: 0.8 });
    expect(rangeFor("likely", b)).toEqual({ low: 0, high: 0.4 });
    expect(rangeFor("unknown", b)).toEqual({ low: 0, high: 0.8 });
    expect(rangeFor("not-write-bound", b)).toEqual({ low: 0, high: 0 });
  });
});

describe("calibration against docs/reference/published-results.md §9, docs/reference/iops-metering.md §11", () => {
  it("16 KiB-metered volume at its cap: doublewrite eats half the budget; measured +57% to +84% at 16-64 threads", () => {
    const { verdict, gain } = gainOf(limited(16384, 500, 120));
    expect(verdict.verdict).toBe("write-bound");
    expect(gain.binding).toBe("iops-16k");
    expect(gain.share).toBeGreaterThan(0.45);
    expect(gain.share).toBeLessThan(0.55);
    for (const measured of [0.57, 0.84]) {
      expect(gain.throughput.low).toBeLessThanOrEqual(measured);
      expect(gain.throughput.high).toBeGreaterThanOrEqual(measured);
    }
  });

  it("the same budget metered per request: doublewrite under 10% of the requests, yet measured +12% to +38% at 4-64 threads", () => {
    const { verdict, gain } = gainOf(limited(1048576, 1500, 300));
    expect(verdict.verdict).toBe("write-bound");
    expect(gain.binding).toBe("iops-per-request");
    expect(gain.share).toBeLessThan(0.1);
    // docs/reference/iops-metering.md §11, 1500 IOPS with large I/Os counted as one: +38% (4), +16% (16), +12% (64 threads).
    for (const measured of [0.12, 0.16, 0.38]) {
      expect(gain.throughput.low).toBeLessThanOrEqual(measured);
      expect(gain.throughput.high).toBeGreaterThanOrEqual(measured);
    }
    expect(gain.throughput.high).toBeLessThanOrEqual(PER_REQUEST_CEILING);
    // Still below a page-metered volume of the same budget, where doublewrite eats half the I/O.
    expect(benefitOf(gain)).toBeLessThan(benefitOf(gainOf(limited(16384, 500, 120)).gain));
  });

  it("per request, DETECT_ONLY keeps every batch: only the budget bound, no flush-path gain", () => {
    const { gain } = gainOf(limited(1048576, 1500, 300), "detect_only");
    expect(gain.throughput.high).toBe(0);
  });

  it("published write-bound figures fall inside the write-bound range for s ~ 0.5", () => {
    const { gain } = gainOf(limited(16384, 500, 120));
    // Google Hyperdisk up to +25%, MariaDB 2013 ~+30%, Alibaba +40-48%, AWS up to 2x (docs/reference/published-results.md §9).
    for (const published of [0.25, 0.3, 0.4, 0.48, 0.57]) {
      expect(gain.throughput.low).toBeLessThanOrEqual(published);
      expect(gain.throughput.high).toBeGreaterThanOrEqual(published);
    }
    expect(gain.throughput.high).toBeLessThanOrEqual(1);
  });

  it("fast unthrottled disk (TPS ratio 0.96-1.12, noise): no throughput change, 47-60% fewer bytes", () => {
    const f = facts(
      "fast",
      mariadb1011,
      virtio,
      load({
        flushed: 1700,
        doublewrite: true,
        batchPages: 123,
        txn: 800,
        device: { util: 0.3, writeLatency: 0.0004 },
      }),
    );
    const { verdict, gain } = gainOf(f);
    expect(verdict.verdict).toBe("not-write-bound");
    expect(gain.throughput).toEqual({ low: 0, high: 0 });
    expect(gain.kind).toBe("efficiency");
    expect(gain.writeBytesPerTxn?.high).toBeGreaterThanOrEqual(0.47);
    expect(gain.writeBytesPerTxn?.high).toBeLessThanOrEqual(0.6);
  });

  it("fsyncs: up to half of MariaDB's at ~10 per batch (88 vs 44/s), none extra on MySQL with O_DIRECT", () => {
    const maria = gainOf(limited(16384, 500, 120)).gain;
    expect(maria.fsyncsPerTxn?.high).toBeCloseTo(0.5, 1);
    const mysql = facts(
      "my",
      mysql8035,
      atomicNvme,
      load({ flushed: 500, doublewrite: true, txn: 100, device: { util: 0.2, writeLatency: 0.001 } }),
    );
    expect(gainOf(mysql).gain.fsyncsPerTxn).toEqual({ low: 0, high: 0 });
    const buffered = facts(
      "myb",
      mysql8035,
      atomicNvme,
      { config: { flushMethod: "fsync" } },
      load({ flushed: 500, doublewrite: true, txn: 100, device: { util: 0.2, writeLatency: 0.001 } }),
    );
    expect(gainOf(buffered).gain.fsyncsPerTxn?.high).toBeGreaterThan(0);
  });

  it.each([
    [
      "MySQL 8.0.19, O_DIRECT: the system-tablespace doublewrite is still fsynced",
      mysql8019,
      "O_DIRECT",
      true,
    ],
    [
      "Percona 5.7, O_DIRECT: the parallel doublewrite file is fsynced (docs/reference/percona.md §3)",
      percona57,
      "O_DIRECT",
      true,
    ],
    ["Percona 5.7, O_DIRECT_NO_FSYNC: not fsynced", percona57, "O_DIRECT_NO_FSYNC", false],
    [
      "MySQL 8.0.35, O_DIRECT_NO_FSYNC: not fsynced (docs/reference/mysql.md §1.5)",
      mysql8035,
      "O_DIRECT_NO_FSYNC",
      false,
    ],
  ] as const)("fsyncs before and after 8.0.20: %s", (_name, server, flushMethod, adds) => {
    const f = facts(
      "fs",
      server,
      atomicNvme,
      { config: { flushMethod } },
      load({ flushed: 500, doublewrite: true, txn: 100, device: { util: 0.2, writeLatency: 0.001 } }),
    );
    const high = gainOf(f).gain.fsyncsPerTxn?.high ?? null;
    if (adds) expect(high).toBeGreaterThan(0);
    else expect(high).toBe(0);
  });

  it("unknown share is not zero: the range keeps the prior bound", () => {
    const f = facts(
      "u",
      mysql8035,
      atomicNvme,
      load({
        flushed: 2500,
        doublewrite: true,
        txn: 900,
        waitFree: 4,
        device: { util: 0.95, writeLatency: 0.012 },
      }),
      {
        workload: {
          rates: { dblwrPagesWritten: null, dblwrWrites: null },
          device: { writeBytesPerSecond: null },
        },
        config: { pageSizeBytes: null },
      },
    );
    const { verdict, gain } = gainOf(f);
    expect(verdict.verdict).toBe("write-bound");
    expect(gain.share).toBeNull();
    expect(gain.throughput.high).toBe(1);
    expect(gain.basis).toMatch(/share unknown/);
  });
});

describe("DETECT_ONLY", () => {
  it("frees the bytes but not the per-batch requests (docs/reference/mysql.md §1.3)", () => {
    const bytesBound = gainOf(limited(16384, 500, 120), "detect_only").gain;
    const off = gainOf(limited(16384, 500, 120), "off").gain;
    expect(bytesBound.throughput.high).toBeGreaterThan(0.9 * off.throughput.high);
    expect(bytesBound.writeOpsPerTxn).toBeNull();
    const perRequest = gainOf(limited(1048576, 1500, 300), "detect_only").gain;
    expect(perRequest.throughput).toEqual({ low: 0, high: 0 });
  });
});

describe("benefitOf", () => {
  it("ranks throughput first, efficiency at a tenth", () => {
    expect(benefitOf(null)).toBe(0);
    expect(benefitOf(NO_GAIN)).toBe(0);
    const g = { ...NO_GAIN, throughput: { low: 0.2, high: 0.6 }, writeBytesPerTxn: { low: 0.4, high: 0.6 } };
    expect(benefitOf(g)).toBeCloseTo(0.4 + 0.05);
  });
});
