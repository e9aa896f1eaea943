import { describe, expect, it } from "vitest";
import {
  DEMO_DECLARATION_NOTE,
  declaredMetadata,
  describeSpec,
  FLEET,
  idle,
  shopMembers,
  sysbenchArgs,
  writeLoaded,
} from "./fleet.js";

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
    // The standalone IOPS-limited members (the replicated cluster's replicas are checked below).
    const throttled = FLEET.filter((s) => s.throttle && !s.replication);
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

  it("has a replicated cluster for the recorded rollouts: canary and control on identical volumes declared atomic", () => {
    const shop = shopMembers(FLEET)!;
    expect(shop).not.toBeNull();
    const { primary, canary, control } = shop;
    expect(new Set([primary.cluster, canary.cluster, control.cluster]).size).toBe(1);
    expect(writeLoaded(primary)).toBe(true);
    // The replicas apply the primary's writes: loaded, not idle.
    for (const r of [canary, control]) {
      expect(r.loads).toEqual([]);
      expect(writeLoaded(r)).toBe(true);
      expect(idle(r)).toBe(false);
      expect(r.throttle).toEqual({ writeIops: 600, meterKiB: 16, backing: "zram" });
      expect(r.declaredAtomic).toBe(true);
      expect(r.doublewrite).toBe(true);
    }
    expect({ ...canary, name: "", role: "", replication: null }).toEqual({
      ...control,
      name: "",
      role: "",
      replication: null,
    });
    const meta = declaredMetadata(FLEET).instances;
    expect(meta[primary.name]).toMatchObject({ role: "primary", cluster: "shop" });
    expect(meta[canary.name]).toMatchObject({ role: "replica", cluster: "shop" });
    expect(meta[canary.name]!.storageFacts!.tornWriteProtection).toEqual({
      provider: "other",
      unitBytes: 16384,
      note: DEMO_DECLARATION_NOTE,
      demoOnly: true,
    });
    // Nothing else is declared atomic: the rest of the fleet keeps its honest unverified gates.
    const declared = Object.entries(meta).filter(([, m]) => m.storageFacts?.tornWriteProtection);
    expect(declared.map(([n]) => n).sort()).toEqual([canary.name, control.name].sort());
    expect(meta["db-idle-dw-on-1"]).toMatchObject({ role: "standalone" });
    expect(describeSpec(canary)).toBe(
      "doublewrite ON, bp 16M, flush_log_at_trx_commit=2, performance_schema ON, 600 write IOPS, 16 KiB metering (zram), declared atomic for the demo, replica of db-shop-primary",
    );
    expect(sysbenchArgs(primary.loads[0]!, 60, primary.tables)).toContain("--tables=2");
  });
});
