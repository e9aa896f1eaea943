/** The read API's response bodies from the data layer's views (pure; shapes in lib/api-schema.ts). */
import type { InstanceMetadata } from "@untorn/store/store";
import type { ErrorResponse, FleetResponse, InstanceResponse } from "../../lib/api-schema.js";
import {
  applyFleetQuery,
  type FleetQuery,
  type PageQuery,
  type ParamProblem,
} from "../../lib/fleet-query.js";
import type { FleetView, SourceInfo, Status } from "./data.js";
import type { InstanceView } from "./instance.js";

const isoOf = (unixSeconds: number) => new Date(unixSeconds * 1000).toISOString();

/** The query as applied: defaults filled in, nulls left out (it parses with fleetQuerySchema). */
function appliedQuery(q: FleetQuery): FleetResponse["query"] {
  return {
    ...(q.q ? { q: q.q } : {}),
    ...(q.cluster ? { cluster: q.cluster } : {}),
    ...(q.flavor ? { flavor: q.flavor } : {}),
    ...(q.verdict ? { verdict: q.verdict } : {}),
    ...(q.gate ? { gate: q.gate } : {}),
    ...(q.only ? { only: q.only } : {}),
    sort: q.sort,
    dir: q.dir,
    ...(q.range ? { range: q.range } : {}),
  };
}

const ALL: PageQuery = { limit: null, offset: 0 };

export function fleetResponse(
  view: FleetView,
  query: FleetQuery,
  page: PageQuery = ALL,
): FleetResponse | null {
  const s = view.snapshot;
  if (!s) return null;
  const matching = applyFleetQuery(view.rows, query);
  const instances = matching.slice(page.offset, page.limit === null ? undefined : page.offset + page.limit);
  return {
    source: view.source,
    status: view.status,
    at: isoOf(s.at),
    window: s.window,
    rangeNote: view.range?.note ?? null,
    query: appliedQuery(query),
    summary: s.summary,
    total: view.rows.length,
    count: matching.length,
    offset: page.offset,
    limit: page.limit,
    instances,
    skipped: s.skipped.map((x) => ({ instance: x.instance, reason: x.reason })),
    warnings: [...s.warnings],
    timing: {
      fetchMs: Math.round(s.fetchMs * 10) / 10,
      adviseMs: Math.round(s.adviseMs * 10) / 10,
      queries: s.queries,
      fetchedAt: new Date(s.fetchedAt).toISOString(),
    },
  };
}

function metadataBody(m: InstanceMetadata | null): InstanceResponse["metadata"] {
  if (!m) return null;
  return {
    cluster: m.cluster,
    role: m.role,
    notes: m.notes,
    storageClass: m.storageClass,
    managedService: m.managedService,
    storageFacts: m.storageFacts as Record<string, unknown>,
    updatedAt: new Date(m.updatedAt).toISOString(),
    updatedBy: m.updatedBy,
  };
}

export function instanceResponse(v: InstanceView): InstanceResponse {
  const a = v.advice;
  return {
    source: v.source,
    status: v.status,
    instance: v.instance,
    at: isoOf(v.at),
    window: v.window,
    row: v.row,
    facts: v.facts,
    // The advisor's readonly types; api-schema.test.ts checks the shapes against the schema.
    advice: {
      verdict: a.verdict,
      safetyGate: a.safetyGate,
      findings: a.findings,
      warnings: a.warnings,
      profile: a.profile,
    } as unknown as InstanceResponse["advice"],
    metadata: metadataBody(v.metadata),
    declared: [...v.declared],
    conflicts: [...v.conflicts],
    missing: [...v.missing],
    exporters: v.exporters,
  };
}

/** 503 body when there is nothing to serve: no source configured, or the source failed with no snapshot. */
export function unavailable(source: SourceInfo, status: Status): { code: 503; body: ErrorResponse } {
  const error =
    status.state === "no-source"
      ? `no data source: ${source.kind === "none" ? source.reason : "none configured"} (set PROMETHEUS_URL or UNTORN_REPLAY)`
      : `the data source is unavailable: ${status.error ?? "unknown error"}`;
  return { code: 503, body: { error, source, status } };
}

/** A JSON answer no cache keeps. */
export const noStoreJson = (status: number, body: unknown): Response =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });

/** 400 naming every bad query parameter, or null when there is none. */
export function badQuery(problems: readonly ParamProblem[]): Response | null {
  if (problems.length === 0) return null;
  return noStoreJson(400, {
    error: `bad query parameters: ${problems.map((p) => `${p.param} ${p.message}`).join("; ")}`,
    issues: [...problems],
  } satisfies ErrorResponse);
}

/** The 503 of a view with nothing to serve. */
export function unavailableResponse(view: Pick<FleetView, "source" | "status">): Response {
  const u = unavailable(view.source, view.status);
  return noStoreJson(u.code, u.body);
}

const bodies = new WeakMap<readonly unknown[], Map<string, string>>();
const BODIES_PER_SNAPSHOT = 16;

/**
 * The serialised fleet response, memoised per snapshot rows and query: a snapshot never changes, so
 * automation polling the same URL costs one JSON.stringify per snapshot (10,000 rows are ~6 MB).
 */
export function fleetResponseJson(view: FleetView, query: FleetQuery, page: PageQuery = ALL): string | null {
  if (!view.snapshot) return null;
  let byKey = bodies.get(view.rows);
  if (!byKey) {
    byKey = new Map();
    bodies.set(view.rows, byKey);
  }
  const key = JSON.stringify([view.status, query, page]);
  let body = byKey.get(key);
  if (body === undefined) {
    body = JSON.stringify(fleetResponse(view, query, page));
    if (byKey.size >= BODIES_PER_SNAPSHOT) byKey.delete(byKey.keys().next().value!);
    byKey.set(key, body);
  }
  return body;
}
