"use client";
import { CLOUDS, MANAGED_SERVICES, REPLICATION_ROLES, TORN_WRITE_PROVIDERS } from "@untorn/vocabulary/words";
/**
 * Edits what Prometheus cannot know about an instance: cluster, role, notes and declared storage and
 * platform facts. Saved through a Server Action; the advisor uses the facts at once (e.g. declared
 * torn-write protection can verify the safety gate).
 */
import { useActionState } from "react";
import { bytes } from "../lib/format.js";
import { IDLE, IO_UNITS, type MetadataFormState, RECORDSIZES, UNIT_SIZES } from "../lib/metadata-form.js";

export interface MetadataValues {
  readonly cluster: string;
  readonly role: string;
  readonly notes: string;
  readonly storageClass: string;
  readonly managedService: string;
  readonly cloud: string;
  readonly instanceClass: string;
  readonly rdsOptimizedWrites: string;
  readonly tornWriteProvider: string;
  readonly tornWriteUnitBytes: string;
  readonly tornWriteNote: string;
  readonly fsType: string;
  readonly zfsRecordsizeBytes: string;
  readonly limitsMetered: string;
  readonly limitsIops: string;
  readonly limitsBandwidthMiBps: string;
  readonly limitsIoUnitBytes: string;
}

type Action = (prev: MetadataFormState, data: FormData) => Promise<MetadataFormState>;

function Err({ id, state }: { id: string; state: MetadataFormState }) {
  const e = state.fieldErrors[id];
  return e ? (
    <span className="field-error" id={`${id}-error`}>
      {e}
    </span>
  ) : null;
}

const invalid = (id: string, state: MetadataFormState) =>
  state.fieldErrors[id] ? { "aria-invalid": true, "aria-describedby": `${id}-error` } : {};

function Text({
  id,
  label,
  state,
  values,
  hint,
}: {
  id: keyof MetadataValues;
  label: string;
  state: MetadataFormState;
  values: MetadataValues;
  hint?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={`meta-${id}`}>{label}</label>
      <input
        id={`meta-${id}`}
        name={id}
        type="text"
        defaultValue={values[id]}
        placeholder={hint}
        {...invalid(id, state)}
      />
      <Err id={id} state={state} />
    </div>
  );
}

function Select({
  id,
  label,
  options,
  state,
  values,
  blank = "not set",
}: {
  id: keyof MetadataValues;
  label: string;
  options: readonly (string | readonly [string, string])[];
  state: MetadataFormState;
  values: MetadataValues;
  blank?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={`meta-${id}`}>{label}</label>
      <select id={`meta-${id}`} name={id} defaultValue={values[id]} {...invalid(id, state)}>
        <option value="">{blank}</option>
        {options.map((o) => {
          const [value, text] = typeof o === "string" ? [o, o] : o;
          return (
            <option key={value} value={value}>
              {text}
            </option>
          );
        })}
      </select>
      <Err id={id} state={state} />
    </div>
  );
}

const sized = (values: readonly string[]) => values.map((v) => [v, bytes(Number(v))] as const);

type FieldsetProps = { state: MetadataFormState; values: MetadataValues };

export function MetadataForm({
  instance,
  values,
  version,
  canEdit,
  action,
  updated,
  declaredFrom = null,
}: {
  instance: string;
  values: MetadataValues;
  /** The stored version this form was filled from (0: nothing stored): a later save elsewhere is a conflict. */
  version: number;
  /** False for a viewer: the values are shown read-only, with no save button. */
  canEdit: boolean;
  action: Action;
  updated: string | null;
  /** Which values come from the declared metadata file, not the store (null: none). */
  declaredFrom?: string | null;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  if (!canEdit) return <MetadataReadOnly values={values} updated={updated} declaredFrom={declaredFrom} />;
  return (
    <form action={formAction} aria-labelledby="metadata-title" noValidate>
      <input type="hidden" name="instance" value={instance} />
      <input type="hidden" name="version" value={version} />
      {declaredFrom && (
        <p className="subtle" data-testid="metadata-declared">
          {declaredFrom}
        </p>
      )}
      <IdentityFieldset state={state} values={values} />
      <PlatformFieldset state={state} values={values} />
      <StorageFieldset state={state} values={values} />
      <div style={{ display: "flex", gap: "0.75rem", alignItems: "center", flexWrap: "wrap" }}>
        <button type="submit" className="primary" disabled={pending}>
          {pending ? "Saving…" : "Save metadata"}
        </button>
        <span
          role="status"
          className={state.status === "error" ? "field-error" : "subtle"}
          data-testid="metadata-status"
        >
          {state.message}
        </span>
        {updated && state.status === "idle" && <span className="subtle">{updated}</span>}
      </div>
    </form>
  );
}

/** A viewer's view: the main values as a list, and who may edit them. */
function MetadataReadOnly({
  values,
  updated,
  declaredFrom,
}: {
  values: MetadataValues;
  updated: string | null;
  declaredFrom: string | null;
}) {
  return (
    <div data-testid="metadata-readonly">
      <dl className="kv">
        {(["cluster", "role", "storageClass", "notes", "managedService", "tornWriteProvider"] as const).map(
          (k) => (
            <div key={k}>
              <dt>{k}</dt>
              <dd>{values[k] || "not set"}</dd>
            </div>
          ),
        )}
      </dl>
      {declaredFrom && (
        <p className="subtle" data-testid="metadata-declared">
          {declaredFrom}
        </p>
      )}
      <p className="subtle">Editing fleet metadata needs the operator role.</p>
      {updated && <p className="subtle">{updated}</p>}
    </div>
  );
}

function IdentityFieldset({ state, values }: FieldsetProps) {
  return (
    <fieldset>
      <legend>Identity</legend>
      <div className="form-grid">
        <Text id="cluster" label="Cluster" state={state} values={values} hint="e.g. orders-eu" />
        <Select
          id="role"
          label="Role"
          options={REPLICATION_ROLES}
          state={state}
          values={values}
          blank="unknown"
        />
        <Text
          id="storageClass"
          label="Storage class"
          state={state}
          values={values}
          hint="e.g. ebs-gp3, local-nvme"
        />
      </div>
      <div className="field" style={{ marginTop: "0.75rem" }}>
        <label htmlFor="meta-notes">Notes</label>
        <textarea id="meta-notes" name="notes" defaultValue={values.notes} {...invalid("notes", state)} />
        <Err id="notes" state={state} />
      </div>
    </fieldset>
  );
}

function PlatformFieldset({ state, values }: FieldsetProps) {
  return (
    <fieldset>
      <legend>Platform (declared)</legend>
      <div className="form-grid">
        <Select
          id="managedService"
          label="Managed service"
          options={MANAGED_SERVICES}
          state={state}
          values={values}
        />
        <Select id="cloud" label="Cloud" options={CLOUDS} state={state} values={values} />
        <Text
          id="instanceClass"
          label="Instance class"
          state={state}
          values={values}
          hint="e.g. db.r6g.2xlarge"
        />
        <Select
          id="rdsOptimizedWrites"
          label="RDS Optimized Writes"
          options={[
            ["auto", "on (rds.optimized_writes = AUTO)"],
            ["off", "off (rds.optimized_writes = OFF)"],
          ]}
          state={state}
          values={values}
        />
      </div>
    </fieldset>
  );
}

/** Storage facts no probe can see: torn-write protection, the file system, the provider's I/O limits. */
function StorageFieldset({ state, values }: FieldsetProps) {
  return (
    <fieldset>
      <legend>Storage (declared)</legend>
      <p className="subtle">
        Only what no probe can see. Measured facts win; a declaration that disagrees is shown, not used.
      </p>
      <div className="form-grid">
        <Select
          id="tornWriteProvider"
          label="Torn-write protection by"
          options={TORN_WRITE_PROVIDERS}
          state={state}
          values={values}
          blank="none declared"
        />
        <Select
          id="tornWriteUnitBytes"
          label="Atomic up to"
          options={sized(UNIT_SIZES)}
          state={state}
          values={values}
        />
        <Text
          id="tornWriteNote"
          label="Verified how"
          state={state}
          values={values}
          hint="e.g. nvme id-ns NTWPU, ticket"
        />
        <Text id="fsType" label="File system" state={state} values={values} hint="e.g. zfs" />
        <Select
          id="zfsRecordsizeBytes"
          label="ZFS recordsize"
          options={sized(RECORDSIZES)}
          state={state}
          values={values}
        />
        <Select
          id="limitsMetered"
          label="Provider I/O limits"
          options={[
            ["true", "metered volume"],
            ["false", "local device, no limit"],
          ]}
          state={state}
          values={values}
          blank="unknown"
        />
        <Text id="limitsIops" label="IOPS limit" state={state} values={values} hint="e.g. 16000" />
        <Text
          id="limitsBandwidthMiBps"
          label="Bandwidth limit (MiB/s)"
          state={state}
          values={values}
          hint="e.g. 1000"
        />
        <Select
          id="limitsIoUnitBytes"
          label="Metered I/O unit"
          options={sized(IO_UNITS)}
          state={state}
          values={values}
        />
      </div>
    </fieldset>
  );
}
