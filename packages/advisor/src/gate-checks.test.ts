import { existsSync } from "node:fs";
import { join } from "node:path";
import { GATE_PATHS } from "@untorn/vocabulary/words";
import { describe, expect, it } from "vitest";
import { gateCheckIds, gateChecks } from "./gate-checks.js";

describe("gate check registry", () => {
  it("lists checks once", () => {
    expect(new Set(gateCheckIds).size).toBe(gateCheckIds.length);
  });

  it("runs the provider's checks first, then the shared ones, then each path's own", () => {
    const rank = (c: (typeof gateChecks)[number]) =>
      c.meta.path === "provider-managed" ? 0 : c.meta.shared ? 1 : 2 + GATE_PATHS.indexOf(c.meta.path);
    const ranks = gateChecks.map(rank);
    expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  });

  it.each(gateChecks.map((c) => [c.meta.id, c] as const))("%s: meta, module, table test", (id, c) => {
    expect(id).toMatch(/^[a-z0-9]+(-[a-z0-9]+)*$/);
    expect(GATE_PATHS).toContain(c.meta.path);
    expect(existsSync(join(import.meta.dirname, "gate", `${id}.ts`))).toBe(true);
    expect(existsSync(join(import.meta.dirname, "gate", `${id}.test.ts`))).toBe(true);
    expect(c.meta.title.length).toBeGreaterThan(3);
    expect(c.meta.appliesWhen.length).toBeGreaterThan(5);
    expect(c.meta.passesWhen.length).toBeGreaterThan(5);
    expect(c.meta.needs.length).toBeGreaterThan(0);
    expect(c.meta.source).toMatch(/^(docs\/reference\/[a-z0-9-]+\.md §|https:\/\/)/);
  });
});
