/**
 * The Recommendations page's URL state (`q`, `severity`, `gate`), parsed one parameter at a time as the
 * fleet's is (a bad one is named and dropped, the rest still apply); /api/v1/recommendations.csv takes the
 * same parameters.
 */
import { TimeRange } from "@untorn/prom/duration";
import { SEVERITIES } from "@untorn/vocabulary/words";
import { z } from "zod";
import type { ParamProblem, RawParams } from "./fleet-query.js";

export const REC_GATE = ["waiting", "actionable"] as const;

export const recParamSchemas = {
  q: z.string().trim().max(200, "must be at most 200 characters"),
  severity: z.enum(SEVERITIES),
  gate: z.enum(REC_GATE),
  range: TimeRange,
} as const;

export type RecParam = keyof typeof recParamSchemas;
const REC_PARAMS = Object.keys(recParamSchemas) as RecParam[];

export interface RecommendationsQuery {
  /** Matched (case-insensitive) against the rule's id and title, and the instance and cluster. */
  readonly q: string;
  readonly severity: (typeof SEVERITIES)[number] | null;
  /** waiting: findings waiting for the safety gate; actionable: findings with a change to make now. */
  readonly gate: (typeof REC_GATE)[number] | null;
  readonly range: string | null;
}

export const DEFAULT_REC_QUERY: RecommendationsQuery = { q: "", severity: null, gate: null, range: null };

const shown = (v: string) => (v.length > 60 ? `${v.slice(0, 59)}…` : v);

function entries(raw: RawParams): [string, string[]][] {
  if (raw instanceof URLSearchParams) return [...new Set(raw.keys())].map((k) => [k, raw.getAll(k)]);
  return Object.entries(raw)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, typeof v === "string" ? [v] : [...(v as readonly string[])]]);
}

/** Parses the parameters; never throws. */
export function parseRecommendationsQuery(raw: RawParams): {
  query: RecommendationsQuery;
  problems: ParamProblem[];
} {
  const out: { -readonly [K in keyof RecommendationsQuery]: RecommendationsQuery[K] } = {
    ...DEFAULT_REC_QUERY,
  };
  const problems: ParamProblem[] = [];
  for (const [key, values] of entries(raw)) {
    if (!(REC_PARAMS as string[]).includes(key)) {
      problems.push({
        param: key,
        value: shown(values.join(",")),
        message: `unknown parameter (known: ${REC_PARAMS.join(", ")})`,
      });
      continue;
    }
    const param = key as RecParam;
    // The page's form sends an empty value for "Any".
    if (values.length === 1 && values[0] === "") continue;
    if (values.length !== 1) {
      problems.push({ param, value: shown(values.join(",")), message: "given more than once" });
      continue;
    }
    const r = recParamSchemas[param].safeParse(values[0]);
    if (!r.success) {
      const issue = r.error.issues[0];
      const message =
        issue?.code === "invalid_value"
          ? `must be one of ${(issue.values as unknown[]).map(String).join(", ")}`
          : (issue?.message ?? "invalid");
      problems.push({ param, value: shown(values[0]!), message });
      continue;
    }
    (out as Record<string, unknown>)[param] = r.data;
  }
  return { query: out, problems };
}

/** The query as URL parameters, defaults left out. */
export function recommendationsQueryToParams(q: RecommendationsQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (q.q) p.set("q", q.q);
  if (q.severity) p.set("severity", q.severity);
  if (q.gate) p.set("gate", q.gate);
  if (q.range) p.set("range", q.range);
  return p;
}
