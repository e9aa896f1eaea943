/** The instance's fleet metadata: the form filled from the store (and the declared file), or why it cannot be. */
import type { FleetMetadata } from "@untorn/fleet/metadata";
import type { InstanceMetadata } from "@untorn/store/store";
import type { ComponentProps } from "react";
import { utc } from "../../lib/format.js";
import type { InstanceView } from "../../server/fleet/instance.js";
import { MetadataForm, type MetadataValues } from "../metadata-form.js";

/**
 * The form's values: what is stored, else (for cluster, role and storage class) what the declared
 * metadata file says, since that is what the advisor used; the form says which file it came from.
 */
function formValues(m: InstanceMetadata | null, declared: FleetMetadata | null): MetadataValues {
  const f = m?.storageFacts ?? {};
  const mib = f.limits?.bandwidthBytesPerSecond;
  return {
    cluster: m?.cluster ?? declared?.cluster ?? "",
    role: m?.role ?? declared?.role ?? "",
    notes: m?.notes ?? "",
    storageClass: m?.storageClass ?? declared?.storageClass ?? "",
    managedService: m?.managedService ?? "",
    cloud: f.cloud ?? "",
    instanceClass: f.instanceClass ?? "",
    rdsOptimizedWrites: f.rdsOptimizedWrites ?? "",
    tornWriteProvider: f.tornWriteProtection?.provider ?? "",
    tornWriteUnitBytes: f.tornWriteProtection ? String(f.tornWriteProtection.unitBytes) : "",
    tornWriteNote: f.tornWriteProtection?.note ?? "",
    fsType: f.fsType ?? "",
    zfsRecordsizeBytes: f.zfsRecordsizeBytes ? String(f.zfsRecordsizeBytes) : "",
    limitsMetered: f.limits?.metered === undefined ? "" : String(f.limits.metered),
    limitsIops: f.limits?.iops ? String(f.limits.iops) : "",
    limitsBandwidthMiBps: mib ? String(Math.round((mib / 1048576) * 100) / 100) : "",
    limitsIoUnitBytes: f.limits?.ioUnitBytes ? String(f.limits.ioUnitBytes) : "",
  };
}

/** Which identity fields come from the declared file rather than the store, and the file's name. */
function declaredNote(m: InstanceMetadata | null, d: InstanceView["declaredMetadata"]): string | null {
  if (!d) return null;
  const fields = (["cluster", "role", "storageClass"] as const).filter((k) => !m?.[k] && d.entry[k]);
  if (fields.length === 0) return null;
  const names = fields.map((k) => (k === "storageClass" ? "storage class" : k));
  return `${names.join(", ")} as declared in ${d.file.split("/").pop()} (saving here stores them)`;
}

export function MetadataSection({
  instance,
  view: v,
  canEdit,
  action,
}: {
  instance: string;
  view: InstanceView;
  /** Whether the viewer may save metadata (a viewer sees the values read-only). */
  canEdit: boolean;
  action: ComponentProps<typeof MetadataForm>["action"];
}) {
  const m = v.metadata;
  return (
    <section className="section" aria-labelledby="metadata-title">
      <h2 id="metadata-title">Fleet metadata</h2>
      {v.storeProblem ? (
        <p className="field-error">
          The store cannot be opened, so metadata cannot be edited: {v.storeProblem}
        </p>
      ) : (
        <MetadataForm
          instance={instance}
          values={formValues(m, v.declaredMetadata?.entry ?? null)}
          declaredFrom={declaredNote(m, v.declaredMetadata)}
          version={m?.version ?? 0}
          canEdit={canEdit}
          action={action}
          updated={m ? `Last changed ${utc(new Date(m.updatedAt))} by ${m.updatedBy}.` : null}
        />
      )}
    </section>
  );
}
