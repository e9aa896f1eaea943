import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { defineRule, register, SEVERITIES } from "./rule.js";
import { ruleIds, rules } from "./rules.js";

const root = join(import.meta.dirname, "../../..");

describe("rule registry", () => {
  it("lists rules once, sorted by id", () => {
    expect(new Set(ruleIds).size).toBe(ruleIds.length);
    expect([...ruleIds]).toEqual([...ruleIds].sort());
  });

  it("covers the rules the issue asks for", () => {
    for (const id of [
      "doublewrite-share-high",
      "doublewrite-pages-too-small",
      "atomic-storage-doublewrite-on",
      "doublewrite-off-unverified-storage",
      "detect-only-step",
      "mariadb-fast-not-atomic",
      "mariadb-atomic-writes-ineffective",
      "buffered-io-voids-atomicity",
      "page-size-exceeds-atomic-unit",
      "managed-service-doublewrite",
    ])
      expect(ruleIds).toContain(id);
  });

  it.each(rules.map((r) => [r.meta.id, r] as const))("%s: meta, module, docs page, options", (id, r) => {
    expect(id).toMatch(/^[a-z]+(-[a-z0-9]+)+$/);
    expect(SEVERITIES).toContain(r.meta.severity);
    expect(r.meta.docs).toBe(`docs/rules/${id}.md`);
    expect(existsSync(join(import.meta.dirname, "rules", `${id}.ts`))).toBe(true);
    expect(existsSync(join(import.meta.dirname, "rules", `${id}.test.ts`))).toBe(true);
    const page = readFileSync(join(root, r.meta.docs), "utf8");
    expect(page).toMatch(new RegExp(`^# ${id}\\n`));
    for (const section of [
      "## What it checks",
      "## Why",
      "## What to do",
      "## Expected gain",
      "## Risk",
      "## Options",
    ])
      expect(page, section).toContain(section);
    expect(() => r.meta.options.parse({})).not.toThrow();
    expect(r.meta.needs.facts.length).toBeGreaterThan(0);
  });

  it("has no docs page without a rule", () => {
    const pages = readdirSync(join(root, "docs/rules")).filter((f) => f.endsWith(".md"));
    expect(pages.map((p) => p.replace(/\.md$/, "")).sort()).toEqual([...ruleIds].sort());
  });

  describe("register: options", () => {
    const seen: unknown[] = [];
    const probe = register(
      defineRule({
        meta: {
          id: "probe-rule",
          severity: "notice",
          title: "probe",
          description: "records the options it is run with",
          docs: "docs/rules/probe-rule.md",
          needs: { facts: [], indicators: [] },
          options: z.object({
            minShare: z.number().default(0.3),
            verdicts: z.array(z.string()).default(["a"]),
          }),
        },
        evaluate(_facts, _profile, ctx) {
          seen.push(ctx.options);
          return [];
        },
      }),
    );
    const run = (options: unknown) =>
      probe.run(
        {} as never,
        {} as never,
        { caps: {} as never, verdict: {} as never, gate: {} as never },
        options,
      );

    it("parses the defaults of an unconfigured rule once, frozen all through, and shares them", () => {
      run(undefined);
      run(undefined);
      expect(seen[0]).toEqual({ minShare: 0.3, verdicts: ["a"] });
      expect(seen[1]).toBe(seen[0]);
      expect(Object.isFrozen(seen[0])).toBe(true);
      expect(Object.isFrozen((seen[0] as { verdicts: string[] }).verdicts)).toBe(true);
      // A rule that tried to change its shared options would throw (modules are strict), not leak.
      expect(() => {
        (seen[0] as { minShare: number }).minShare = 1;
      }).toThrow(TypeError);
    });

    it("parses given options on every run: a fresh, unfrozen copy, invalid ones refused", () => {
      seen.length = 0;
      run({});
      run({ minShare: 0.9 });
      expect(seen[0]).toEqual({ minShare: 0.3, verdicts: ["a"] });
      expect(Object.isFrozen(seen[0])).toBe(false);
      expect(Object.isFrozen((seen[0] as { verdicts: string[] }).verdicts)).toBe(false);
      expect(seen[1]).toEqual({ minShare: 0.9, verdicts: ["a"] });
      expect(() => run({ minShare: "high" })).toThrow();
    });
  });
});
