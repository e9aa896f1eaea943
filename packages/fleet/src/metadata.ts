/**
 * Fleet metadata (cluster, role, storage and platform facts no probe can see): the declared metadata
 * file's entries (the CLI's `--metadata`, docs/schemas/metadata.schema.json) and the stored metadata
 * users save in the web app, and its overlay on the facts read from Prometheus, before advise(). The rules:
 * - identity (cluster, role) comes from the fleet metadata: Prometheus does not know it.
 * - a fact the exporter measured wins over one from fleet metadata; a conflict is reported, never
 *   silently resolved in favour of the metadata (a declared "zfs" must not verify the safety gate of an
 *   ext4 datadir);
 * - a declared fact fills what no probe can see (cloud volume features, provisioned IOPS, RDS
 *   Optimized Writes); declared torn-write protection is marked `source: "declared"`.
 */
import { type InstanceFacts, instanceFactsSchema } from "@untorn/advisor/facts";
import { type StorageFacts, upsertInstanceMetadataInput } from "@untorn/store/validation";
import type { ManagedService, ReplicationRole as Role } from "@untorn/vocabulary/words";
import { z } from "zod";

/** One instance's fleet metadata: a stored metadata row, or one entry of the declared metadata file. */
export interface FleetMetadata {
  readonly cluster?: string | null;
  readonly role?: Role | null;
  readonly storageClass?: string | null;
  readonly storageFacts?: StorageFacts | null;
  readonly managedService?: ManagedService | null;
}

/** One instance in a metadata file: the store's metadata input without the instance and the actor. */
export const declaredMetadataSchema = upsertInstanceMetadataInput.omit({ instance: true, actor: true });

/**
 * A metadata file: declarations by Prometheus `instance` label. The same fields, limits and checks as the
 * web app's metadata form, so a file and the store accept the same declarations.
 */
export const metadataFileSchema = z
  .object({
    $schema: z.string().optional().describe("Ignored; lets editors find this schema."),
    instances: z
      .record(
        z.string().trim().min(1, "an instance label must not be empty").max(512),
        declaredMetadataSchema,
      )
      .describe("Declarations keyed by the Prometheus instance label."),
  })
  .strict();
export type MetadataFile = z.infer<typeof metadataFileSchema>;

/**
 * The declarations a recording ships with, beside it: `fleet.json.gz` -> `fleet.metadata.json`. The lab
 * writes it, the web app reads it.
 */
export function sidecarMetadataPath(replayFile: string): string {
  return replayFile.replace(/(\.json)?(\.gz)?$/, ".metadata.json");
}

export interface MergeResult {
  readonly facts: InstanceFacts;
  /** Fact paths set from the metadata. */
  readonly declared: readonly string[];
  /** Declared values that disagree with measured ones (the measured value was kept). */
  readonly conflicts: readonly string[];
  /** The fact paths of `conflicts` whose declared value disagrees with a measured one. */
  readonly conflictPaths: readonly string[];
}

type Meta = FleetMetadata;

type Obj = Record<string, unknown>;

const show = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));

export function mergeMetadata(facts: InstanceFacts, meta: Meta | null | undefined): MergeResult {
  if (!meta) return { facts, declared: [], conflicts: [], conflictPaths: [] };
  const draft = structuredClone(facts) as Obj & InstanceFacts;
  const declared: string[] = [];
  const conflicts: string[] = [];
  const conflictPaths: string[] = [];

  const section = (name: "identity" | "platform" | "storage"): Obj => {
    const d = draft as unknown as Obj;
    if (d[name] == null) d[name] = {};
    return d[name] as Obj;
  };

  /** Store-owned: the declaration always applies. */
  const own = (sec: "identity", key: string, value: unknown) => {
    if (value == null) return;
    section(sec)[key] = value;
    declared.push(`${sec}.${key}`);
  };

  /** Probe-owned: the declaration fills a gap and is reported when it disagrees. */
  const fill = (target: Obj, path: string, key: string, value: unknown) => {
    if (value === undefined || value === null) return;
    const measured = target[key];
    if (measured === undefined || measured === null) {
      target[key] = value;
      declared.push(path);
    } else if (JSON.stringify(measured) !== JSON.stringify(value)) {
      conflicts.push(`${path}: declared ${show(value)}, measured ${show(measured)} (measured value used)`);
      conflictPaths.push(path);
    }
  };

  own("identity", "cluster", meta.cluster);
  own("identity", "role", meta.role);
  if (meta.storageClass) {
    const identity = section("identity");
    identity.labels = { ...((identity.labels as Obj | null) ?? {}), storage_class: meta.storageClass };
    declared.push("identity.labels.storage_class");
  }

  const sf = meta.storageFacts ?? {};
  const platform = section("platform");
  fill(platform, "platform.managed", "managed", meta.managedService);
  for (const key of [
    "cloud",
    "instanceClass",
    "rdsOptimizedWrites",
    "rdsStorageConfigUpgradeNeeded",
    "alibaba16kAtomicWrite",
  ] as const)
    fill(platform, `platform.${key}`, key, sf[key]);

  const storage = section("storage");
  for (const key of [
    "fsType",
    "fsBlockSizeBytes",
    "fsClusterSizeBytes",
    "zfsRecordsizeBytes",
    "btrfsNodatacow",
    "dataOffsetAlignmentBytes",
  ] as const)
    fill(storage, `storage.${key}`, key, sf[key]);

  if (sf.tornWriteProtection) {
    const t = sf.tornWriteProtection;
    fill(storage, "storage.tornWriteProtection", "tornWriteProtection", {
      provider: t.provider,
      unitBytes: t.unitBytes,
      source: "declared",
      ...(t.note ? { note: t.note } : {}),
      ...(t.demoOnly ? { demoOnly: true } : {}),
    });
  }
  if (sf.limits) {
    if (storage.limits == null) storage.limits = {};
    const limits = storage.limits as Obj;
    for (const [key, value] of Object.entries(sf.limits)) fill(limits, `storage.limits.${key}`, key, value);
  }

  // Drop sections the overlay created empty, so an instance without metadata facts keeps its shape.
  for (const name of ["platform", "storage"] as const) {
    const d = draft as unknown as Obj;
    const sec = d[name] as Obj | undefined;
    if (sec && Object.keys(sec).length === 0 && (facts as unknown as Obj)[name] == null) delete d[name];
  }
  if (
    draft.storage &&
    (draft.storage as Obj).limits &&
    Object.keys((draft.storage as Obj).limits as Obj).length === 0
  )
    delete (draft.storage as Obj).limits;

  const parsed = instanceFactsSchema.safeParse(draft);
  if (!parsed.success) {
    // The store validates what it keeps, so this means the two schemas drifted apart: keep the measured
    // facts and say why the declarations were not used.
    const why = parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return {
      facts,
      declared: [],
      conflicts: [`stored metadata does not fit the advisor's facts (${why})`],
      conflictPaths: [],
    };
  }
  return { facts: parsed.data, declared, conflicts, conflictPaths };
}
