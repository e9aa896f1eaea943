import { z } from "zod";
import { ComparisonInput } from "./input.js";
import { ComparisonResult } from "./result.js";

/** Where the generated schemas live in the repository (docs/schemas), by file name. */
export const SCHEMA_FILES = ["comparison-input.schema.json", "comparison-result.schema.json"] as const;
export type SchemaFile = (typeof SCHEMA_FILES)[number];

/**
 * JSON Schemas (draft 2020-12) generated from the zod schemas: the input as a user writes it (defaults
 * optional) and the result as `compare` returns it. Refinements that JSON Schema cannot express (equal
 * t/v lengths, unique ids, series keys that name declared metrics, samples inside declared windows) are
 * enforced by `parseComparisonInput` only. The sample arrays are zod custom types checked in one pass
 * (`unrepresentable: "any"` lets their JSON Schema come from their metadata).
 */
export function comparisonJsonSchemas(): Record<SchemaFile, Record<string, unknown>> {
  return {
    "comparison-input.schema.json": {
      ...z.toJSONSchema(ComparisonInput, { io: "input", target: "draft-2020-12", unrepresentable: "any" }),
      $id: "comparison-input.schema.json",
      title: "Untorn comparison input",
    },
    "comparison-result.schema.json": {
      ...z.toJSONSchema(ComparisonResult, { io: "output", target: "draft-2020-12" }),
      $id: "comparison-result.schema.json",
      title: "Untorn comparison result",
    },
  };
}

/** The exact file content written for a schema (stable key order, two-space indent, final newline). */
export function serialiseSchema(schema: Record<string, unknown>): string {
  return `${JSON.stringify(schema, null, 2)}\n`;
}
