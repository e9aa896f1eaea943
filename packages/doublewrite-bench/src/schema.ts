/**
 * The JSON Schema of bench.json (docs/schemas/bench-result.schema.json), a pure function of BenchResult.
 * scripts/gen-schema.ts writes it; schema.test.ts fails when the committed copy is stale.
 */
import { z } from "zod";
import { BenchResult } from "./result.js";

export const BENCH_SCHEMA_FILE = "bench-result.schema.json";

/** The file's exact text (2-space JSON, trailing newline). */
export function renderBenchSchema(): string {
  const schema = {
    ...(z.toJSONSchema(BenchResult, { target: "draft-2020-12", io: "input" }) as Record<string, unknown>),
    $id: BENCH_SCHEMA_FILE,
    title: "untorn-bench result (bench.json)",
    description:
      "What `untorn-bench --json` prints and writes to <out>/bench.json; `untorn-bench --against` reads it back to measure the other doublewrite setting of an existing server.",
  };
  return `${JSON.stringify(schema, null, 2)}\n`;
}
