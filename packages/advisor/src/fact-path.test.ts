import { describe, expect, it } from "vitest";
import { FACT_SOURCES } from "./fact-sources.js";
import type { FactPath } from "./facts.js";
import { facts, without } from "./fixtures/build.js";
import { defineGateCheck } from "./gate/check.js";
import { gateChecks } from "./gate-checks.js";
import { S } from "./profile/indicator.js";
import { indicatorGroups } from "./profile-groups.js";
import { rules } from "./rules.js";

describe("fact paths are typed", () => {
  it("accepts paths that exist and refuses misspelt ones at compile time", () => {
    const ok: FactPath[] = [
      "workload.rates.dblwrPagesWritten",
      "storage.atomicWrite",
      "storage.atomicWrite.unitMaxBytes",
      "workload.fileIo.doublewrite.writeSecondsPerSecond",
      "workload.fileIo.*.writesPerSecond",
    ];
    // @ts-expect-error: "Writen" is not a fact.
    const misspelt: FactPath = "workload.rates.dblwrPagesWriten";
    // @ts-expect-error: a WindowStat ends a path; its fields are not facts.
    const tooDeep: FactPath = "workload.rates.dblwrPagesWritten.avg";
    // @ts-expect-error: an indicator input must name a fact.
    const input = S("workload.device.writeIOPS", null);
    const check = defineGateCheck({
      meta: {
        ...gateChecks[0]!.meta,
        // @ts-expect-error: a gate check's needs must be facts.
        needs: ["storage.fstype"],
      },
      applies: () => false,
      evaluate: () => ({ status: "unknown", detail: "" }),
    });
    // @ts-expect-error: test fixtures remove facts by path too.
    expect(() => without(facts("x"), "workload.devices")).not.toThrow();
    // The checks above are the compiler's; at run time the strings are just strings.
    expect([ok.length, misspelt, tooDeep, input.path, check.meta.needs[0]]).toEqual([
      5,
      "workload.rates.dblwrPagesWriten",
      "workload.rates.dblwrPagesWritten.avg",
      "workload.device.writeIOPS",
      "storage.fstype",
    ]);
  });
});

describe("each stage joins the next", () => {
  const sourced = (path: string) =>
    FACT_SOURCES.some((s) => {
      const field = s.field.replace(".*.", ".");
      const p = path.replace(/^workload\.fileIo\.[a-z_]+\./, "workload.fileIo.");
      return p === field || p.startsWith(`${field}.`) || field.startsWith(`${p}.`);
    });

  it("every fact a gate check, an indicator group or a rule reads has a source", () => {
    const needs = [
      ...gateChecks.flatMap((c) => c.meta.needs.map((n) => [`gate ${c.meta.id}`, n] as const)),
      ...indicatorGroups.flatMap((g) => g.meta.needs.map((n) => [`profile ${g.meta.id}`, n] as const)),
      ...rules.flatMap((r) => r.meta.needs.facts.map((n) => [`rule ${r.meta.id}`, n] as const)),
    ];
    expect(needs.length).toBeGreaterThan(50);
    for (const [who, path] of needs) expect(sourced(path), `${who}: ${path}`).toBe(true);
  });

  it("a fact without a source is caught", () => {
    expect(sourced("workload.rates.dblwrPagesWritten")).toBe(true);
    expect(sourced("workload.rates.noSuchCounter")).toBe(false);
  });
});
