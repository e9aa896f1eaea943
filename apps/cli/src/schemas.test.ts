import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BenchResult } from "./bench/result.js";
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

  it("the bench result schema requires what BenchResult requires", () => {
    const s = JSON.parse(docs("bench-result.schema.json"));
    const shape = Object.keys((BenchResult as unknown as { shape: Record<string, unknown> }).shape);
    expect(Object.keys(s.properties).sort()).toEqual(shape.sort());
    expect(s.required.length).toBeGreaterThan(3);
  });
});
