/**
 * The metadata form's values as the store's upsert input (pure). The form edits a subset of the declared
 * storage facts; keys it does not show (e.g. fsBlockSizeBytes set through the CLI) are kept as stored.
 */
import type { InstanceMetadata } from "@untorn/store/store";
import type { StorageFacts, UpsertInstanceMetadataInput } from "@untorn/store/validation";
import type { MetadataForm } from "../../lib/metadata-form.js";

const MiB = 1024 * 1024;

/** Storage fact keys the form owns: a blank field removes the declaration. */
export const FORM_STORAGE_KEYS = [
  "cloud",
  "instanceClass",
  "rdsOptimizedWrites",
  "tornWriteProtection",
  "fsType",
  "zfsRecordsizeBytes",
] as const;
const FORM_LIMIT_KEYS = ["metered", "iops", "bandwidthBytesPerSecond", "ioUnitBytes"] as const;

export function toUpsertInput(
  form: MetadataForm,
  existing: Pick<InstanceMetadata, "storageFacts"> | null,
  actor: string,
): UpsertInstanceMetadataInput {
  const facts: Record<string, unknown> = { ...(existing?.storageFacts ?? {}) };
  for (const k of FORM_STORAGE_KEYS) delete facts[k];
  if (form.cloud) facts.cloud = form.cloud;
  if (form.instanceClass) facts.instanceClass = form.instanceClass;
  if (form.rdsOptimizedWrites) facts.rdsOptimizedWrites = form.rdsOptimizedWrites;
  if (form.tornWriteProvider && form.tornWriteUnitBytes)
    facts.tornWriteProtection = {
      provider: form.tornWriteProvider,
      unitBytes: Number(form.tornWriteUnitBytes),
      ...(form.tornWriteNote.trim() ? { note: form.tornWriteNote.trim() } : {}),
    };
  if (form.fsType) facts.fsType = form.fsType;
  if (form.zfsRecordsizeBytes) facts.zfsRecordsizeBytes = Number(form.zfsRecordsizeBytes);

  const limits: Record<string, unknown> = {
    ...((facts.limits as Record<string, unknown> | undefined) ?? {}),
  };
  for (const k of FORM_LIMIT_KEYS) delete limits[k];
  if (form.limitsMetered) limits.metered = form.limitsMetered === "true";
  if (form.limitsIops) limits.iops = Number(form.limitsIops);
  if (form.limitsBandwidthMiBps)
    limits.bandwidthBytesPerSecond = Math.round(Number(form.limitsBandwidthMiBps) * MiB);
  if (form.limitsIoUnitBytes) limits.ioUnitBytes = Number(form.limitsIoUnitBytes);
  if (Object.keys(limits).length) facts.limits = limits;
  else delete facts.limits;

  return {
    instance: form.instance,
    cluster: form.cluster || null,
    role: form.role || null,
    notes: form.notes,
    storageClass: form.storageClass || null,
    managedService: form.managedService || null,
    storageFacts: facts as StorageFacts,
    actor,
  };
}

/** Store field paths (from StoreValidationError) mapped to the form's field names. */
export function formFieldOf(storePath: string): string {
  const map: Record<string, string> = {
    "storageFacts.cloud": "cloud",
    "storageFacts.instanceClass": "instanceClass",
    "storageFacts.rdsOptimizedWrites": "rdsOptimizedWrites",
    "storageFacts.tornWriteProtection.provider": "tornWriteProvider",
    "storageFacts.tornWriteProtection.unitBytes": "tornWriteUnitBytes",
    "storageFacts.tornWriteProtection.note": "tornWriteNote",
    "storageFacts.fsType": "fsType",
    "storageFacts.zfsRecordsizeBytes": "zfsRecordsizeBytes",
    "storageFacts.limits.metered": "limitsMetered",
    "storageFacts.limits.iops": "limitsIops",
    "storageFacts.limits.bandwidthBytesPerSecond": "limitsBandwidthMiBps",
    "storageFacts.limits.ioUnitBytes": "limitsIoUnitBytes",
  };
  return map[storePath] ?? storePath.split(".")[0] ?? storePath;
}

/** The instance facts' paths a form field declares (mergeMetadata's conflict paths). */
const FACT_FIELDS: Readonly<Record<string, string>> = {
  "platform.managed": "managedService",
  "platform.cloud": "cloud",
  "platform.instanceClass": "instanceClass",
  "platform.rdsOptimizedWrites": "rdsOptimizedWrites",
  "storage.tornWriteProtection": "tornWriteProvider",
  "storage.fsType": "fsType",
  "storage.zfsRecordsizeBytes": "zfsRecordsizeBytes",
  "storage.limits.metered": "limitsMetered",
  "storage.limits.iops": "limitsIops",
  "storage.limits.bandwidthBytesPerSecond": "limitsBandwidthMiBps",
  "storage.limits.ioUnitBytes": "limitsIoUnitBytes",
};

/**
 * The form fields whose declared value contradicts what the exporter measured on the instance, with the
 * reason (mergeMetadata keeps the measured value; a save that would store the contradiction is refused).
 * Contradictions of keys the form does not show (kept as stored) are not the form's to refuse.
 */
export function contradictedFields(
  conflicts: readonly string[],
  conflictPaths: readonly string[],
): Record<string, string> {
  const out: Record<string, string> = {};
  conflictPaths.forEach((path, i) => {
    const field = FACT_FIELDS[path];
    const why = conflicts[i]?.replace(/ \(measured value used\)$/, "") ?? path;
    if (field) out[field] ??= `contradicts what the exporter measured: ${why}`;
  });
  return out;
}
