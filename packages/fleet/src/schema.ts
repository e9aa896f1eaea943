/**
 * The JSON Schemas of the replay file (docs/schemas/replay.schema.json) and the metadata file
 * (docs/schemas/metadata.schema.json), generated from the zod schemas. tools/gen-schema.ts writes them;
 * schema.test.ts fails when a committed copy is stale.
 */
import { z } from "zod";
import { metadataFileSchema } from "./metadata.js";
import { replayFileSchema } from "./replay.js";

/** JSON Schema (draft 2020-12) of what `--replay` accepts, once un-gzipped: the input side of the zod schema. */
export function replayJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(replayFileSchema, { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
}

/** The schema file's exact text (2-space JSON, trailing newline). */
export function renderReplaySchema(): string {
  return `${JSON.stringify(replayJsonSchema(), null, 2)}\n`;
}

/** JSON Schema (draft 2020-12) of what `--metadata` accepts. */
export function metadataJsonSchema(): Record<string, unknown> {
  return z.toJSONSchema(metadataFileSchema, { target: "draft-2020-12", io: "input" }) as Record<
    string,
    unknown
  >;
}

export function renderMetadataSchema(): string {
  return `${JSON.stringify(metadataJsonSchema(), null, 2)}\n`;
}
