import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "./capabilities.js";
import type { InstanceFacts } from "./facts.js";
import {
  atomicNvme,
  ebsTwp,
  facts,
  hdd,
  load,
  mariadb1011,
  mysql8019,
  mysql8035,
  without,
} from "./fixtures/build.js";
import { buildProfile } from "./profile.js";
import { judgeWriteBound, signalDefs } from "./verdict.js";

const judge = (f: InstanceFacts) => {
  const caps = capabilitiesFor(f);
  return judgeWriteBound(f, caps, buildProfile(f, caps));
};
const sig = (f: InstanceFacts, id: string) => judge(f).evidence.find((e) => e.signal === id);

describe("judgeWriteBound", () => {
  it("explains each signal with its value, threshold and why", () => {
    const v = judge(
      facts(
        "a",
        mysql8035,
        ebsTwp,
        load({
          flushed: 2000,
          doublewrite: true,
          txn: 900,
          waitFree: 2,
          device: { util: 0.9, writeLatency: 0.004 },
        }),
      ),
    );
    expect(v.verdict).toBe("write-bound");
    const iops = v.evidence.find((e) => e.signal === "iops-limit");
    expect(iops).toMatchObject({
      state: "strong",
      statistic: "p95",
      threshold: { partial: 0.7, strong: 0.9 },
      weight: 3,
    });
    expect(iops?.why).toMatch(/vs partial 70% \/ strong 90%/);
    expect(v.summary).toMatch(/^write-bound \(score/);
  });

  it("scores missing signals as missing: they lower confidence, not the score", () => {
    const full = facts(
      "b",
      mysql8035,
      atomicNvme,
      load({
        flushed: 2000,
        doublewrite: true,
        txn: 900,
        waitFree: 3,
        checkpointShare: 0.8,
        device: { util: 0.3, writeLatency: 0.0005 },
      }),
    );
    const partial = without(full, "workload.device");
    const a = judge(full);
    const b = judge(partial);
    expect(b.evidence.filter((e) => e.state === "missing").map((e) => e.signal)).toEqual(
      expect.arrayContaining(["device-utilisation", "device-write-latency", "device-flush-latency"]),
    );
    expect(b.confidence).toBeLessThan(a.confidence);
    // The clear device signals are gone, the strong ones stay: the score of what is known rises.
    expect(b.score).toBeGreaterThan(a.score);
    expect(b.verdict).toBe("write-bound");
  });

  it("is unknown when no signal is present", () => {
    const v = judge(facts("c", mysql8035));
    expect(v.verdict).toBe("unknown");
    expect(v.confidence).toBe(0);
    expect(v.context).toContain("no workload window");
  });

  it("calls an idle instance not write-bound even with little evidence", () => {
    const f = without(
      facts("d", mysql8035, load({ flushed: 0.2, doublewrite: true, txn: 1, device: null })),
      "workload.gauges",
    );
    const v = judge(f);
    expect(v.verdict).toBe("not-write-bound");
    expect(v.context.join(" ")).toMatch(/no sustained write load/);
    expect(v.confidence).toBeGreaterThanOrEqual(0.6);
  });

  it("a rate-limited server at low utilisation is not write-bound on latency alone (the demo's 40 tx/s at 27%)", () => {
    const demoFacts = (storage: typeof atomicNvme, util: number) =>
      facts(
        "demo",
        mariadb1011,
        storage,
        load({
          flushed: 150,
          doublewrite: true,
          txn: 40,
          pendingFsyncs: 1,
          device: { util, writeLatency: 0.012, flushLatency: 0.03 },
        }),
      );
    const demo = (storage: typeof atomicNvme, util: number) => judge(demoFacts(storage, util));
    const local = demo(atomicNvme, 0.27);
    expect(sig(demoFacts(atomicNvme, 0.27), "device-write-latency")?.state).toBe("strong");
    expect(local.verdict).toBe("not-write-bound");
    expect(local.context.join(" ")).toMatch(
      /device utilisation \d+% with every saturation signal clear: device write latency, device flush \(fsync\) latency, pending fsyncs alone come from flush bursts/,
    );
    // The same latencies with the device busy 95% of the time: still at least likely.
    expect(demo(atomicNvme, 0.95).verdict).not.toBe("not-write-bound");
    // A volume whose limits are unknown: a cap could be the saturation, so unknown, saying what settles it.
    const unknownCaps = judge(without(demoFacts(ebsTwp, 0.27), "storage.limits"));
    expect(unknownCaps.verdict).toBe("unknown");
    expect(unknownCaps.context.join(" ")).toMatch(
      /IOPS and bandwidth limits are unknown, and would settle it/,
    );
  });

  it("caps device utilisation at partial when reads dominate the device", () => {
    const f = facts(
      "e",
      mariadb1011,
      hdd,
      load({
        flushed: 50,
        doublewrite: true,
        txn: 50,
        device: { util: 0.97, writeLatency: 0.001, readIops: 3000 },
      }),
    );
    expect(sig(f, "device-utilisation")).toMatchObject({ state: "partial", score: 0.5 });
    expect(judge(f).verdict).not.toBe("write-bound");
  });

  it("uses rotational thresholds for latency on spinning disks", () => {
    const l = load({ flushed: 100, doublewrite: true, txn: 10, device: { util: 0.3, writeLatency: 0.008 } });
    expect(sig(facts("f", mysql8035, hdd, l), "device-write-latency")?.state).toBe("clear");
    expect(sig(facts("g", mysql8035, atomicNvme, l), "device-write-latency")?.state).toBe("partial");
  });

  it("does not count signals the version cannot produce (docs/reference/status-counters.md §4)", () => {
    const f = facts(
      "h",
      mysql8019,
      atomicNvme,
      load({ flushed: 100, doublewrite: true, txn: 10, device: { util: 0.3, writeLatency: 0.001 } }),
    );
    expect(sig(f, "dblwr-flush-waits")?.state).toBe("not-applicable");
    expect(sig(f, "checkpoint-age")?.state).not.toBe("not-applicable"); // the builder supplied it anyway
    expect(sig(f, "iops-limit")?.state).toBe("not-applicable"); // local disk, limits.metered = false
  });

  /** A write-bound load over a window of the given length. */
  const l = (windowSeconds: number) =>
    load({
      flushed: 2500,
      doublewrite: true,
      txn: 900,
      waitFree: 4,
      device: { util: 0.95, writeLatency: 0.012 },
      windowSeconds,
    });

  it("discounts short windows and restarts", () => {
    const long = judge(facts("i", mysql8035, atomicNvme, l(86400)));
    const short = judge(
      facts("j", mysql8035, atomicNvme, l(600), { workload: { restarts: 2, gapRatio: 0.3 } }),
    );
    expect(short.verdict).toBe(long.verdict);
    expect(short.confidence).toBeLessThan(long.confidence * 0.5);
    expect(short.context.join(" ")).toMatch(/10 min.*restart.*no samples/);
  });

  it("says a young server's averages cover part of the window, discounted as a gap of that share, not twice", () => {
    const gap = judge(facts("g", mysql8035, atomicNvme, l(3600), { workload: { gapRatio: 1 / 3 } }));
    const young = judge(
      facts("y", mysql8035, atomicNvme, l(3600), { workload: { gapRatio: 1 / 3, observedSeconds: 2400 } }),
    );
    expect(young.verdict).toBe(gap.verdict);
    expect(young.confidence).toBe(gap.confidence);
    expect(young.context.join(" ")).toMatch(/started inside the window.*last 40 of 60 min/);
    expect(young.context.join(" ")).not.toMatch(/no samples/);
    expect(gap.context.join(" ")).toMatch(/33% of the window has no samples/);
  });
});

describe("signalDefs", () => {
  const spinning = { storage: { rotational: true } } as unknown as InstanceFacts;
  const flash = { storage: { rotational: false } } as unknown as InstanceFacts;
  it("is built once per kind of disk and shared, frozen", () => {
    expect(signalDefs(flash)).toBe(signalDefs({} as InstanceFacts));
    expect(signalDefs(spinning)).not.toBe(signalDefs(flash));
    expect(Object.isFrozen(signalDefs(flash))).toBe(true);
    expect(Object.isFrozen(signalDefs(spinning)[0])).toBe(true);
  });
  it("has the same signals, and the same saturation ones, on either kind of disk (judgeWriteBound keeps one set)", () => {
    const sat = (f: InstanceFacts) => signalDefs(f).map((d) => [d.signal, d.saturation]);
    expect(sat(spinning)).toEqual(sat(flash));
    expect(signalDefs(spinning).find((d) => d.signal === "device-utilisation")?.weight).toBe(1.5);
    expect(signalDefs(flash).find((d) => d.signal === "device-utilisation")?.weight).toBe(1);
  });
  it("writes each signal's thresholds once, as the evidence's why cites them", () => {
    const iops = signalDefs(flash).find((d) => d.signal === "iops-limit")!;
    expect(iops.thresholdsText).toBe("partial 70% / strong 90%");
    const latency = signalDefs(spinning).find((d) => d.signal === "device-write-latency")!;
    expect(latency.thresholdsText).toBe("partial 15 ms / strong 40 ms");
  });
});
