import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { advise } from "./advise.js";
import { parseInstanceFacts } from "./facts.js";
import { renderExampleFacts } from "./fixtures/example.js";
import { instanceFactsJsonSchema, renderAdvisorDoc, renderInstanceFactsSchema } from "./schema.js";

const root = join(import.meta.dirname, "../../..");
const read = (rel: string) => readFileSync(join(root, rel), "utf8");
const REGEN = "stale: run `npm run gen:schema -w @untorn/advisor` and commit the result";

describe("generated artefacts are current", () => {
  it("docs/schemas/instance-facts.schema.json", () => {
    expect(read("docs/schemas/instance-facts.schema.json"), REGEN).toBe(renderInstanceFactsSchema());
  });

  it("docs/schemas/instance-facts.example.json", () => {
    expect(read("docs/schemas/instance-facts.example.json"), REGEN).toBe(renderExampleFacts());
  });

  it("the fact-source table in docs/advisor.md", () => {
    const doc = read("docs/advisor.md");
    expect(doc, REGEN).toBe(renderAdvisorDoc(doc));
  });
});

describe("instance-facts JSON Schema", () => {
  const schema = instanceFactsJsonSchema();

  it("is draft 2020-12, closed, and requires the identity, server and config", () => {
    expect(schema.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(schema.additionalProperties).toBe(false);
    expect(schema.required).toEqual(["schemaVersion", "identity", "server", "config"]);
    expect(Object.keys(schema.$defs as object)).toContain("WindowStat");
  });

  it("the example parses and is advised", () => {
    const facts = parseInstanceFacts(JSON.parse(read("docs/schemas/instance-facts.example.json")));
    expect(advise(facts).verdict.verdict).toBe("write-bound");
  });

  it("refuses a doc without the generated-table markers", () => {
    expect(() => renderAdvisorDoc("# no markers")).toThrow(/markers/);
  });
});
