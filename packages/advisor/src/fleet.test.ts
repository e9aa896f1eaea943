import { describe, expect, it } from "vitest";
import { advise } from "./advise.js";
import { scenarios } from "./fixtures/scenarios.js";
import { rankFleet } from "./fleet.js";

const byName = (name: string) => {
  const s = scenarios.find((x) => x.name === name);
  if (!s) throw new Error(name);
  return advise(s.facts);
};

describe("rankFleet", () => {
  const results = scenarios.map((s) => advise(s.facts));
  const ranking = rankFleet(results);

  it("ranks every instance once, actionable by benefit x confidence, then blocked, then nothing to gain", () => {
    expect(ranking.items).toHaveLength(results.length);
    expect(ranking.items.map((i) => i.rank)).toEqual(results.map((_, n) => n + 1));
    const group = (i: (typeof ranking.items)[number]) => (i.score <= 0 ? 2 : i.blocked ? 1 : 0);
    const groups = ranking.items.map(group);
    expect(groups).toEqual([...groups].sort());
    for (let n = 1; n < ranking.items.length; n++) {
      const a = ranking.items[n - 1];
      const b = ranking.items[n];
      if (a && b && group(a) === group(b)) expect(a.score).toBeGreaterThanOrEqual(b.score);
    }
    for (const i of ranking.items) expect(i.score).toBeCloseTo(i.benefit * i.confidence, 3);
  });

  it("shows blocked opportunities with their gate", () => {
    const blocked = ranking.items.filter((i) => i.blocked);
    expect(blocked.length).toBeGreaterThan(0);
    for (const i of blocked) {
      expect(i.gate.status).not.toBe("verified");
      expect(i.opportunity?.ruleId).toBeDefined();
    }
    const m16 = ranking.items.find((i) => i.instance === "m8035-16k-plain");
    expect(m16).toMatchObject({
      blocked: true,
      gate: { status: "unsafe" },
      opportunity: { ruleId: "doublewrite-share-high" },
    });
  });

  it("puts a verified write-bound instance with a large gain above a blocked one with the same gain", () => {
    const ranked = rankFleet([
      byName("mysql-8.0.35 16k-metered write-bound, storage unverified"),
      byName("mysql-8.0.35 16k-metered write-bound, twp verified"),
    ]);
    expect(ranked.items.map((i) => [i.instance, i.blocked])).toEqual([
      ["m8035-16k-twp", false],
      ["m8035-16k-plain", true],
    ]);
    expect(ranked.items[0]?.opportunity?.ruleId).toBe("atomic-storage-doublewrite-on");
  });

  it("prefers the remedy over the diagnosis when both carry the same gain", () => {
    const rds = rankFleet([byName("rds mysql-8.0.35 iops-bound")]).items[0];
    expect(rds?.opportunity?.ruleId).toBe("managed-service-doublewrite");
  });

  it("lists instances at risk whatever their benefit", () => {
    const risky = ranking.atRisk.map((r) => r.instance);
    expect(risky).toContain("m8025-off-virtio");
    expect(risky).toContain("rds-m8028-off");
    expect(risky).not.toContain("rds-m8035-ow");
    expect(ranking.atRisk.find((r) => r.instance === "m8025-off-virtio")?.findings[0]).toMatchObject({
      ruleId: "doublewrite-off-unverified-storage",
      severity: "critical",
    });
  });

  it("counts verdicts and groups", () => {
    const c = ranking.counts;
    expect(c["write-bound"] + c.likely + c["not-write-bound"] + c.unknown).toBe(results.length);
    expect(c.actionable + c.blocked).toBeLessThanOrEqual(results.length);
    expect(c.blocked).toBe(ranking.items.filter((i) => i.blocked && i.score > 0).length);
  });

  it("is deterministic whatever the input order", () => {
    const reversed = rankFleet([...results].reverse());
    expect(reversed.items.map((i) => i.instance)).toEqual(ranking.items.map((i) => i.instance));
    expect(rankFleet([])).toEqual({
      items: [],
      atRisk: [],
      counts: { "write-bound": 0, likely: 0, "not-write-bound": 0, unknown: 0, blocked: 0, actionable: 0 },
    });
  });
});
