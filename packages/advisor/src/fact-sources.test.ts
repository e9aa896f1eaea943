import { metricList } from "@untorn/catalog/metrics";
import { describe, expect, it } from "vitest";
import { FACT_SOURCES, factSourcesMarkdown } from "./fact-sources.js";
import { instanceFactsJsonSchema } from "./schema.js";

type Node = Record<string, unknown>;

/** Leaf paths of the JSON Schema: scalars, arrays, records and WindowStat references. */
function leaves(node: Node, path: string, defs: Record<string, Node>): string[] {
  if (typeof node.$ref === "string") return [path];
  const anyOf = node.anyOf as Node[] | undefined;
  if (anyOf) {
    const branches = anyOf.filter((b) => b.type !== "null");
    return branches.length === 1 && branches[0] ? leaves(branches[0], path, defs) : [path];
  }
  if (node.type === "object" && node.properties) {
    return Object.entries(node.properties as Record<string, Node>).flatMap(([k, v]) =>
      leaves(v, path ? `${path}.${k}` : k, defs),
    );
  }
  const names = node.propertyNames as Node | undefined;
  if (node.type === "object" && names?.enum && node.additionalProperties)
    return leaves(node.additionalProperties as Node, `${path}.*`, defs);
  return [path];
}

describe("fact sources", () => {
  const schema = instanceFactsJsonSchema() as Node;
  const all = leaves(schema, "", (schema.$defs ?? {}) as Record<string, Node>).filter((p) => p !== "$schema");

  it("name only metrics the exporter catalog defines", () => {
    const names = new Set(metricList.map((m) => m.name));
    for (const s of FACT_SOURCES) if (s.metric) expect(names.has(s.metric), s.metric).toBe(true);
  });

  it("name only fields the schema has", () => {
    for (const s of FACT_SOURCES)
      expect(
        all.some((leaf) => leaf === s.field || leaf.startsWith(`${s.field}.`)),
        s.field,
      ).toBe(true);
  });

  it("cover every field of the schema", () => {
    for (const leaf of all)
      expect(
        FACT_SOURCES.some((s) => leaf === s.field || leaf.startsWith(`${s.field}.`)),
        leaf,
      ).toBe(true);
  });

  it("list each field once, exporter rows with a metric", () => {
    const fields = FACT_SOURCES.map((s) => s.field);
    expect(new Set(fields).size).toBe(fields.length);
    for (const s of FACT_SOURCES) expect(s.kind === "exporter", s.field).toBe(s.metric !== null);
  });

  it("render as a Markdown table with one row per field", () => {
    const md = factSourcesMarkdown().split("\n");
    expect(md[0]).toBe("| Fact field | Source | How |");
    expect(md).toHaveLength(FACT_SOURCES.length + 2);
    expect(md).toContain(
      "| `workload.rates.dblwrPagesWritten` | `untorn_innodb_dblwr_pages_written_total` | counter: window rate as avg, per-step rates for p50/p95/p99/max |",
    );
  });
});
