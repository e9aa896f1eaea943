// Regenerates docs/schemas/replay.schema.json and metadata.schema.json from the compiled zod schemas.
// Run: npm run gen:schema -w @untorn/fleet
import { writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderMetadataSchema, renderReplaySchema } from "@untorn/fleet/schema";

const root = join(dirname(fileURLToPath(import.meta.url)), "../../../..");
writeFileSync(join(root, "docs/schemas/replay.schema.json"), renderReplaySchema());
console.log("wrote docs/schemas/replay.schema.json");
writeFileSync(join(root, "docs/schemas/metadata.schema.json"), renderMetadataSchema());
console.log("wrote docs/schemas/metadata.schema.json");
