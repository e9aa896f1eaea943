// Writes docs/schemas/comparison-*.schema.json from the zod schemas. Run: npm run gen:schema -w @untorn/compare
import { mkdirSync, writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { comparisonJsonSchemas, SCHEMA_FILES, serialiseSchema } from "@untorn/compare/json-schema";

// dist/tools/ → repository root is four levels up.
const dir = fileURLToPath(new URL("../../../../docs/schemas/", import.meta.url));
mkdirSync(dir, { recursive: true });
const schemas = comparisonJsonSchemas();
for (const file of SCHEMA_FILES) {
  writeFileSync(`${dir}${file}`, serialiseSchema(schemas[file]));
  console.log(`wrote docs/schemas/${file}`);
}
