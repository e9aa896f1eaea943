import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { comparisonJsonSchemas, SCHEMA_FILES, serialiseSchema } from "./json-schema.js";

const docs = (file: string) => fileURLToPath(new URL(`../../../docs/schemas/${file}`, import.meta.url));

describe("generated JSON Schemas", () => {
  it.each(SCHEMA_FILES)("docs/schemas/%s is up to date (npm run gen:schema -w @untorn/compare)", (file) => {
    const committed = readFileSync(docs(file), "utf8");
    expect(committed).toBe(serialiseSchema(comparisonJsonSchemas()[file]));
  });

  it("describes the input as users write it: defaults optional, no NaN", () => {
    const schema = comparisonJsonSchemas()["comparison-input.schema.json"] as {
      required: string[];
      properties: Record<string, unknown>;
    };
    expect(schema.required).toEqual(["metrics", "instances"]);
    expect(Object.keys(schema.properties)).toEqual(
      expect.arrayContaining(["seed", "windows", "metrics", "instances", "options"]),
    );
  });
});
