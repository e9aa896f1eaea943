"use client";
/**
 * The plan editor's form. "Update the dry run" (the default button: Enter in any field) is a plain GET
 * of /rollouts/new with the fields, so the server re-plans with the engine and it works without
 * JavaScript; "Create rollout" posts the same fields to the createRollout Server Action. Errors sit on
 * their field (aria-describedby); the first one takes the focus.
 */
import { type ReactNode, useActionState, useEffect, useRef } from "react";
import { type PlanFieldValues, ROLLOUT_IDLE, type RolloutFormState } from "../../lib/rollout-fields.js";
import {
  BackupFieldset,
  BakeFieldset,
  type Candidate,
  ChangeFieldset,
  type Errors,
  InstancesFieldset,
  WavesFieldset,
} from "./plan-fieldsets.js";

export type { Candidate };

type Action = (prev: RolloutFormState, data: FormData) => Promise<RolloutFormState>;

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
  planned,
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
  /** Whether the dry run ran (a plan, with its exclusions, is among the children). */
  planned: boolean;
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
      <ChangeFieldset values={values} errors={errors} />
      <InstancesFieldset candidates={candidates} checked={checked} errors={errors} planned={planned} />
      <WavesFieldset values={values} errors={errors} />
      <BakeFieldset values={values} errors={errors} />
      <BackupFieldset values={values} errors={errors} clockNow={clockNow} />
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
