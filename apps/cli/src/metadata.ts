/**
 * `--metadata <file>`: what the operator declares about instances that no probe can see (cluster, role,
 * provisioned IOPS, cloud torn-write protection, RDS Optimized Writes), the CLI's counterpart of the web
 * app's stored metadata. Same schema and overlay rules (docs/schemas/metadata.schema.json).
 */
import { type DeclaredMetadata, metadataFileSchema } from "@untorn/fleet/metadata";
import type { MetadataByInstance } from "@untorn/fleet/profile";
import type { Command } from "commander";
import { readJsonFile } from "./io.js";

export function metadataOption(cmd: Command): Command {
  return cmd.option(
    "--metadata <file>",
    "JSON file of declared instance facts: cluster, role, storage limits and features (docs/schemas/metadata.schema.json)",
  );
}

/** Reads and validates the file; undefined when no file was named. */
export async function readMetadata(path: string | undefined): Promise<MetadataByInstance | undefined> {
  if (path === undefined) return undefined;
  const file = await readJsonFile(path, metadataFileSchema, "metadata");
  return new Map<string, DeclaredMetadata>(Object.entries(file.instances));
}
