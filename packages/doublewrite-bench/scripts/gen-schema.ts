// Writes docs/schemas/bench-result.schema.json from BenchResult (src/schema.ts).
// Run: npm run gen:schemas -w @untorn/doublewrite-bench
import { writeFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { BENCH_SCHEMA_FILE, renderBenchSchema } from "../src/schema.js";

writeFileSync(
  fileURLToPath(new URL(`../../../docs/schemas/${BENCH_SCHEMA_FILE}`, import.meta.url)),
  renderBenchSchema(),
);
console.log(`wrote docs/schemas/${BENCH_SCHEMA_FILE}`);
