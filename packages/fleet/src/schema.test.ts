import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { metadataFileSchema } from "./metadata.js";
import { metadataJsonSchema, renderMetadataSchema, renderReplaySchema, replayJsonSchema } from "./schema.js";

const root = join(import.meta.dirname, "../../..");

describe("docs/schemas/replay.schema.json", () => {
  it("is current", () => {
    expect(
      readFileSync(join(root, "docs/schemas/replay.schema.json"), "utf8"),
      "stale: run `npm run gen:schema -w @untorn/fleet` and commit the result",
    ).toBe(renderReplaySchema());
  });

  it("is closed and requires the recorded flag, metadata and answers", () => {
    const s = replayJsonSchema();
    expect(s.$schema).toBe("https://json-schema.org/draft/2020-12/schema");
    expect(s.additionalProperties).toBe(false);
    expect(s.required).toEqual(["format", "version", "recorded", "meta", "instant", "range"]);
    expect((s.properties as Record<string, unknown>).recorded).toMatchObject({ const: true });
  });
});

describe("docs/schemas/metadata.schema.json", () => {
  it("is current", () => {
    expect(
      readFileSync(join(root, "docs/schemas/metadata.schema.json"), "utf8"),
      "stale: run `npm run gen:schema -w @untorn/fleet` and commit the result",
    ).toBe(renderMetadataSchema());
  });

  it("is closed and requires the instances", () => {
    const s = metadataJsonSchema();
    expect(s.additionalProperties).toBe(false);
    expect(s.required).toEqual(["instances"]);
  });
});

describe("metadata file", () => {
  const issues = (v: unknown) => {
    const r = metadataFileSchema.safeParse(v);
    return r.success ? [] : r.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`);
  };

  it.each([
    [{ instances: {} }],
    [
      {
        $schema: "./metadata.schema.json",
        instances: { "db1:9105": { cluster: "orders", role: "replica" } },
      },
    ],
    [
      {
        instances: {
          db1: { storageFacts: { limits: { iops: 3000, ioUnitBytes: 262144 } }, managedService: "rds" },
        },
      },
    ],
    [
      {
        instances: {
          db1: { storageFacts: { tornWriteProtection: { provider: "aws-ebs", unitBytes: 16384 } } },
        },
      },
    ],
  ])("accepts %j", (v) => {
    expect(issues(v)).toEqual([]);
  });

  it.each([
    [{}, /^instances: /],
    [{ instances: { db1: { role: "leader" } } }, /^instances\.db1\.role: /],
    [
      { instances: { db1: { storageFacts: { limits: { iops: -5 } } } } },
      /^instances\.db1\.storageFacts\.limits\.iops: /,
    ],
    [{ instances: { db1: { storageFacts: { fsClusterSizeBytes: 3000 } } } }, /power of two/],
    [{ instances: { db1: { clusterr: "x" } } }, /clusterr/],
    [{ instances: { db1: { actor: "me" } } }, /actor/],
    [{ instances: {}, extra: 1 }, /extra/],
  ])("rejects %j naming the field", (v, re) => {
    expect(issues(v).join("\n")).toMatch(re);
  });
});

describe("the metadata files the repository ships", () => {
  it.each([
    ["compose/web/metadata.json", ["mariadb-replica1"]],
    ["lab/recordings/mariadb-10.11-fleet.metadata.json", null],
  ] as const)("%s parses, and every torn-write declaration in it is marked demo-only", (file, torn) => {
    const parsed = metadataFileSchema.parse(JSON.parse(readFileSync(join(root, file), "utf8")));
    const declared = Object.entries(parsed.instances)
      .filter(([, m]) => m.storageFacts?.tornWriteProtection)
      .map(([name, m]) => [name, m.storageFacts?.tornWriteProtection?.demoOnly] as const);
    expect(declared.length).toBeGreaterThan(0);
    expect(declared.filter(([, demoOnly]) => demoOnly !== true)).toEqual([]);
    if (torn) expect(declared.map(([name]) => name)).toEqual(torn);
  });
});
