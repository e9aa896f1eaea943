import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { advise } from "./advise.js";
import { parseInstanceFacts } from "./facts.js";
import { renderExampleFacts } from "./fixtures/example.js";
import { gateChecks } from "./gate-checks.js";
import { INDICATOR_IDS } from "./profile.js";
import { indicatorGroups } from "./profile-groups.js";
import { rules } from "./rules.js";
import {
  ADVISOR_DOC_BLOCKS,
  beginMarker,
  endMarker,
  instanceFactsJsonSchema,
  renderAdvisorDoc,
  renderInstanceFactsSchema,
} from "./schema.js";

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

  it("the indicator, gate-check, rule and fact-source tables in docs/advisor.md", () => {
    const doc = read("docs/advisor.md");
    expect(doc, REGEN).toBe(renderAdvisorDoc(doc));
  });
});

describe("docs/advisor.md tables come from the registries that run", () => {
  const doc = read("docs/advisor.md");
  const block = (name: string) => doc.slice(doc.indexOf(beginMarker(name)), doc.indexOf(endMarker(name)));

  it("a stale table is detected: a row removed from the committed copy is put back", () => {
    for (const { name } of ADVISOR_DOC_BLOCKS) {
      const rows = block(name)
        .split("\n")
        .filter((l) => l.startsWith("|"))
        .slice(2);
      const stale = doc.replace(`${rows[rows.length - 1]}\n`, "");
      expect(stale, name).not.toBe(doc);
      expect(renderAdvisorDoc(stale), name).toBe(doc);
    }
  });

  it("lists every registered gate check, indicator and rule", () => {
    for (const c of gateChecks) expect(block("gate-checks")).toContain(`\`${c.meta.id}\`: ${c.meta.title}`);
    for (const id of INDICATOR_IDS) expect(block("indicators")).toContain(`| \`${id}\` |`);
    for (const r of rules) expect(block("rules")).toContain(`[${r.meta.id}](rules/${r.meta.id}.md)`);
  });

  it("prints an indicator's remark after its formula: the MDEV-31124 correction, the 8.0.20+ instrument", () => {
    const remarked = indicatorGroups.flatMap((g) => g.meta.indicators.filter((i) => i.remark));
    expect(remarked.map((i) => i.id)).toEqual(
      expect.arrayContaining(["dblwrShareOfInnodbWriteBytes", "dblwrShareOfFileIoWait"]),
    );
    for (const i of remarked) expect(block("indicators")).toContain(`| ${i.formula}; ${i.remark} |`);
    expect(block("indicators")).toMatch(/\| `dblwrShareOfInnodbWriteBytes` \|[^\n]*MDEV-31124 correction/);
    expect(block("indicators")).toMatch(/\| `dblwrShareOfFileIoWait` \|[^\n]*8\.0\.20\+ only/);
  });

  it.each(ADVISOR_DOC_BLOCKS.map((b) => b.name))("refuses a doc without the %s markers", (name) => {
    const without = doc.replace(beginMarker(name), "");
    expect(() => renderAdvisorDoc(without)).toThrow(new RegExp(`${name} markers`));
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
