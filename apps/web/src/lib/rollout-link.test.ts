import type { Finding } from "@untorn/advisor/rule";
import { describe, expect, it } from "vitest";
import { changeFieldsOf, planHref } from "./rollout-link.js";

const finding = (variable: string, to: string, blocked = false) =>
  ({
    blocked: blocked ? { gate: "unverified", reason: "x", toVerify: [] } : null,
    actions: [
      {
        platform: "self-managed",
        title: "t",
        steps: [],
        snippets: [],
        restart: true,
        changes: [
          { variable, from: "ON", to, via: "option-file", restart: true, removesTornPageProtection: true },
        ],
      },
    ],
  }) as unknown as Pick<Finding, "actions" | "blocked">;

describe("changeFieldsOf", () => {
  it.each([
    ["innodb_doublewrite", "OFF", { kind: "doublewrite-off" }],
    ["innodb_doublewrite", "DETECT_ONLY", { kind: "doublewrite-detect-only" }],
    ["innodb_doublewrite", "ON", { kind: "doublewrite-on", requireControl: "off" }],
    ["innodb_doublewrite_pages", "128", { kind: "doublewrite-pages", pages: "128" }],
    ["innodb_flush_method", "O_DIRECT", { kind: "flush-method", method: "O_DIRECT" }],
    ["rds.optimized_writes", "AUTO", { kind: "atomic-storage", platform: "rds-blue-green" }],
  ])("%s = %s", (variable, to, fields) => {
    expect(changeFieldsOf(finding(variable, to))).toEqual(fields);
  });
  it("offers nothing for a blocked finding or an unknown variable", () => {
    expect(changeFieldsOf(finding("innodb_doublewrite", "OFF", true))).toBeNull();
    expect(changeFieldsOf(finding("innodb_log_file_size", "1G"))).toBeNull();
  });
});

describe("planHref", () => {
  it("carries the change, the rule and every instance", () => {
    const u = new URL(
      planHref({ kind: "doublewrite-off" }, ["a:9105", "b/x"], "doublewrite-share-high"),
      "http://h",
    );
    expect(u.pathname).toBe("/rollouts/new");
    expect(u.searchParams.get("kind")).toBe("doublewrite-off");
    expect(u.searchParams.get("rule")).toBe("doublewrite-share-high");
    expect(u.searchParams.getAll("target")).toEqual(["a:9105", "b/x"]);
  });
});
