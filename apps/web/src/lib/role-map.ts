/**
 * Groups to roles, for the auth proxy's group header and the OIDC groups claim (UNTORN_ROLE_MAP):
 * `group=role` entries separated by commas, `*` for everyone the proxy or the provider signed in.
 * A user gets the strongest role any of their groups maps to; a user none maps to (and no `*`) is refused.
 *
 *   UNTORN_ROLE_MAP="dba-admins=admin, dbas=operator, *=viewer"
 *
 * Group names are compared exactly (case and all). A group name may hold `=` (the last `=` splits it
 * from the role: `cn=dbas=operator`), never a comma: the proxies join groups with commas.
 */
import { allows, ROLES, type Role } from "./permissions.js";

export type RoleMap = ReadonlyMap<string, Role>;

/** The catch-all entry's group. */
export const ANY_GROUP = "*";

export type RoleMapParse = { ok: true; map: RoleMap } | { ok: false; error: string };

export function parseRoleMap(text: string): RoleMapParse {
  const map = new Map<string, Role>();
  const entries = text
    .split(",")
    .map((e) => e.trim())
    .filter(Boolean);
  if (entries.length === 0) return { ok: false, error: "lists no group=role entry" };
  for (const entry of entries) {
    const eq = entry.lastIndexOf("=");
    if (eq < 0) return { ok: false, error: `"${entry.slice(0, 100)}" is not group=role` };
    const group = entry.slice(0, eq).trim();
    const role = entry.slice(eq + 1).trim();
    if (!group) return { ok: false, error: `"${entry.slice(0, 100)}" names no group` };
    if (group.length > 200)
      return { ok: false, error: `group "${group.slice(0, 40)}…" is over 200 characters` };
    if (!(ROLES as readonly string[]).includes(role))
      return {
        ok: false,
        error: `"${entry.slice(0, 100)}": role "${role.slice(0, 40)}" is not one of ${ROLES.join(", ")}`,
      };
    if (map.has(group)) return { ok: false, error: `group "${group.slice(0, 100)}" is mapped twice` };
    map.set(group, role as Role);
  }
  return { ok: true, map };
}

/** The strongest role `groups` map to (the `*` entry counts for everyone), or null for none. */
export function roleFor(map: RoleMap, groups: readonly string[]): Role | null {
  let best: Role | null = map.get(ANY_GROUP) ?? null;
  for (const g of groups) {
    const r = map.get(g);
    if (r && (best === null || allows(r, best))) best = r;
  }
  return best;
}

/** A groups header (`a, b,c`) as a list: trimmed, empty entries dropped. */
export const splitGroups = (header: string | null | undefined): string[] =>
  (header ?? "")
    .split(",")
    .map((g) => g.trim())
    .filter(Boolean);
