import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { BenchResult } from "./result.js";
import { BENCH_SCHEMA_FILE, renderBenchSchema } from "./schema.js";

const committed = () =>
  readFileSync(fileURLToPath(new URL(`../../../docs/schemas/${BENCH_SCHEMA_FILE}`, import.meta.url)), "utf8");

describe("docs/schemas/bench-result.schema.json", () => {
  it("is current (npm run gen:schemas -w @untorn/doublewrite-bench)", () => {
    expect(committed()).toBe(renderBenchSchema());
  });

  it("requires what BenchResult requires", () => {
    const s = JSON.parse(committed());
    const shape = Object.keys((BenchResult as unknown as { shape: Record<string, unknown> }).shape);
    expect(Object.keys(s.properties).sort()).toEqual(shape.sort());
    expect(s.required.length).toBeGreaterThan(3);
  });
});
