import { beforeAll, describe, expect, it } from "vitest";
import { smallSnapshot } from "../../testing/fleet-facts.js";
import { RECOMMENDATIONS_CSV_HEADER, recommendationsCsv } from "./exports.js";
import { filterGroups, groupFindings, type RuleGroup, waitingInstances } from "./recommendations.js";

let groups: RuleGroup[];
let findings: number;

beforeAll(async () => {
  const snap = await smallSnapshot();
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

describe("filterGroups", () => {
  it("keeps everything for no filter", () => {
    expect(filterGroups(groups, { q: "", severity: null, gate: null })).toEqual(groups);
  });

  it("keeps a matching rule whole, or the matching instances of the others, with counts recomputed", () => {
    const byRule = filterGroups(groups, { q: "ATOMIC-STORAGE", severity: null, gate: null });
    expect(byRule.map((g) => g.ruleId)).toContain("atomic-storage-doublewrite-on");
    const byInstance = filterGroups(groups, { q: "db-heavy-atomic", severity: null, gate: null });
    for (const g of byInstance) {
      expect(g.instances.every((i) => i.instance === "db-heavy-atomic:9105")).toBe(true);
      expect(g.count).toBe(g.instances.length);
      expect(g.blocked).toBe(g.instances.filter((i) => i.blocked).length);
    }
    expect(byInstance.length).toBeGreaterThan(0);
    expect(filterGroups(groups, { q: "no-such-thing", severity: null, gate: null })).toEqual([]);
  });

  it("filters by severity and by waiting for the gate or actionable", () => {
    const waiting = filterGroups(groups, { q: "", severity: null, gate: "waiting" });
    expect(waiting.flatMap((g) => g.instances).every((i) => i.blocked)).toBe(true);
    expect(waitingInstances(waiting)).toEqual(waitingInstances(groups));
    const actionable = filterGroups(groups, { q: "", severity: null, gate: "actionable" });
    expect(actionable.flatMap((g) => g.instances).every((i) => i.actionable && !i.blocked)).toBe(true);
    for (const sev of ["critical", "error", "warning", "notice"] as const) {
      const kept = filterGroups(groups, { q: "", severity: sev, gate: null });
      expect(kept.every((g) => g.severity === sev && g.instances.every((i) => i.severity === sev))).toBe(
        true,
      );
      expect(kept.reduce((n, g) => n + g.count, 0)).toBe(
        groups.flatMap((g) => g.instances).filter((i) => i.severity === sev).length,
      );
    }
  });
});

describe("recommendationsCsv", () => {
  it("has one line per finding under the header, in the page's order", () => {
    const lines = recommendationsCsv(groups).split("\r\n");
    expect(lines[0]).toBe(RECOMMENDATIONS_CSV_HEADER.join(","));
    expect(lines.at(-1)).toBe("");
    expect(lines).toHaveLength(findings + 2);
    const first = groups[0]!;
    expect(lines[1]?.startsWith(`${first.ruleId},`)).toBe(true);
    expect(lines[1]).toContain(first.instances[0]!.instance);
  });
});
