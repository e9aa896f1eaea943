import { describe, expect, it } from "vitest";
import { ROLLOUT_SCHEMAS, type RolloutSchemaFile, renderRolloutSchema } from "./json-schema.ts";

describe("JSON Schemas", () => {
  it.each(Object.keys(ROLLOUT_SCHEMAS) as RolloutSchemaFile[])(
    "%s renders as stable JSON with its $id",
    (name) => {
      const text = renderRolloutSchema(name);
      expect(text.endsWith("}\n")).toBe(true);
      const schema = JSON.parse(text);
      expect(schema.$id).toBe(name);
      expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
      expect(renderRolloutSchema(name)).toBe(text);
    },
  );

  it("the command schema names every command type", () => {
    const text = renderRolloutSchema("rollout-command.schema.json");
    for (const t of [
      "attest-backup",
      "approve",
      "step-done",
      "hook-started",
      "hook-result",
      "pause",
      "resume",
      "abort",
      "revert",
      "revert-done",
    ])
      expect(text).toContain(`"${t}"`);
  });
});
