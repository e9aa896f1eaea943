import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { renderReplaySchema, replayJsonSchema } from "./schema.js";

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
