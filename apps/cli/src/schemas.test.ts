import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { CLI_SCHEMAS, type CliSchemaFile, renderCliSchema } from "./schemas.js";

const docs = (name: string) =>
  readFileSync(fileURLToPath(new URL(`../../../docs/schemas/${name}`, import.meta.url)), "utf8");

describe("docs/schemas of the CLI's inputs", () => {
  it.each(Object.keys(CLI_SCHEMAS) as CliSchemaFile[])(
    "%s is current (npm run gen:schemas -w @untorn/cli)",
    (name) => {
      expect(docs(name)).toBe(renderCliSchema(name));
    },
  );

  it("the advise schema refers to the InstanceFacts schema that exists beside it", () => {
    const s = JSON.parse(docs("advise-input.schema.json"));
    expect(JSON.stringify(s.oneOf)).toContain("instance-facts.schema.json");
    expect(JSON.parse(docs("instance-facts.schema.json")).type).toBe("object");
  });

  it("the hooks schema describes both hook kinds and their timeout", () => {
    const text = docs("rollout-hooks.schema.json");
    for (const w of ['"webhook"', '"command"', '"timeoutSeconds"', '"hooks"']) expect(text).toContain(w);
  });
});
