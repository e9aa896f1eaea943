// Writes the CLI's docs/schemas/*.schema.json (advise input, rollout inputs and outputs, hooks, recorded
// rollouts) from its zod schemas (src/schemas.ts).
// Run: npm run gen:schemas -w @untorn/cli
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { CLI_SCHEMAS, type CliSchemaFile, renderCliSchema } from "../src/schemas.js";

const dir = fileURLToPath(new URL("../../../docs/schemas/", import.meta.url));
for (const name of Object.keys(CLI_SCHEMAS) as CliSchemaFile[]) {
  writeFileSync(`${dir}${name}`, renderCliSchema(name));
  console.log(`wrote docs/schemas/${name}`);
}
