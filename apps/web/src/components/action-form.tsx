"use client";
/**
 * A small form bound to a Server Action (account and admin pages): shows the action's message, its
 * field errors next to the fields, and a secret it returns once (a new API token).
 */
import { useActionState } from "react";
import type { FormState } from "../server/actions.js";

type Action = (prev: FormState, data: FormData) => Promise<FormState>;

export interface Field {
  readonly name: string;
  readonly label: string;
  readonly type?: "text" | "password" | "hidden";
  readonly value?: string;
  readonly options?: readonly string[];
  /** What each option shows, when not its value (`true` → `disabled`). */
  readonly optionLabels?: Readonly<Record<string, string>>;
}

const IDLE: FormState = { status: "idle", message: "", fieldErrors: {} };

export function ActionForm({
  action,
  fields,
  submit,
  testId,
}: {
  action: Action;
  fields: readonly Field[];
  submit: string;
  testId: string;
}) {
  const [state, formAction, pending] = useActionState(action, IDLE);
  return (
    <form action={formAction} data-testid={testId} className="form-grid" style={{ alignItems: "end" }}>
      {fields.map((f) => {
        const id = `${testId}-${f.name}`;
        if (f.type === "hidden")
          return <input key={f.name} type="hidden" name={f.name} value={f.value ?? ""} />;
        const err = state.fieldErrors[f.name];
        return (
          <div className="field" key={f.name}>
            <label htmlFor={id}>{f.label}</label>
            {f.options ? (
              <select id={id} name={f.name} defaultValue={f.value}>
                {f.options.map((o) => (
                  <option key={o} value={o}>
                    {f.optionLabels?.[o] ?? (o || "unchanged")}
                  </option>
                ))}
              </select>
            ) : (
              <input
                id={id}
                name={f.name}
                type={f.type ?? "text"}
                defaultValue={f.value}
                autoComplete="off"
              />
            )}
            {err && <span className="field-error">{err}</span>}
          </div>
        );
      })}
      <div>
        <button type="submit" className="primary" disabled={pending}>
          {submit}
        </button>
        <span role="status" className={state.status === "error" ? "field-error" : "subtle"}>
          {" "}
          {state.message}
        </span>
        {state.secret && (
          <p>
            <code data-testid={`${testId}-secret`}>{state.secret}</code>
          </p>
        )}
      </div>
    </form>
  );
}
