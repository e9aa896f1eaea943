/**
 * How the audit page shows an entry (pure): what changed as field, from, to; the page of the thing it
 * names (a rollout, an instance, a user); and the date filter's bounds.
 */
import { instanceHref } from "./paths.js";

export interface ChangeLine {
  readonly field: string;
  /** Absent for a value set at creation or removed with the entity. */
  readonly from?: string;
  readonly to?: string;
}

const shown = (v: unknown): string => {
  if (v === null || v === undefined || v === "") return "(none)";
  const s = typeof v === "string" ? v : JSON.stringify(v);
  return s.length > 300 ? `${s.slice(0, 299)}…` : s;
};

const isObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === "object" && !Array.isArray(v);

/**
 * `details.changes` ({field: {from, to}}) as one line per field, `details.values` as the values set;
 * other details as field = value. Nested objects that changed are compared key by key.
 */
export function changeLines(details: unknown): ChangeLine[] {
  if (!isObject(details)) return [];
  const out: ChangeLine[] = [];
  if (isObject(details.changes)) {
    for (const [field, c] of Object.entries(details.changes)) {
      if (isObject(c) && ("from" in c || "to" in c)) {
        if (isObject(c.from) && isObject(c.to)) {
          const keys = new Set([...Object.keys(c.from), ...Object.keys(c.to)]);
          for (const k of keys)
            if (JSON.stringify(c.from[k]) !== JSON.stringify(c.to[k]))
              out.push({ field: `${field}.${k}`, from: shown(c.from[k]), to: shown(c.to[k]) });
        } else out.push({ field, from: shown(c.from), to: shown(c.to) });
      } else out.push({ field, to: shown(c) });
    }
  }
  if (isObject(details.values))
    for (const [field, v] of Object.entries(details.values)) out.push({ field, to: shown(v) });
  for (const [field, v] of Object.entries(details))
    if (field !== "changes" && field !== "values") out.push({ field, to: shown(v) });
  return out;
}

/** The console page of an entry's entity, or null. */
export function entityHref(entity: string, entityId: string | null): string | null {
  if (!entityId) return null;
  switch (entity) {
    case "rollout":
      return `/rollouts/${encodeURIComponent(entityId)}`;
    case "instance_metadata":
      return instanceHref(entityId);
    case "user":
      return "/admin/users";
    default:
      return null;
  }
}

/** `YYYY-MM-DD` as its UTC midnight; `endOfDay` gives the next midnight (an inclusive "to" date). */
export function dayBound(text: string | undefined, endOfDay = false): Date | undefined {
  if (!text || !/^\d{4}-\d{2}-\d{2}$/.test(text)) return undefined;
  const [y, m, d] = text.split("-").map(Number) as [number, number, number];
  const day = new Date(Date.UTC(y, m - 1, d + (endOfDay ? 1 : 0)));
  const check = new Date(Date.UTC(y, m - 1, d));
  if (check.getUTCFullYear() !== y || check.getUTCMonth() !== m - 1 || check.getUTCDate() !== d)
    return undefined;
  return day;
}
