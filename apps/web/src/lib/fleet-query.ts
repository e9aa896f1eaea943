/**
 * The fleet table's state as URL search parameters (the page and GET /api/v1/fleet take the same ones):
 * parsing with zod, one parameter at a time so a bad value is reported and dropped while the good ones
 * still apply; serialising only what differs from the defaults (the browser uses it to write the URL as
 * the user types); and applying the state to rows (pure, on the server only: the page and the API send
 * the browser one page of the matching rows).
 */

import { TimeRange } from "@untorn/prom/duration";
import { FLAVORS, GATE_STATUSES as GATES, VERDICTS } from "@untorn/vocabulary/words";
import { z } from "zod";
import type { TableRow } from "./fleet-row.js";
import { TREND_KEYS, type TrendKey } from "./sparkline.js";

export const SORT_KEYS = [
  "rank",
  "instance",
  "cluster",
  "server",
  "role",
  "doublewrite",
  "gate",
  "verdict",
  "confidence",
  "amplification",
  "share",
  "gain",
] as const;
export type SortKey = (typeof SORT_KEYS)[number];
export type SortDir = "asc" | "desc";

/** Direction a column sorts in when first chosen: most interesting first. */
export const DEFAULT_DIR: Readonly<Record<SortKey, SortDir>> = {
  rank: "asc",
  instance: "asc",
  cluster: "asc",
  server: "asc",
  role: "asc",
  doublewrite: "asc",
  gate: "asc",
  verdict: "asc",
  confidence: "desc",
  amplification: "desc",
  share: "desc",
  gain: "desc",
};

/** The summary cards' filters (the Write-bound card filters by verdict). */
export const ONLY = ["can-drop", "waiting-for-gate", "at-risk"] as const;
export type Only = (typeof ONLY)[number];
/** The summary card each filter belongs to, as the card names it. */
export const ONLY_LABELS: Readonly<Record<Only, string>> = {
  "can-drop": "Could safely drop doublewrite",
  "waiting-for-gate": "Waiting for the safety gate",
  "at-risk": "At risk",
};

const text = (max: number) => z.string().trim().max(max, `must be at most ${max} characters`);

/** One schema per parameter, so each is judged on its own. */
export const fleetParamSchemas = {
  q: text(200).describe("Case-insensitive text matched against instance, cluster, role and server version."),
  cluster: text(200).min(1, "must not be empty").describe("Only instances of this cluster (exact match)."),
  flavor: z.enum(FLAVORS),
  verdict: z.enum(VERDICTS),
  gate: z.enum(GATES),
  only: z
    .enum(ONLY)
    .describe(
      "Only the instances a summary card counts: can-drop (could safely drop doublewrite), waiting-for-gate, at-risk.",
    ),
  sort: z.enum(SORT_KEYS),
  dir: z.enum(["asc", "desc"]),
  range: TimeRange,
  trend: z.enum(TREND_KEYS),
} as const;

export type FleetParam = keyof typeof fleetParamSchemas;
export const FLEET_PARAMS = Object.keys(fleetParamSchemas) as FleetParam[];

/** The whole query as one object schema (documentation: docs/schemas/api-fleet-query.schema.json). */
export const fleetQuerySchema = z
  .object({
    q: fleetParamSchemas.q.optional(),
    cluster: fleetParamSchemas.cluster.optional(),
    flavor: fleetParamSchemas.flavor.optional(),
    verdict: fleetParamSchemas.verdict.optional(),
    gate: fleetParamSchemas.gate.optional(),
    only: fleetParamSchemas.only.optional(),
    sort: fleetParamSchemas.sort.optional().describe("Column to sort by; default rank (most to gain first)."),
    dir: fleetParamSchemas.dir.optional().describe("Sort direction; default depends on the column."),
    range: fleetParamSchemas.range
      .optional()
      .describe(
        "Window the workload statistics cover: 15m, 1h, 6h, 24h, 7d or a PromQL duration from 30s to 30d; default UNTORN_WINDOW (live) or the recording's window.",
      ),
    trend: fleetParamSchemas.trend
      .optional()
      .describe(
        "What the page's trend column draws: dw-pages (doublewrite pages/s, the default), dw-share (doublewrite's share of write bytes, on each row's DW share basis) or busy (device utilisation). The API's rows do not carry trends and ignore it.",
      ),
  })
  .strict()
  .meta({ title: "Fleet query", description: "Search parameters of the fleet page and GET /api/v1/fleet." });

export interface FleetQuery {
  readonly q: string;
  readonly cluster: string | null;
  readonly flavor: (typeof FLAVORS)[number] | null;
  readonly verdict: (typeof VERDICTS)[number] | null;
  readonly gate: (typeof GATES)[number] | null;
  readonly only: Only | null;
  readonly sort: SortKey;
  readonly dir: SortDir;
  /** The time range asked for (`?range=`), or null for the source's default window. */
  readonly range: string | null;
  /** What the trend column draws (`?trend=`). */
  readonly trend: TrendKey;
}

export const DEFAULT_QUERY: FleetQuery = {
  q: "",
  cluster: null,
  flavor: null,
  verdict: null,
  gate: null,
  only: null,
  sort: "rank",
  dir: "asc",
  range: null,
  trend: "dw-pages",
};

export interface ParamProblem {
  readonly param: string;
  readonly value: string;
  readonly message: string;
}

export type RawParams = URLSearchParams | Readonly<Record<string, string | readonly string[] | undefined>>;

function entries(raw: RawParams): [string, string[]][] {
  if (raw instanceof URLSearchParams) {
    const keys = [...new Set(raw.keys())];
    return keys.map((k) => [k, raw.getAll(k)]);
  }
  return Object.entries(raw)
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => [k, typeof v === "string" ? [v] : [...(v as readonly string[])]]);
}

const shown = (v: string) => (v.length > 60 ? `${v.slice(0, 59)}…` : v);

/** Parameters only the read API takes (paging through a large fleet). */
export const pageParamSchemas = {
  limit: z.coerce.number().int().min(1).max(100_000).describe("At most this many instances (default: all)."),
  offset: z.coerce.number().int().min(0).describe("Skip this many matching instances first (default 0)."),
} as const;

export interface PageQuery {
  readonly limit: number | null;
  readonly offset: number;
}

/** Splits `limit` and `offset` off the parameters; the rest is for parseFleetQuery. */
export function parsePageQuery(raw: URLSearchParams): {
  page: PageQuery;
  rest: URLSearchParams;
  problems: ParamProblem[];
} {
  const rest = new URLSearchParams(raw);
  const problems: ParamProblem[] = [];
  const out: { limit: number | null; offset: number } = { limit: null, offset: 0 };
  for (const key of ["limit", "offset"] as const) {
    const values = raw.getAll(key);
    rest.delete(key);
    if (values.length === 0) continue;
    if (values.length > 1) {
      problems.push({ param: key, value: shown(values.join(",")), message: "given more than once" });
      continue;
    }
    // Decimal digits only: Number() would also take 1e3, 0x10, 0b11 and " 5".
    const r = /^\d{1,7}$/.test(values[0]!)
      ? pageParamSchemas[key].safeParse(values[0])
      : ({ success: false } as const);
    if (r.success) out[key] = r.data;
    else
      problems.push({
        param: key,
        value: shown(values[0]!),
        message: key === "limit" ? "must be a whole number from 1 to 100000" : "must be a whole number ≥ 0",
      });
  }
  return { page: out, rest, problems };
}

/** Rows per page of the fleet page: the browser gets one page of the matching rows, never the whole fleet. */
export const PAGE_SIZE = 100;

/** The fleet page's `page` parameter (1-based); the read API pages with `limit` and `offset` instead. */
export const pageNumberSchema = z.coerce
  .number()
  .int()
  .min(1)
  .max(100_000)
  .describe("Page of the matching rows, 1-based, PAGE_SIZE rows each (default 1).");

/** Splits the page's `page` parameter off the parameters; the rest is for parseFleetQuery. */
export function parsePageNumber(raw: RawParams): {
  page: number;
  rest: Record<string, string[]>;
  problems: ParamProblem[];
} {
  const rest: Record<string, string[]> = {};
  const problems: ParamProblem[] = [];
  let page = 1;
  for (const [key, values] of entries(raw)) {
    if (key !== "page") {
      rest[key] = values;
      continue;
    }
    if (values.length !== 1) {
      problems.push({ param: key, value: shown(values.join(",")), message: "given more than once" });
      continue;
    }
    // Decimal digits only, as for limit and offset.
    const r = /^\d{1,6}$/.test(values[0]!)
      ? pageNumberSchema.safeParse(values[0])
      : ({ success: false } as const);
    if (r.success) page = r.data;
    else
      problems.push({
        param: key,
        value: shown(values[0]!),
        message: "must be a whole number from 1 to 100000",
      });
  }
  return { page, rest, problems };
}

/** Where page `page` (1-based) of `count` matching rows starts and ends; a page past the end is the last. */
export function pageBounds(
  count: number,
  page: number,
  size: number = PAGE_SIZE,
): { page: number; pages: number; offset: number; end: number } {
  const pages = Math.max(1, Math.ceil(count / size));
  const p = Math.min(Math.max(1, Math.floor(page)), pages);
  const offset = (p - 1) * size;
  return { page: p, pages, offset, end: Math.min(count, offset + size) };
}

/**
 * Parses search parameters. Never throws: a bad or unknown parameter becomes a problem (shown to the
 * user or returned as a 400) and the rest of the query still applies.
 */
export function parseFleetQuery(raw: RawParams): { query: FleetQuery; problems: ParamProblem[] } {
  const problems: ParamProblem[] = [];
  const out: { -readonly [K in keyof FleetQuery]: FleetQuery[K] } = { ...DEFAULT_QUERY };
  let dirGiven = false;
  for (const [key, values] of entries(raw)) {
    if (!(FLEET_PARAMS as string[]).includes(key)) {
      problems.push({
        param: key,
        value: shown(values.join(",")),
        message: `unknown parameter (known: ${FLEET_PARAMS.join(", ")})`,
      });
      continue;
    }
    const param = key as FleetParam;
    if (values.length !== 1) {
      problems.push({ param, value: shown(values.join(",")), message: "given more than once" });
      continue;
    }
    const value = values[0]!;
    const r = fleetParamSchemas[param].safeParse(value);
    if (!r.success) {
      const issue = r.error.issues[0];
      const message =
        issue?.code === "invalid_value"
          ? `must be one of ${(issue.values as unknown[]).map(String).join(", ")}`
          : (issue?.message ?? "invalid");
      problems.push({ param, value: shown(value), message });
      continue;
    }
    const v = r.data as string;
    if (param === "q") out.q = v;
    else if (param === "dir") {
      out.dir = v as SortDir;
      dirGiven = true;
    } else if (param === "sort") out.sort = v as SortKey;
    else (out as Record<string, unknown>)[param] = v;
  }
  if (!dirGiven) out.dir = DEFAULT_DIR[out.sort];
  return { query: out, problems };
}

/** Search parameters for a query, leaving out defaults (so the plain URL is the default view). */
export function fleetQueryToParams(q: FleetQuery): URLSearchParams {
  const p = new URLSearchParams();
  if (q.q) p.set("q", q.q);
  if (q.cluster) p.set("cluster", q.cluster);
  if (q.flavor) p.set("flavor", q.flavor);
  if (q.verdict) p.set("verdict", q.verdict);
  if (q.gate) p.set("gate", q.gate);
  if (q.only) p.set("only", q.only);
  if (q.sort !== DEFAULT_QUERY.sort) p.set("sort", q.sort);
  if (q.dir !== DEFAULT_DIR[q.sort]) p.set("dir", q.dir);
  if (q.range) p.set("range", q.range);
  if (q.trend !== DEFAULT_QUERY.trend) p.set("trend", q.trend);
  return p;
}

const VERDICT_ORDER: Readonly<Record<string, number>> = {
  "write-bound": 0,
  likely: 1,
  unknown: 2,
  "not-write-bound": 3,
};
const GATE_ORDER: Readonly<Record<string, number>> = { verified: 0, unverified: 1, unsafe: 2 };

/** Sort value of a row; null sorts last whatever the direction. */
function sortValue(row: TableRow, key: SortKey): string | number | null {
  switch (key) {
    case "rank":
      return row.rank;
    case "instance":
      return row.instance;
    case "cluster":
      return row.cluster;
    case "server":
      return `${row.flavor} ${row.version}`;
    case "role":
      return row.role;
    case "doublewrite":
      return row.doublewrite;
    case "gate":
      return GATE_ORDER[row.gate.status] ?? null;
    case "verdict":
      // Within a verdict, the more confident first.
      return (VERDICT_ORDER[row.verdict] ?? 9) * 10 + (1 - row.confidence);
    case "confidence":
      return row.confidence;
    case "amplification":
      return row.amplification;
    case "share":
      return row.dblwrShare;
    case "gain":
      return row.gain ? row.benefit : null;
  }
}

const collator = new Intl.Collator("en", { numeric: true, sensitivity: "base" });

function compare(a: string | number, b: string | number): number {
  if (typeof a === "number" && typeof b === "number") return a - b;
  return collator.compare(String(a), String(b));
}

export function matchesText(row: TableRow, needle: string): boolean {
  if (!needle) return true;
  const n = needle.toLowerCase();
  return (
    row.instance.toLowerCase().includes(n) ||
    (row.cluster?.toLowerCase().includes(n) ?? false) ||
    (row.role?.includes(n) ?? false) ||
    `${row.flavor} ${row.version}`.toLowerCase().includes(n)
  );
}

export function matchesOnly(row: TableRow, only: Only): boolean {
  if (only === "can-drop") return row.canDropDoublewrite;
  if (only === "waiting-for-gate") return row.waitingForGate;
  return row.worstSeverity === "critical" || row.worstSeverity === "error";
}

/** Filters and sorts rows; ties keep the ranking order, so the result is stable. */
export function applyFleetQuery<R extends TableRow>(rows: readonly R[], q: FleetQuery): R[] {
  const kept = rows.filter(
    (r) =>
      (q.cluster === null || r.cluster === q.cluster) &&
      (q.flavor === null || r.flavor === q.flavor) &&
      (q.verdict === null || r.verdict === q.verdict) &&
      (q.gate === null || r.gate.status === q.gate) &&
      (q.only === null || matchesOnly(r, q.only)) &&
      matchesText(r, q.q),
  );
  const sign = q.dir === "asc" ? 1 : -1;
  const keyed = kept.map((row) => ({ row, v: sortValue(row, q.sort) }));
  keyed.sort((a, b) => {
    if (a.v === null || b.v === null) {
      if (a.v === b.v) return a.row.rank - b.row.rank;
      return a.v === null ? 1 : -1;
    }
    return sign * compare(a.v, b.v) || a.row.rank - b.row.rank;
  });
  return keyed.map((k) => k.row);
}
