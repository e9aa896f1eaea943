/**
 * The Rollouts page's URL state (`q`, `status`), parsed one parameter at a time (a bad one is named and
 * dropped); filtering the list is pure, so the page and its test share it.
 */
import { ROLLOUT_STATUSES, type RolloutStatus } from "@untorn/rollout/state";
import { z } from "zod";
import type { ParamProblem, RawParams } from "./fleet-query.js";

const schemas = {
  q: z.string().trim().max(200, "must be at most 200 characters"),
  status: z.enum(ROLLOUT_STATUSES),
} as const;
type Param = keyof typeof schemas;
const PARAMS = Object.keys(schemas) as Param[];

export interface RolloutsQuery {
  /** Matched (case-insensitive) against title, change, who started it and the id. */
  readonly q: string;
  readonly status: RolloutStatus | null;
}

export const DEFAULT_ROLLOUTS_QUERY: RolloutsQuery = { q: "", status: null };

const shown = (v: string) => (v.length > 60 ? `${v.slice(0, 59)}…` : v);

export function parseRolloutsQuery(raw: RawParams): { query: RolloutsQuery; problems: ParamProblem[] } {
  const out: { q: string; status: RolloutStatus | null } = { ...DEFAULT_ROLLOUTS_QUERY };
  const problems: ParamProblem[] = [];
  const list: [string, string[]][] =
    raw instanceof URLSearchParams
      ? [...new Set(raw.keys())].map((k) => [k, raw.getAll(k)])
      : Object.entries(raw)
          .filter(([, v]) => v !== undefined)
          .map(([k, v]) => [k, typeof v === "string" ? [v] : [...(v as readonly string[])]]);
  for (const [key, values] of list) {
    if (!(PARAMS as string[]).includes(key)) {
      problems.push({
        param: key,
        value: shown(values.join(",")),
        message: `unknown parameter (known: ${PARAMS.join(", ")})`,
      });
      continue;
    }
    if (values.length === 1 && values[0] === "") continue;
    if (values.length !== 1) {
      problems.push({ param: key, value: shown(values.join(",")), message: "given more than once" });
      continue;
    }
    const r = schemas[key as Param].safeParse(values[0]);
    if (!r.success) {
      const issue = r.error.issues[0];
      const message =
        issue?.code === "invalid_value"
          ? `must be one of ${(issue.values as unknown[]).map(String).join(", ")}`
          : (issue?.message ?? "invalid");
      problems.push({ param: key, value: shown(values[0]!), message });
      continue;
    }
    if (key === "q") out.q = r.data as string;
    else out.status = r.data as RolloutStatus;
  }
  return { query: out, problems };
}

export interface FilterableRollout {
  readonly id: string;
  readonly title: string;
  readonly change: string;
  readonly createdBy: string;
  readonly status: RolloutStatus;
}

/** The rollouts the query keeps, in their order. */
export function filterRollouts<R extends FilterableRollout>(list: readonly R[], q: RolloutsQuery): R[] {
  const n = q.q.toLowerCase();
  return list.filter(
    (r) =>
      (q.status === null || r.status === q.status) &&
      (!n || [r.title, r.change, r.createdBy, r.id].some((t) => t.toLowerCase().includes(n))),
  );
}
