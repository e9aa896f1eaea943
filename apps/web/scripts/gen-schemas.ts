// Writes docs/schemas/api-*.schema.json from the read API's zod schemas (src/lib/api-schema.ts).
// Run: npm run gen:schemas -w @untorn/web
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { API_SCHEMAS, renderApiSchema } from "../src/lib/api-schema.js";

const dir = fileURLToPath(new URL("../../../docs/schemas/", import.meta.url));
for (const name of Object.keys(API_SCHEMAS) as (keyof typeof API_SCHEMAS)[]) {
  writeFileSync(`${dir}${name}`, renderApiSchema(name));
  console.log(`wrote docs/schemas/${name}`);
}
