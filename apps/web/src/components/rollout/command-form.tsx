"use client";
/**
 * One rollout control: a form bound to a rollout Server Action, with the rollout's id, the version it
 * was rendered from and an idempotency key made for this rendering as hidden fields (a double submit is
 * one command). Shows the engine's answer, a conflict, or an error placed on its field.
 */
import { useActionState } from "react";
import { ROLLOUT_IDLE, type RolloutFormState } from "../../lib/rollout-fields.js";

type Action = (prev: RolloutFormState, data: FormData) => Promise<RolloutFormState>;

export interface CommandField {
  readonly name: string;
  readonly label: string;
  readonly placeholder?: string;
  /** Prefilled value (e.g. the data source's "now" for a backup time). */
  readonly defaultValue?: string;
  /** One line under the field saying what it takes. */
  readonly hint?: string;
}

export function CommandForm({
  action,
  name,
  hidden,
  fields = [],
  submit,
  submitLabel,
  danger = false,
}: {
  action: Action;
  /** Unique on the page: ids of fields and messages derive from it. */
  name: string;
  hidden: Readonly<Record<string, string>>;
  fields?: readonly CommandField[];
  submit: string;
  /** Accessible name of the button when the text alone is ambiguous (e.g. one per instance). */
  submitLabel?: string;
  danger?: boolean;
}) {
  const [state, formAction, pending] = useActionState(action, ROLLOUT_IDLE);
  const msgId = `${name}-message`;
  return (
    <form
      action={formAction}
      className="rollout-command"
      aria-describedby={state.message ? msgId : undefined}
    >
      {Object.entries(hidden).map(([k, v]) => (
        <input key={k} type="hidden" name={k} value={v} />
      ))}
      {fields.map((f) => {
        const id = `${name}-${f.name}`;
        const err = state.fieldErrors[f.name];
        return (
          <div className="field" key={f.name}>
            <label htmlFor={id}>{f.label}</label>
            <input
              id={id}
              name={f.name}
              type="text"
              autoComplete="off"
              placeholder={f.placeholder}
              defaultValue={f.defaultValue}
              {...(err ? { "aria-invalid": true, "aria-describedby": `${id}-error` } : {})}
            />
            {f.hint && <span className="subtle">{f.hint}</span>}
            {err && (
              <span className="field-error" id={`${id}-error`}>
                {err}
              </span>
            )}
          </div>
        );
      })}
      <button
        type="submit"
        className={danger ? "danger" : "primary"}
        disabled={pending}
        aria-label={submitLabel}
      >
        {submit}
      </button>
      <p
        id={msgId}
        role={state.status === "error" ? "alert" : "status"}
        className={state.status === "error" ? "field-error" : "subtle"}
        data-conflict={state.conflict ? "true" : undefined}
      >
        {state.message}
        {state.conflict && (
          <>
            {" "}
            <button type="button" onClick={() => window.location.reload()}>
              Reload
            </button>
          </>
        )}
      </p>
    </form>
  );
}
