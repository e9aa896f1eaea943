/** Per-request memoised reads, so sibling Suspense sections share one fleet read. */
import "server-only";
import { cache } from "react";
import type { FleetRow } from "../lib/fleet-row.js";
import { type EncodedRow, encodeRows } from "../lib/table-rows.js";
import { getFleetView, getInstance } from "./data.js";

export const fleetView = cache(getFleetView);
export const instanceLookup = cache(getInstance);

const encoded = new WeakMap<readonly FleetRow[], EncodedRow[]>();

/** The table's compact rows, encoded once per snapshot (rows arrays are never mutated). */
export function tableRows(rows: readonly FleetRow[]): EncodedRow[] {
  let e = encoded.get(rows);
  if (!e) {
    e = encodeRows(rows);
    encoded.set(rows, e);
  }
  return e;
}
