import { describe, expect, it } from "vitest";
import { describeSpec, FLEET, sysbenchArgs, writeLoaded } from "./fleet.js";

describe("the lab fleet", () => {
  it("has at least 12 instances with unique instance labels and a cluster each", () => {
    expect(FLEET.length).toBeGreaterThanOrEqual(12);
    expect(new Set(FLEET.map((s) => s.name)).size).toBe(FLEET.length);
    for (const s of FLEET) {
      expect(s.name).toMatch(/^db-[a-z0-9-]+$/);
      expect(s.cluster).toMatch(/^[a-z0-9-]+$/);
    }
  });

  it("still has at least 12 instances when the IOPS-limited ones are skipped", () => {
    expect(FLEET.filter((s) => !s.throttle).length).toBeGreaterThanOrEqual(12);
  });

  it("covers every setting the demo is about", () => {
    const values = <T>(f: (s: (typeof FLEET)[number]) => T) => new Set(FLEET.map(f));
    expect(values((s) => s.doublewrite)).toEqual(new Set([true, false]));
    expect(values((s) => s.flushLogAtTrxCommit)).toEqual(new Set([1, 2]));
    expect(values((s) => s.bufferPoolSize)).toEqual(new Set(["8M", "16M", "256M"]));
    expect(FLEET.filter((s) => s.performanceSchema).length).toBeGreaterThan(FLEET.length / 2);
    expect(FLEET.some((s) => !s.performanceSchema)).toBe(true);
    const throttled = FLEET.filter((s) => s.throttle);
    expect(throttled.length).toBeGreaterThanOrEqual(2);
    expect(throttled.length).toBeLessThanOrEqual(4);
    expect(new Set(throttled.map((s) => s.throttle!.meterKiB))).toEqual(new Set([16, 256]));
    for (const s of throttled) {
      expect(s.throttle!.writeIops).toBeGreaterThanOrEqual(100);
      expect(s.throttle!.writeIops).toBeLessThan(1000);
    }
    const mysqld = FLEET.filter((s) => s.mysqldExporter);
    expect(mysqld.length).toBeGreaterThanOrEqual(2);
  });

  it("has members that are not write-loaded: idle and read-mostly", () => {
    expect(FLEET.filter((s) => s.loads.length === 0).length).toBeGreaterThanOrEqual(2);
    expect(FLEET.some((s) => s.loads.some((l) => l.test === "oltp_read_only"))).toBe(true);
    expect(FLEET.filter((s) => s.loads.length > 0 && !writeLoaded(s)).length).toBeGreaterThanOrEqual(2);
    expect(FLEET.filter((s) => s.doublewrite && writeLoaded(s)).length).toBeGreaterThanOrEqual(4);
  });

  it("keeps the machine usable: 1 or 2 sysbench threads per load", () => {
    for (const s of FLEET) for (const l of s.loads) expect([1, 2]).toContain(l.threads);
    // Only loads held back by their volume's IOPS cap run without a rate limit.
    for (const s of FLEET) for (const l of s.loads) if (l.rate === 0) expect(s.throttle).not.toBeNull();
  });

  it("renders sysbench arguments and a description", () => {
    const s = FLEET.find((x) => x.name === "db-dw-on-iops300-16k")!;
    expect(sysbenchArgs(s.loads[0]!, 600)).toEqual([
      "oltp_write_only",
      "--tables=4",
      "--table-size=25000",
      "--rand-type=uniform",
      "--threads=2",
      "--rate=0",
      "--time=600",
      "--percentile=95",
    ]);
    expect(describeSpec(s)).toBe(
      "doublewrite ON, bp 8M, flush_log_at_trx_commit=2, performance_schema ON, 300 write IOPS, 16 KiB metering, oltp_write_only 2t unlimited",
    );
  });
});
