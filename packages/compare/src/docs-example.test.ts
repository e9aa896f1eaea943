import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { compare } from "./compare.js";
import { parseComparisonInput } from "./input.js";

describe("docs/comparison.md", () => {
  it("shows an input example that validates and runs", () => {
    const doc = readFileSync(fileURLToPath(new URL("../../../docs/comparison.md", import.meta.url)), "utf8");
    const example = /```json\n([\s\S]*?)\n```/.exec(doc)?.[1];
    expect(example).toBeDefined();
    const parsed = parseComparisonInput(JSON.parse(example!));
    expect(parsed.success).toBe(true);
    if (!parsed.success) return;
    const result = compare(parsed.data);
    // The example is a shape illustration with two samples: too little data for any verdict.
    expect(result.overall.verdict).toBe("no_data");
    expect(result.results.find((r) => r.metric === "tps" && r.instance === "db-replica-2")!.verdict).toBe(
      "no_data",
    );
  });
});
