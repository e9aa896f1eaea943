"use client";
/**
 * The plan editor's form. "Update the dry run" (the default button: Enter in any field) is a plain GET
 * of /rollouts/new with the fields, so the server re-plans with the engine and it works without
 * JavaScript; "Create rollout" posts the same fields to the createRollout Server Action. Errors sit on
 * their field (aria-describedby); the first one takes the focus.
 */
import { type ReactNode, useActionState, useEffect, useRef } from "react";
import {
  APPROVALS,
  CHANGE_KINDS,
  FLUSH_METHODS,
  type PlanFieldValues,
  ROLLOUT_IDLE,
  type RolloutFormState,
  STORAGE_PLATFORMS,
} from "../../lib/rollout-fields.js";

type Action = (prev: RolloutFormState, data: FormData) => Promise<RolloutFormState>;

export interface Candidate {
  readonly instance: string;
  readonly role: string | null;
  readonly cluster: string | null;
  readonly wave: number | null;
  readonly checked: boolean;
}

type Errors = Readonly<Record<string, string>>;

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
}: {
  name: keyof PlanFieldValues;
  label: string;
  values: PlanFieldValues;
  errors: Errors;
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
}: {
  name: keyof PlanFieldValues;
  label: string;
  options: readonly (string | readonly [string, string])[];
  values: PlanFieldValues;
  errors: Errors;
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

/** Values echoed by the action after an error, read back into the editor's shape. */
function echoed(
  initial: PlanFieldValues,
  echo: Readonly<Record<string, readonly string[]>>,
): PlanFieldValues {
  const one = (k: keyof PlanFieldValues) => echo[k]?.at(-1);
  const out: Record<string, string | boolean> = { ...initial };
  for (const k of Object.keys(initial) as (keyof PlanFieldValues)[]) {
    if (k === "includePrimaries" || k === "requireControl") out[k] = one(k) === "on";
    else out[k] = one(k) ?? "";
  }
  return out as unknown as PlanFieldValues;
}

export function PlanEditor({
  action,
  values: initial,
  errors: getErrors,
  candidates,
  considered,
  rule,
  idempotencyKey,
  canCreate,
  clockNow = null,
  children,
}: {
  action: Action;
  values: PlanFieldValues;
  errors: Errors;
  /** Eligible instances, as checkboxes (checked = planned). */
  candidates: readonly Candidate[];
  /** Every instance the plan considers (the finding's), eligible or not: kept across updates. */
  considered: readonly string[];
  rule: string;
  idempotencyKey: string;
  canCreate: boolean;
  /** On a recording: its clock's "now" (`YYYY-MM-DDTHH:MM`, UTC), where time stands still. */
  clockNow?: string | null;
  /** The dry run, waves and exclusions (server-rendered). */
  children: ReactNode;
}) {
  const [state, formAction, pending] = useActionState(action, ROLLOUT_IDLE);
  const echo = state.values;
  const values = echo ? echoed(initial, echo) : initial;
  const checked = echo
    ? new Set(echo.target ?? [])
    : new Set(candidates.filter((c) => c.checked).map((c) => c.instance));
  const errors: Errors = state.status === "error" ? state.fieldErrors : getErrors;
  const formRef = useRef<HTMLFormElement>(null);

  useEffect(() => {
    if (state.status !== "error") return;
    const first = formRef.current?.querySelector<HTMLElement>("[aria-invalid='true']");
    (first ?? document.getElementById("plan-create-message"))?.focus();
  }, [state]);

  return (
    <form
      ref={formRef}
      // A new form after an echo: React resets a form after its action; this one starts from the echo.
      key={echo ? JSON.stringify(echo) : "initial"}
      method="get"
      action="/rollouts/new"
      aria-labelledby="plan-heading"
      noValidate
    >
      <input type="hidden" name="edited" value="1" />
      <input type="hidden" name="key" value={idempotencyKey} />
      {rule && <input type="hidden" name="rule" value={rule} />}
      {considered.map((c) => (
        <input key={c} type="hidden" name="considered" value={c} />
      ))}
      {candidates.map((c) => (
        <input key={c.instance} type="hidden" name="offered" value={c.instance} />
      ))}
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
      <fieldset>
        <legend>Instances</legend>
        {candidates.length === 0 ? (
          <p className="subtle">No instance can take this change now: see the exclusions below.</p>
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
      {children}
      <div className="form-actions">
        <button type="submit">Update the dry run</button>{" "}
        <button type="submit" className="primary" formAction={formAction} disabled={pending || !canCreate}>
          Create rollout
        </button>
        <p
          id="plan-create-message"
          tabIndex={-1}
          role={state.status === "error" ? "alert" : "status"}
          className={state.status === "error" ? "field-error" : "subtle"}
        >
          {state.message ||
            (canCreate
              ? ""
              : "Nothing to create yet: fix the fields or pick instances that can take the change.")}
        </p>
      </div>
    </form>
  );
}
