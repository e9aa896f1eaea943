import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { SEVERITIES } from "./rule.js";
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
});
