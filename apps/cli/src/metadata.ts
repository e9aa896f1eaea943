/**
 * `--metadata <file>`: what the operator declares about instances that no probe can see (cluster, role,
 * provisioned IOPS, cloud torn-write protection, RDS Optimized Writes), the CLI's counterpart of the web
 * app's stored metadata. Same schema and overlay rules (docs/schemas/metadata.schema.json).
 */
import fs from "node:fs";
import { type FleetMetadata, metadataFileSchema, sidecarMetadataPath } from "@untorn/fleet/metadata";
import type { MetadataByInstance } from "@untorn/fleet/pipeline";
import type { Command } from "commander";
import { type Io, readJsonFile } from "./io.js";

export function metadataOption(cmd: Command): Command {
  return cmd.option(
    "--metadata <file>",
    "JSON file of declared instance facts: cluster, role, storage limits and features (docs/schemas/metadata.schema.json); with --replay, default: the recording's own <name>.metadata.json beside it, as the console reads it",
  );
}

/**
 * Reads and validates the file; undefined when none was named and none ships with the replay. A
 * recording's sidecar (`fleet.json.gz` -> `fleet.metadata.json`) is read as the console reads it, so
 * the CLI and the console give the same verdicts on the same recording; stderr says which file.
 */
export async function readMetadata(
  path: string | undefined,
  replay?: string,
  io?: Io,
): Promise<MetadataByInstance | undefined> {
  let named = path;
  if (named === undefined && replay !== undefined) {
    const sidecar = sidecarMetadataPath(replay);
    if (fs.existsSync(sidecar)) {
      named = sidecar;
      io?.err(`untorn: declared metadata from ${sidecar} (the recording's own; --metadata names another)\n`);
    }
  }
  if (named === undefined) return undefined;
  const file = await readJsonFile(named, metadataFileSchema, "metadata");
  return new Map<string, FleetMetadata>(Object.entries(file.instances));
}
