/**
 * Saved fleet views: a name and the fleet page's URL parameters (filters, sort, range), kept in the
 * browser's localStorage (components/saved-filters.tsx; docs/web.md says why not the store). What is
 * read back is parsed with zod: a value another version or a person wrote that does not fit is dropped.
 */
import { z } from "zod";
import { fleetQueryToParams, parseFleetQuery } from "./fleet-query.js";

export const SAVED_FILTERS_KEY = "untorn:fleet-saved-filters";
export const MAX_SAVED = 20;

const savedSchema = z.array(
  z.object({ name: z.string().trim().min(1).max(60), params: z.string().max(1000) }).strict(),
);
export type SavedFilter = z.infer<typeof savedSchema>[number];

/** The saved views in `raw` (localStorage's text), [] for nothing or anything unreadable. */
export function readSaved(raw: string | null): SavedFilter[] {
  if (!raw) return [];
  try {
    const r = savedSchema.safeParse(JSON.parse(raw));
    return r.success ? r.data.slice(0, MAX_SAVED) : [];
  } catch {
    return [];
  }
}

/**
 * The fleet parameters worth saving from a URL's: only the valid fleet parameters (no page), in the
 * canonical order, so two equal views save equal text.
 */
export function savedParams(search: string): string {
  return fleetQueryToParams(parseFleetQuery(new URLSearchParams(search)).query).toString();
}

/** `list` with `name` saved as `params`: a view of that name is replaced, the newest first, at most MAX_SAVED. */
export function addSaved(list: readonly SavedFilter[], name: string, params: string): SavedFilter[] {
  const n = name.trim().slice(0, 60);
  if (!n) return [...list];
  return [{ name: n, params }, ...list.filter((s) => s.name !== n)].slice(0, MAX_SAVED);
}

export function removeSaved(list: readonly SavedFilter[], name: string): SavedFilter[] {
  return list.filter((s) => s.name !== name);
}
