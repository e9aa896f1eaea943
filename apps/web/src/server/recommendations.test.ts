import { beforeAll, describe, expect, it } from "vitest";
import { factsOf } from "../testing/fleet-facts.js";
import { groupFindings, type RuleGroup } from "./recommendations.js";
import { buildSnapshot } from "./snapshot.js";

let groups: RuleGroup[];
let findings: number;

beforeAll(async () => {
  const snap = buildSnapshot({
    fleet: await factsOf(),
    metadata: [],
    storeProblem: null,
    fetchedAt: 0,
    fetchMs: 0,
    window: "1h",
  });
  groups = groupFindings(snap.advice.values());
  findings = [...snap.advice.values()].reduce((n, a) => n + a.findings.length, 0);
});

describe("groupFindings", () => {
  it("counts every finding once, under its rule", () => {
    expect(groups.reduce((n, g) => n + g.count, 0)).toBe(findings);
    expect(new Set(groups.map((g) => g.ruleId)).size).toBe(groups.length);
    for (const g of groups) expect(g.instances).toHaveLength(g.count);
  });

  it("puts the most severe rules first, then the most widespread", () => {
    const order = ["critical", "error", "warning", "notice"];
    const keys = groups.map((g) => [order.indexOf(g.severity), -g.count] as const);
    const sorted = [...keys].sort((a, b) => a[0] - b[0] || a[1] - b[1]);
    expect(keys).toEqual(sorted);
  });

  it("lists the atomic-storage opportunity as actionable on the verified instance", () => {
    const g = groups.find((x) => x.ruleId === "atomic-storage-doublewrite-on");
    expect(g?.instances.map((i) => i.instance)).toEqual(["db-heavy-atomic:9105"]);
    expect(g?.blocked).toBe(0);
    expect(g?.instances[0]?.actionable).toBe(true);
    expect(g?.throughput?.high).toBeGreaterThan(0);
    // Monitoring advice changes no setting: information, not an action.
    const gaps = groups.find((x) => x.ruleId === "observability-gaps");
    expect(gaps?.instances.every((i) => !i.actionable)).toBe(true);
  });
});
