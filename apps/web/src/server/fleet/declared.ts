/**
 * A declared metadata file (docs/schemas/metadata.schema.json): facts about instances that no probe sees,
 * overlaid on the data source's facts before what users store. The lab's recording ships one beside it;
 * UNTORN_METADATA_FILE names another. A broken file is reported, never half-applied.
 */
import fs from "node:fs";
import { type FleetMetadata, metadataFileSchema } from "@untorn/fleet/metadata";
import type { DeclaredFile } from "@untorn/fleet/pipeline";

/** Reads and validates the file; problems name the file and, for bad content, the field. */
export function readDeclaredFile(file: string): DeclaredFile {
  let text: string;
  try {
    text = fs.readFileSync(file, "utf8");
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return {
      file,
      instances: null,
      problem: `${file}: ${code === "ENOENT" ? "file not found" : (err as Error).message}`,
    };
  }
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (err) {
    return { file, instances: null, problem: `${file}: not JSON (${(err as Error).message})` };
  }
  const r = metadataFileSchema.safeParse(json);
  if (!r.success) {
    const issues = r.error.issues.slice(0, 3).map((i) => `${i.path.join(".") || "(root)"}: ${i.message}`);
    return { file, instances: null, problem: `${file}: ${issues.join("; ")}` };
  }
  return {
    file,
    instances: new Map<string, FleetMetadata>(Object.entries(r.data.instances)),
    problem: null,
  };
}
