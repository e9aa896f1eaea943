// Regenerates docs/schemas/instance-facts.schema.json, the example facts file and the generated tables
// in docs/advisor.md from the compiled sources (npm run gen:schema compiles them to dist/gen first).
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const gen = new URL("../dist/gen/", import.meta.url);
const { renderInstanceFactsSchema, renderAdvisorDoc } = await import(new URL("schema.js", gen).href);
const { renderExampleFacts } = await import(new URL("fixtures/example.js", gen).href);

const root = join(dirname(fileURLToPath(import.meta.url)), "../../..");
const write = (rel, text) => {
  writeFileSync(join(root, rel), text);
  console.log(`wrote ${rel}`);
};
write("docs/schemas/instance-facts.schema.json", renderInstanceFactsSchema());
write("docs/schemas/instance-facts.example.json", renderExampleFacts());
const doc = join(root, "docs/advisor.md");
writeFileSync(doc, renderAdvisorDoc(readFileSync(doc, "utf8")));
console.log("updated docs/advisor.md (indicators, gate checks, rules, fact sources)");
