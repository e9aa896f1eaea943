/** Per-request memoised reads, so sibling Suspense sections share one fleet read. */
import "server-only";
import { cache } from "react";
import { env } from "../../env.js";
import { applyFleetQuery, type FleetQuery, fleetQueryToParams, pageBounds } from "../../lib/fleet-query.js";
import type { FleetRow } from "../../lib/fleet-row.js";
import { type EncodedRow, encodeRows } from "../../lib/table-rows.js";
import { getFleetView } from "./data.js";
import { getInstance } from "./instance.js";

/** The fleet over `range` (null: the source's default window), once per request. */
export const fleetView = cache((range: string | null = null) => getFleetView(env(), range));
export const instanceLookup = cache((instance: string, range: string | null = null) =>
  getInstance(instance, env(), range),
);

/** One page of the fleet table: the browser gets these rows only, however large the fleet. */
export interface TablePage {
  readonly rows: EncodedRow[];
  /** Rows matching the query, over all pages. */
  readonly count: number;
  /** 1-based; a page past the end is the last page. */
  readonly page: number;
  readonly pages: number;
  /** Index of the page's first row among the matching rows. */
  readonly offset: number;
  /** The page's instances, in row order (for what is read per page, e.g. the sparklines). */
  readonly instances: readonly string[];
}

/** Matching rows per snapshot rows and query (rows arrays are never mutated): paging re-sorts nothing. */
const matching = new WeakMap<readonly FleetRow[], Map<string, FleetRow[]>>();
const QUERIES_PER_SNAPSHOT = 8;

function matchingRows(rows: readonly FleetRow[], query: FleetQuery): FleetRow[] {
  let byQuery = matching.get(rows);
  if (!byQuery) {
    byQuery = new Map();
    matching.set(rows, byQuery);
  }
  const key = fleetQueryToParams(query).toString();
  let m = byQuery.get(key);
  if (!m) {
    m = applyFleetQuery(rows, query);
    if (byQuery.size >= QUERIES_PER_SNAPSHOT) byQuery.delete(byQuery.keys().next().value!);
  } else byQuery.delete(key);
  byQuery.set(key, m);
  return m;
}

export function tablePage(rows: readonly FleetRow[], query: FleetQuery, page: number): TablePage {
  const all = matchingRows(rows, query);
  const b = pageBounds(all.length, page);
  const shown = all.slice(b.offset, b.end);
  return {
    rows: encodeRows(shown),
    instances: shown.map((r) => r.instance),
    count: all.length,
    page: b.page,
    pages: b.pages,
    offset: b.offset,
  };
}

const clusterLists = new WeakMap<readonly FleetRow[], string[]>();

/** The fleet's clusters, sorted, once per snapshot. */
export function clustersOf(rows: readonly FleetRow[]): readonly string[] {
  let c = clusterLists.get(rows);
  if (!c) {
    c = [...new Set(rows.map((r) => r.cluster).filter((x): x is string => x !== null))].sort();
    clusterLists.set(rows, c);
  }
  return c;
}
