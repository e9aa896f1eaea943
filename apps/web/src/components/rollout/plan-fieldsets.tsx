/**
 * The plan editor's fields, one fieldset per part of the plan. Plain markup (no state): the editor
 * (plan-editor.tsx) owns the form, its values and its errors. An error sits on its field
 * (aria-describedby `plan-<name>-error`).
 */
import {
  APPROVALS,
  CHANGE_KINDS,
  FLUSH_METHODS,
  type PlanFieldValues,
  STORAGE_PLATFORMS,
} from "../../lib/rollout-fields.js";

export type Errors = Readonly<Record<string, string>>;

export interface Candidate {
  readonly instance: string;
  readonly role: string | null;
  readonly cluster: string | null;
  readonly wave: number | null;
  readonly checked: boolean;
}

/** The values and errors every fieldset shows. */
interface FieldsProps {
  values: PlanFieldValues;
  errors: Errors;
}

const aria = (name: string, errors: Errors) =>
  errors[name] ? { "aria-invalid": true as const, "aria-describedby": `plan-${name}-error` } : {};

function Err({ name, errors }: { name: string; errors: Errors }) {
  return errors[name] ? (
    <span className="field-error" id={`plan-${name}-error`}>
      {errors[name]}
    </span>
  ) : null;
}

function Text({
  name,
  label,
  values,
  errors,
  hint,
  inputMode,
}: FieldsProps & {
  name: keyof PlanFieldValues;
  label: string;
  hint?: string;
  inputMode?: "numeric" | "decimal";
}) {
  return (
    <div className="field">
      <label htmlFor={`plan-${name}`}>{label}</label>
      <input
        id={`plan-${name}`}
        name={name}
        type="text"
        inputMode={inputMode}
        defaultValue={String(values[name])}
        placeholder={hint}
        autoComplete="off"
        {...aria(name, errors)}
      />
      <Err name={name} errors={errors} />
    </div>
  );
}

function Select({
  name,
  label,
  options,
  values,
  errors,
  blank,
}: FieldsProps & {
  name: keyof PlanFieldValues;
  label: string;
  options: readonly (string | readonly [string, string])[];
  blank?: string;
}) {
  return (
    <div className="field">
      <label htmlFor={`plan-${name}`}>{label}</label>
      <select id={`plan-${name}`} name={name} defaultValue={String(values[name])} {...aria(name, errors)}>
        {blank !== undefined && <option value="">{blank}</option>}
        {options.map((o) => {
          const [v, t] = typeof o === "string" ? [o, o] : o;
          return (
            <option key={v} value={v}>
              {t}
            </option>
          );
        })}
      </select>
      <Err name={name} errors={errors} />
    </div>
  );
}

function Check({
  name,
  label,
  values,
}: {
  name: "includePrimaries" | "requireControl";
  label: string;
  values: PlanFieldValues;
}) {
  return (
    <div className="field field-check">
      <label>
        <input type="checkbox" name={name} defaultChecked={values[name]} /> {label}
      </label>
    </div>
  );
}

export function ChangeFieldset({ values, errors }: FieldsProps) {
  return (
    <fieldset>
      <legend>Change</legend>
      <div className="form-grid">
        <Select name="kind" label="Change" options={CHANGE_KINDS} values={values} errors={errors} />
        <Text
          name="pages"
          label="Doublewrite pages (for innodb_doublewrite_pages)"
          values={values}
          errors={errors}
          inputMode="numeric"
        />
        <Select
          name="method"
          label="Flush method (for innodb_flush_method)"
          options={FLUSH_METHODS}
          values={values}
          errors={errors}
          blank="not set"
        />
        <Select
          name="platform"
          label="Storage platform (for atomic-write storage)"
          options={STORAGE_PLATFORMS}
          values={values}
          errors={errors}
          blank="not set"
        />
        <Text name="title" label="Title (optional)" values={values} errors={errors} />
      </div>
    </fieldset>
  );
}

/** The eligible instances as checkboxes, ticked where `checked` has them. */
export function InstancesFieldset({
  candidates,
  checked,
  errors,
  planned,
}: {
  candidates: readonly Candidate[];
  checked: ReadonlySet<string>;
  errors: Errors;
  /** Whether the dry run ran: it does not while a field is wrong, and then no exclusion is listed. */
  planned: boolean;
}) {
  return (
    <fieldset>
      <legend>Instances</legend>
      {candidates.length === 0 ? (
        <p className="subtle" data-testid="instances-empty">
          {planned
            ? "No instance can take this change now: see the exclusions below."
            : "No dry run yet: fix the fields marked above, then update the dry run to see which instances can take this change."}
        </p>
      ) : (
        <ul className="plain-list">
          {candidates.map((c) => (
            <li key={c.instance}>
              <label>
                <input
                  type="checkbox"
                  name="target"
                  value={c.instance}
                  defaultChecked={checked.has(c.instance)}
                />{" "}
                {c.instance}{" "}
                <span className="subtle">
                  {c.role ?? "role unknown"}
                  {c.cluster ? ` in ${c.cluster}` : ""}
                  {c.wave !== null ? `, wave ${c.wave}` : ""}
                </span>
              </label>
            </li>
          ))}
        </ul>
      )}
      <Err name="target" errors={errors} />
    </fieldset>
  );
}

export function WavesFieldset({ values, errors }: FieldsProps) {
  return (
    <fieldset>
      <legend>Waves and blast radius</legend>
      <div className="form-grid">
        <Text
          name="maxInstancesPerWave"
          label="Instances per wave (at most)"
          values={values}
          errors={errors}
          inputMode="numeric"
        />
        <Text
          name="maxClusterSharePct"
          label="Share of a cluster's replicas per wave (%)"
          values={values}
          errors={errors}
          inputMode="decimal"
        />
        <Select name="approval" label="Approval" options={APPROVALS} values={values} errors={errors} />
        <Check name="requireControl" label="Require a sibling replica as the control" values={values} />
        <Check name="includePrimaries" label="Primaries last, by switchover" values={values} />
      </div>
    </fieldset>
  );
}

export function BakeFieldset({ values, errors }: FieldsProps) {
  return (
    <fieldset>
      <legend>Bake and success criteria</legend>
      <div className="form-grid">
        <Text
          name="bakeMinutes"
          label="Bake time (minutes)"
          values={values}
          errors={errors}
          inputMode="numeric"
        />
        <Text
          name="warmupMinutes"
          label="Warm-up excluded after a restart (minutes)"
          values={values}
          errors={errors}
          inputMode="numeric"
        />
        <Text
          name="maxLagSeconds"
          label="Replication lag limit (seconds)"
          values={values}
          errors={errors}
          inputMode="numeric"
        />
        <Text
          name="throughputMarginPct"
          label="Throughput regression tolerated (%)"
          values={values}
          errors={errors}
          inputMode="decimal"
        />
        <Text
          name="latencyMarginPct"
          label="Write latency regression tolerated (%)"
          values={values}
          errors={errors}
          inputMode="decimal"
        />
        <Text
          name="minGainPct"
          label="Smallest efficiency gain that counts (%)"
          values={values}
          errors={errors}
          inputMode="decimal"
        />
      </div>
    </fieldset>
  );
}

/** The backup attestation; on a recording, `clockNow` is its clock (`YYYY-MM-DDTHH:MM`, UTC). */
export function BackupFieldset({ values, errors, clockNow }: FieldsProps & { clockNow: string | null }) {
  return (
    <fieldset>
      <legend>Backup</legend>
      <p className="subtle">
        A wave starts only after a recent backup is attested. Give its time (UTC) to attest it now, or later
        on the rollout's page (Attest backup) or with the CLI (<code>untorn rollout attest-backup</code>).
        {clockNow !== null &&
          ` On this recording the clock stands at ${clockNow} UTC: a backup time is read on that clock, and a later one is in its future.`}
      </p>
      <div className="form-grid">
        <Text
          name="backupTakenAt"
          label="Backup taken at (UTC)"
          values={values}
          errors={errors}
          hint={clockNow ?? "2026-11-25T01:30"}
        />
        <Text name="backupNote" label="Backup note (optional)" values={values} errors={errors} />
      </div>
    </fieldset>
  );
}
