import { describe, expect, it } from "vitest";
import { pickCounters, runMetrics } from "./measure.js";

const sb = {
  transactions: 1000,
  tps: 100,
  qps: 400,
  errors: 2,
  latencyAvgMs: 5,
  latencyP95Ms: 9,
  seconds: 10,
};

describe("pickCounters", () => {
  it("keeps the counters the bench needs as numbers", () => {
    const s = pickCounters(
      new Map([
        ["Innodb_data_writes", "42"],
        ["Uptime", "9"],
        ["Com_commit", "x"],
      ]),
    );
    expect(s).toEqual({ Innodb_data_writes: 42 });
  });
});

describe("runMetrics", () => {
  const before = {
    at: 0,
    status: {
      Innodb_data_writes: 100,
      Innodb_data_written: 1_000_000,
      Innodb_data_fsyncs: 10,
      Innodb_dblwr_pages_written: 0,
      Innodb_buffer_pool_pages_flushed: 50,
      Innodb_buffer_pool_wait_free: 0,
    },
    disk: { writes: 1000, writeBytes: 0, flushes: 5 },
  };
  const after = {
    at: 10_000,
    status: {
      Innodb_data_writes: 10_100,
      Innodb_data_written: 1_000_000 + 5000 * 16384 + 5000,
      Innodb_data_fsyncs: 510,
      Innodb_dblwr_pages_written: 5000,
      Innodb_buffer_pool_pages_flushed: 5050,
      Innodb_buffer_pool_wait_free: 30,
    },
    disk: { writes: 11_000, writeBytes: 0, flushes: 105 },
  };

  it("gives per-transaction costs and per-second rates from the deltas", () => {
    const m = runMetrics(before, after, sb, { pageSize: 16384, mdev31124: false });
    expect(m.writeOpsPerTrx).toBe(10);
    expect(m.writeBytesPerTrx).toBe((5000 * 16384 + 5000) / 1000);
    expect(m.fsyncsPerTrx).toBe(0.5);
    expect(m.dblwrPagesPerTrx).toBe(5);
    expect(m.pagesFlushedPerTrx).toBe(5);
    expect(m.innodbWriteOpsPerSec).toBe(1000);
    expect(m.freePageWaitsPerSec).toBe(3);
    expect(m.deviceWritesPerTrx).toBe(10);
    expect(m.deviceWriteIops).toBe(1000);
    expect(m.deviceFlushesPerSec).toBe(10);
    expect(m.redoBytesPerTrx).toBeNull();
  });

  it("corrects Innodb_data_written on MDEV-31124 versions (doublewrite pages counted as 1 byte)", () => {
    const undercounted = {
      ...after,
      status: { ...after.status, Innodb_data_written: 1_000_000 + 5000 * 16384 },
    };
    const m = runMetrics(before, undercounted, sb, { pageSize: 16384, mdev31124: true });
    expect(m.writeBytesPerTrx).toBe((5000 * 16384 + 5000 * 16383) / 1000);
  });

  it("gives no delta for a counter that went down, and no device numbers without device counters", () => {
    const reset = { ...after, status: { ...after.status, Innodb_data_fsyncs: 3 }, disk: undefined };
    const m = runMetrics(before, reset, sb, { pageSize: 16384, mdev31124: false });
    expect(m.fsyncsPerTrx).toBeNull();
    expect(m.deviceWritesPerTrx).toBeNull();
    expect(m.writeOpsPerTrx).toBe(10);
  });
});
