import { describe, expect, it } from "vitest";
import { hypothesisSummary, planInputSchema, planRollout } from "./plan.ts";
import { mysql } from "./testing.ts";

const plan = (instances: ReturnType<typeof mysql>[], extra: Record<string, unknown> = {}) =>
  planRollout(planInputSchema.parse({ change: { kind: "doublewrite-off" }, instances, ...extra }));

describe("planRollout", () => {
  it("lists every exclusion with its reason and what would verify the gate", () => {
    const p = plan(
      [
        mysql("p1", "primary"),
        mysql("r1", "replica"),
        mysql("r2", "replica", { verified: false }),
        mysql("r3", "replica"),
        mysql("x1", null),
        mysql("s1", "standalone", { cluster: "solo" }),
        mysql("r9", "replica", { cluster: "c9" }),
        mysql("busy", "replica"),
      ],
      { activeRollouts: [{ rolloutId: "other", instances: ["busy"] }] },
    );
    const reasons = Object.fromEntries(p.exclusions.map((e) => [e.instance, e.reason]));
    expect(reasons).toEqual({
      busy: "another-rollout-active",
      r2: "gate-not-verified",
      r9: "no-control-sibling",
      s1: "no-control-sibling",
      x1: "role-unknown",
    });
    expect(p.exclusions.find((e) => e.instance === "r2")!.toVerify.length).toBeGreaterThan(0);
    // r2 (gate not verified, never changed) is the best control: it stays untouched throughout.
    expect(p.waves.map((w) => [w.kind, w.instances, w.controls])).toEqual([
      ["canary", ["r1"], ["r2"]],
      ["replicas", ["r3"], ["r2"]],
      ["primaries", ["p1"], []],
    ]);
    const dry = p.dryRun.find((r) => r.instance === "r1")!;
    expect(dry).toMatchObject({ current: "ON", target: "OFF", restart: true, gate: "verified", wave: 0 });
    expect(p.dryRun.find((r) => r.instance === "r2")).toMatchObject({
      control: true,
      excluded: "gate-not-verified",
      current: "ON",
      target: null,
    });
  });

  it("keeps waves within the blast-radius budget and the per-cluster share", () => {
    const fleet = [
      ...["a1", "a2", "a3", "a4", "a5"].map((i) => mysql(i, "replica", { cluster: "a" })),
      ...["b1", "b2", "b3"].map((i) => mysql(i, "replica", { cluster: "b" })),
    ];
    const p = plan(fleet, { policy: { maxInstancesPerWave: 3, maxClusterShare: 0.4 } });
    const clusterOf = (i: string) => i[0]!;
    for (const w of p.waves) {
      expect(w.instances.length).toBeLessThanOrEqual(3);
      const perCluster = new Map<string, number>();
      for (const i of w.instances) perCluster.set(clusterOf(i), (perCluster.get(clusterOf(i)) ?? 0) + 1);
      expect(perCluster.get("a") ?? 0).toBeLessThanOrEqual(2);
      expect(perCluster.get("b") ?? 0).toBeLessThanOrEqual(1);
      // A wave never contains its own control.
      for (const c of w.controls) expect(w.instances).not.toContain(c);
    }
    expect(p.waves[0]!.kind).toBe("canary");
    expect(p.waves.flatMap((w) => w.instances).sort()).toEqual(fleet.map((f) => f.identity.instance).sort());
    expect(p.waves.at(-1)!.kind).toBe("controls");
  });

  it("a primary without a replica in the rollout has no switchover target", () => {
    const p = plan([
      mysql("p1", "primary"),
      mysql("r1", "replica", { verified: false }),
      mysql("r2", "replica", { verified: false }),
    ]);
    expect(p.waves).toEqual([]);
    expect(p.exclusions.find((e) => e.instance === "p1")!.reason).toBe("no-switchover-target");
  });

  it("targets narrow the change; other instances can still be controls", () => {
    const p = plan([mysql("r1", "replica"), mysql("r2", "replica"), mysql("r3", "replica")], {
      targets: ["r1"],
    });
    expect(p.waves).toEqual([{ index: 0, kind: "canary", instances: ["r1"], controls: ["r2"] }]);
  });

  it("the hypothesis carries the advisor's finding when there is one", () => {
    const p = plan([mysql("r1", "replica"), mysql("r2", "replica")]);
    expect(p.hypothesis.summary).toMatch(/innodb_doublewrite/);
  });
});

describe("hypothesisSummary", () => {
  const row = (g: { lo: number; hi: number; bytes?: [number, number] }) =>
    ({
      wave: 0,
      expectedGain: {
        throughput: { low: g.lo, high: g.hi },
        writeBytesPerTxn: g.bytes ? { low: g.bytes[0], high: g.bytes[1] } : null,
      },
    }) as unknown as Parameters<typeof hypothesisSummary>[1][number];
  const off = { kind: "doublewrite-off" } as const;

  it("never promises a throughput range of 0% to 0%", () => {
    const s = hypothesisSummary(off, [row({ lo: 0, hi: 0, bytes: [0.3, 0.45] })]);
    expect(s).not.toMatch(/0% to 0%/);
    expect(s).toContain("write bytes per transaction 30% to 45% lower");
    expect(s).not.toContain("throughput");
  });

  it("says the findings put no figure on it when nothing is quantified", () => {
    const s = hypothesisSummary(off, [row({ lo: 0, hi: 0 })]);
    expect(s).not.toMatch(/expects/);
    expect(s).toMatch(/no figure on the gain/);
  });

  it("keeps a real throughput range", () => {
    expect(hypothesisSummary(off, [row({ lo: 0.05, hi: 0.2 })])).toContain(
      "write throughput 5% to 20% higher where it is write-bound",
    );
  });
});

describe("standalone servers", () => {
  it("are excluded while a control is required, and judged before/after when it is not", () => {
    const s = [mysql("s1", "standalone", { doublewrite: "off", verified: false })];
    const on = { kind: "doublewrite-on" } as const;
    const strict = planRollout(planInputSchema.parse({ change: on, instances: s }));
    expect(strict.waves).toEqual([]);
    expect(strict.exclusions[0]).toMatchObject({ instance: "s1", reason: "no-control-sibling" });
    const loose = planRollout(
      planInputSchema.parse({ change: on, instances: s, policy: { requireControl: false } }),
    );
    expect(loose.waves).toEqual([{ index: 0, kind: "canary", instances: ["s1"], controls: [] }]);
    // Turning protection back on needs no safety gate: an unverified gate does not exclude it.
    expect(loose.exclusions).toEqual([]);
    expect(loose.steps[0]).toMatchObject({ instance: "s1", target: "ON" });
  });
});
