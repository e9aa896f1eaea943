/**
 * Who may do what: every Server Action, route handler and page with the weakest role that may use it.
 * The one list the server checks (server/auth/access.ts) and the table test walks
 * (server/auth/permissions.test.ts): an action, route or page missing here fails that test. Adding one is
 * one line.
 */
import { ACCESS_ROLES, type AccessRole } from "@untorn/vocabulary/words";

/** The vocabulary's access roles, weakest first. */
export const ROLES = ACCESS_ROLES;
export type Role = AccessRole;
/** `anonymous` = no sign-in needed (the sign-in itself). */
export type Required = Role | "anonymous";

const RANK: Record<Required, number> = { anonymous: 0, viewer: 1, operator: 2, admin: 3 };

/** True when `role` (null = not signed in) may do what needs `required`. */
export function allows(role: Role | null, required: Required): boolean {
  return RANK[role ?? "anonymous"] >= RANK[required];
}

/** Server Actions (server/actions.ts, server/rollouts/rollout-actions.ts), by exported name. */
export const ACTIONS = {
  saveInstanceMetadata: "operator",
  createRollout: "operator",
  markStepDone: "operator",
  markRevertDone: "operator",
  approveWave: "operator",
  attestBackup: "operator",
  pauseRollout: "operator",
  resumeRollout: "operator",
  abortRollout: "operator",
  revertRollout: "operator",
  createApiToken: "viewer",
  revokeApiToken: "viewer",
  createUser: "admin",
  updateUser: "admin",
} as const satisfies Record<string, Required>;
export type ActionName = keyof typeof ACTIONS;

/** Route handlers under app/, as `METHOD /path` with the app router's [param] segments. */
export const ROUTES = {
  "GET /api/v1/health": "viewer",
  "GET /api/v1/fleet": "viewer",
  "GET /api/v1/fleet.csv": "viewer",
  "GET /api/v1/recommendations.csv": "viewer",
  "GET /metrics": "viewer",
  "GET /api/v1/instances/[id]": "viewer",
  "GET /api/v1/rollouts": "viewer",
  "GET /api/v1/rollouts/[id]": "viewer",
  "GET /api/v1/rollouts/[id]/report": "viewer",
  "GET /api/v1/audit": "admin",
  "GET /repo-files/[...path]": "viewer",
  "POST /api/auth/login": "anonymous",
  "POST /api/auth/logout": "viewer",
  "GET /api/auth/oidc/login": "anonymous",
  "GET /api/auth/oidc/callback": "anonymous",
} as const satisfies Record<string, Required>;
export type RouteName = keyof typeof ROUTES;

/** Pages under app/, by route path. */
export const PAGES = {
  "/": "viewer",
  "/instances/[id]": "viewer",
  "/recommendations": "viewer",
  "/rollouts": "viewer",
  "/rollouts/new": "operator",
  "/rollouts/[id]": "viewer",
  "/rollouts/[id]/report": "viewer",
  "/docs": "viewer",
  "/docs/[...slug]": "viewer",
  "/login": "anonymous",
  "/account": "viewer",
  "/admin/users": "admin",
  "/admin/audit": "admin",
} as const satisfies Record<string, Required>;
export type PageName = keyof typeof PAGES;

/** Routes that accept `Authorization: Bearer` API tokens (read-only: tokens act as viewers). */
export const TOKEN_ROUTES: readonly RouteName[] = [
  "GET /api/v1/health",
  "GET /api/v1/fleet",
  "GET /api/v1/fleet.csv",
  "GET /api/v1/recommendations.csv",
  "GET /metrics",
  "GET /api/v1/instances/[id]",
  "GET /api/v1/rollouts",
  "GET /api/v1/rollouts/[id]",
  "GET /api/v1/rollouts/[id]/report",
];
