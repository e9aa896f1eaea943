import { existsSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { INDICATOR_IDS, type IndicatorId } from "./profile.js";
import { indicatorGroupIds, indicatorGroups } from "./profile-groups.js";

describe("indicator group registry", () => {
  it("lists groups once", () => {
    expect(new Set(indicatorGroupIds).size).toBe(indicatorGroupIds.length);
  });

  it("builds every indicator exactly once, in the order of INDICATOR_IDS", () => {
    expect(indicatorGroups.flatMap((g) => g.meta.indicators.map((i) => i.id))).toEqual([...INDICATOR_IDS]);
  });

  it("has each group read only indicators of the groups before it", () => {
    const before = new Set<IndicatorId>();
    for (const g of indicatorGroups) {
      for (const u of g.meta.uses) expect(before.has(u), `${g.meta.id} uses ${u}`).toBe(true);
      for (const i of g.meta.indicators) before.add(i.id);
    }
  });

  it.each(indicatorGroups.map((g) => [g.meta.id, g] as const))("%s: meta, module, table test", (id, g) => {
    expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(existsSync(join(import.meta.dirname, "profile", `${id}.ts`))).toBe(true);
    expect(existsSync(join(import.meta.dirname, "profile", `${id}.test.ts`))).toBe(true);
    expect(g.meta.needs.length).toBeGreaterThan(0);
    expect(g.meta.source).toMatch(/^$|^(docs\/reference\/[a-z0-9-]+\.md §|https:\/\/)/);
    for (const i of g.meta.indicators) {
      expect(i.label.length, i.id).toBeGreaterThan(3);
      expect(i.formula.length, i.id).toBeGreaterThan(5);
    }
  });
});
