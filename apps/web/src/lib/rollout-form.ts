/**
 * Parses the plan editor (its query string or its form) and the rollout controls' forms. Text fields
 * are read with zod first (whole numbers in decimal digits, percentages), then the values go through
 * the engine's own schemas (changeSchema, policySchema, commandSchema) so the editor accepts exactly
 * what the engine does; every issue comes back keyed by the form field it belongs to.
 */
import { type Change, changeSchema } from "@untorn/rollout/change";
import { defaultMetrics } from "@untorn/rollout/gates";
import { type JudgedMetric, type PolicyInput, policySchema } from "@untorn/rollout/policy";
import { z } from "zod";
import { PLAN_DEFAULTS, type PlanFieldValues } from "./rollout-fields.js";

export type Raw = Iterable<readonly [string, FormDataEntryValue]>;
export type FieldErrors = Record<string, string>;

/** Last value per name (`target` is read with `all`). Files are ignored. */
function firsts(raw: Raw): { one: Map<string, string>; all: (name: string) => string[] } {
  const one = new Map<string, string>();
  const many = new Map<string, string[]>();
  for (const [k, v] of raw) {
    if (typeof v !== "string" || k.startsWith("$")) continue;
    one.set(k, v);
    many.set(k, [...(many.get(k) ?? []), v]);
  }
  return { one, all: (name) => many.get(name) ?? [] };
}

/** The editor's fields as text: what was sent, else the defaults (checkboxes: sent only when ticked). */
export function planFieldValues(raw: Raw): PlanFieldValues {
  const { one } = firsts(raw);
  const text = (k: Exclude<keyof PlanFieldValues, "includePrimaries" | "requireControl">) =>
    one.get(k) ?? PLAN_DEFAULTS[k];
  // `edited` marks a submitted editor: an unticked checkbox is then false, not the default.
  const edited = one.has("edited");
  const box = (k: "includePrimaries" | "requireControl") =>
    edited ? one.get(k) === "on" : one.has(k) ? one.get(k) === "on" : PLAN_DEFAULTS[k];
  return {
    kind: text("kind"),
    pages: text("pages"),
    method: text("method"),
    platform: text("platform"),
    title: text("title"),
    maxInstancesPerWave: text("maxInstancesPerWave"),
    maxClusterSharePct: text("maxClusterSharePct"),
    includePrimaries: box("includePrimaries"),
    requireControl: box("requireControl"),
    approval: text("approval"),
    bakeMinutes: text("bakeMinutes"),
    warmupMinutes: text("warmupMinutes"),
    maxLagSeconds: text("maxLagSeconds"),
    throughputMarginPct: text("throughputMarginPct"),
    latencyMarginPct: text("latencyMarginPct"),
    minGainPct: text("minGainPct"),
    backupTakenAt: text("backupTakenAt"),
    backupNote: text("backupNote"),
  };
}

const whole = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,9}$/, "a whole number in decimal digits")
    .transform(Number)
    .pipe(z.number().int().min(min, `at least ${min}`).max(max, `at most ${max}`));

const percent = (min: number, max: number) =>
  z
    .string()
    .trim()
    .regex(/^\d{1,3}(\.\d{1,2})?$/, "a percentage like 5 or 2.5")
    .transform(Number)
    .pipe(z.number().min(min, `at least ${min}%`).max(max, `at most ${max}%`));

/** `YYYY-MM-DDTHH:MM` (a datetime-local field), read as UTC; or RFC 3339 with a zone. */
const utcTime = z
  .string()
  .trim()
  .regex(
    /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2})?(Z|[+-]\d{2}:\d{2})?$/,
    "a date and time like 2026-11-25T01:30 (UTC)",
  )
  .transform((s, ctx) => {
    const zoned = /Z|[+-]\d{2}:\d{2}$/.test(s);
    const t = Date.parse(zoned ? s : `${s}Z`);
    // Date.parse rolls 2026-02-30 over to March: a UTC time must read back as written.
    if (Number.isNaN(t) || (!zoned && new Date(t).toISOString().slice(0, 16) !== s.slice(0, 16))) {
      ctx.addIssue({ code: "custom", message: "not a real date and time" });
      return z.NEVER;
    }
    return t / 1000;
  });

const textFields = z.object({
  kind: z.enum(
    [
      "doublewrite-off",
      "doublewrite-on",
      "doublewrite-detect-only",
      "doublewrite-pages",
      "flush-method",
      "atomic-storage",
    ],
    "choose a change",
  ),
  maxInstancesPerWave: whole(1, 1000),
  maxClusterSharePct: percent(1, 100),
  approval: z.enum(["each-wave", "first-wave"], "each-wave or first-wave"),
  bakeMinutes: whole(1, 7 * 24 * 60),
  warmupMinutes: whole(0, 24 * 60),
  maxLagSeconds: whole(0, 86_400),
  throughputMarginPct: percent(0, 100),
  latencyMarginPct: percent(0, 100),
  minGainPct: percent(0, 100),
  title: z.string().trim().max(200, "at most 200 characters"),
  backupNote: z.string().trim().max(4000, "at most 4000 characters"),
});

/** Policy fields (engine names) → the editor's field that sets them. */
const POLICY_FIELD: Record<string, keyof PlanFieldValues> = {
  maxInstancesPerWave: "maxInstancesPerWave",
  maxClusterShare: "maxClusterSharePct",
  approval: "approval",
  bakeSeconds: "bakeMinutes",
  warmupSeconds: "warmupMinutes",
  maxReplicationLagSeconds: "maxLagSeconds",
  includePrimaries: "includePrimaries",
  requireControl: "requireControl",
};

export interface ParsedPlan {
  readonly change: Change;
  readonly policy: PolicyInput;
  readonly title: string;
  /** Unix seconds of the attested backup, or null when none was given. */
  readonly backupTakenAt: number | null;
  readonly backupNote: string;
}

export type PlanParse =
  | { readonly ok: true; readonly value: ParsedPlan; readonly values: PlanFieldValues }
  | { readonly ok: false; readonly fieldErrors: FieldErrors; readonly values: PlanFieldValues };

/** The judged metrics of `change` with the editor's margins: guardrails by kind, expected ones by minChange. */
export function metricsWith(
  change: Change,
  m: { throughput: number; latency: number; minGain: number },
): JudgedMetric[] {
  return defaultMetrics(change).map((x) =>
    x.role === "guardrail"
      ? { ...x, margin: x.kind === "latency" ? m.latency : x.kind === "throughput" ? m.throughput : x.margin }
      : x.role === "expected"
        ? { ...x, minChange: m.minGain }
        : x,
  );
}

/** The plan editor: change, policy, title and backup, or the errors keyed by field. */
export function parsePlanForm(raw: Raw): PlanParse {
  const values = planFieldValues(raw);
  const errors: FieldErrors = {};
  const r = textFields.safeParse(values);
  if (!r.success) for (const i of r.error.issues) errors[String(i.path[0] ?? "form")] ??= i.message;

  let backupTakenAt: number | null = null;
  if (values.backupTakenAt.trim() !== "") {
    const b = utcTime.safeParse(values.backupTakenAt);
    if (b.success) backupTakenAt = b.data;
    else errors.backupTakenAt = b.error.issues[0]?.message ?? "not a date and time";
  }

  let change: Change | null = null;
  if (r.success || !errors.kind) {
    const kind = values.kind;
    const candidate =
      kind === "doublewrite-pages"
        ? {
            kind,
            pages: /^\d{1,4}$/.test(values.pages.trim()) ? Number(values.pages.trim()) : values.pages,
          }
        : kind === "flush-method"
          ? { kind, method: values.method }
          : kind === "atomic-storage"
            ? { kind, platform: values.platform }
            : { kind };
    const c = changeSchema.safeParse(candidate);
    if (c.success) change = c.data;
    else
      for (const i of c.error.issues) {
        const field = String(i.path[0] ?? "kind");
        errors[field] ??=
          field === "pages"
            ? "a whole number of pages from 1 to 512"
            : field === "method"
              ? "choose a flush method"
              : field === "platform"
                ? "choose the storage platform"
                : i.message;
      }
  }

  if (!r.success || change === null || Object.keys(errors).length > 0)
    return { ok: false, fieldErrors: errors, values };

  const v = r.data;
  const policy: PolicyInput = {
    maxInstancesPerWave: v.maxInstancesPerWave,
    maxClusterShare: v.maxClusterSharePct / 100,
    includePrimaries: values.includePrimaries,
    requireControl: values.requireControl,
    approval: v.approval,
    bakeSeconds: v.bakeMinutes * 60,
    warmupSeconds: v.warmupMinutes * 60,
    maxReplicationLagSeconds: v.maxLagSeconds,
    metrics: metricsWith(change, {
      throughput: v.throughputMarginPct / 100,
      latency: v.latencyMarginPct / 100,
      minGain: v.minGainPct / 100,
    }),
  };
  // The engine's own limits (e.g. a bake of at least 60 s) speak last, on the field that set the value.
  const p = policySchema.safeParse(policy);
  if (!p.success) {
    for (const i of p.error.issues) {
      const field = POLICY_FIELD[String(i.path[0])] ?? "form";
      errors[field] ??= i.message;
    }
    return { ok: false, fieldErrors: errors, values };
  }
  return {
    ok: true,
    value: { change, policy, title: v.title, backupTakenAt, backupNote: v.backupNote },
    values,
  };
}

/** Instance names the plan targets (`target`, repeated, or `targets`, comma-separated). */
export function parseTargets(raw: Raw): { ok: true; targets: string[] } | { ok: false; message: string } {
  const { one, all } = firsts(raw);
  const list = [
    ...all("target"),
    ...(one.get("targets") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  ];
  const bad = list.find((t) => t.length > 256 || !/^[\x21-\x7e\u00a0-\uffff]+$/.test(t));
  if (bad !== undefined) return { ok: false, message: "an instance name is too long or holds spaces" };
  if (list.length > 10_000) return { ok: false, message: "at most 10,000 instances" };
  return { ok: true, targets: [...new Set(list)] };
}

// ---- the controls on a rollout ----

const key = z
  .string({ error: "the form's idempotency key is missing: reload the page" })
  .min(8, "the form's idempotency key is missing: reload the page")
  .max(200, "the form's idempotency key is too long")
  .regex(/^[\x21-\x7e]+$/, "the form's idempotency key is not printable ASCII");
const version = z
  .string({ error: "the form's version is missing: reload the page" })
  .regex(/^\d{1,9}$/, "the form's version is not a number: reload the page")
  .transform(Number);
const rolloutId = z
  .string({ error: "which rollout? (no id): reload the page" })
  .min(1, "which rollout? (no id)")
  .max(128, "the rollout id is too long")
  .regex(/^[A-Za-z0-9][A-Za-z0-9._-]*$/, "not a rollout id");
const reason = z
  .string({ error: "say why (kept in the audit)" })
  .trim()
  .min(1, "say why (kept in the audit)")
  .max(4000, "at most 4000 characters");
const note = z.string().trim().max(4000, "at most 4000 characters").optional();
/** The status the page showed (a conflict by the reconciler alone is retried while it is unchanged). */
const shownStatus = z.string().max(32).optional();
const base = { id: rolloutId, version, key, status: shownStatus };

export const commandForms = {
  approve: z.object({ ...base, wave: z.string({ error: "which wave?" }).pipe(whole(0, 10_000)), note }),
  stepDone: z.object({
    ...base,
    instance: z
      .string({ error: "which instance?" })
      .min(1, "which instance?")
      .max(256, "the instance name is too long"),
    note,
  }),
  revertDone: z.object({
    ...base,
    instance: z
      .string({ error: "which instance?" })
      .min(1, "which instance?")
      .max(256, "the instance name is too long"),
    note,
  }),
  attestBackup: z.object({
    ...base,
    takenAt: z.string({ error: "when was the backup taken?" }).pipe(utcTime),
    note,
  }),
  pause: z.object({ ...base, reason }),
  resume: z.object({ ...base, note }),
  abort: z.object({ ...base, reason }),
  revert: z.object({ ...base, reason }),
} as const;
export type CommandFormName = keyof typeof commandForms;

/** One control's form, or the errors keyed by field (`form` for the hidden ones). */
export function parseCommandForm<N extends CommandFormName>(
  name: N,
  raw: Raw,
): { ok: true; value: z.output<(typeof commandForms)[N]> } | { ok: false; fieldErrors: FieldErrors } {
  const { one } = firsts(raw);
  const r = commandForms[name].safeParse(Object.fromEntries(one));
  if (r.success) return { ok: true, value: r.data as z.output<(typeof commandForms)[N]> };
  const fieldErrors: FieldErrors = {};
  for (const i of r.error.issues) {
    const f = String(i.path[0] ?? "form");
    fieldErrors[["id", "version", "key", "status"].includes(f) ? "form" : f] ??= i.message;
  }
  return { ok: false, fieldErrors };
}
