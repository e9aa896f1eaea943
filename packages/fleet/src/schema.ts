/**
 * The replay file's JSON Schema (docs/schemas/replay.schema.json), generated from the zod schema.
 * tools/gen-schema.ts writes it; schema.test.ts fails when the committed copy is stale.
 */
import { z } from "zod";
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
