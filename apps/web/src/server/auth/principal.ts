/**
 * Who a request acts as, how that is written in the audit log, and the error a refused credential
 * raises. Its own module so the sign-in modes (proxy-auth.ts, external-users.ts) and access.ts share
 * it without importing each other in a cycle.
 */
import type { Role } from "../../lib/permissions.js";

export interface Principal {
  /** Username, or `viewer-token` for UNTORN_VIEWER_TOKEN. */
  readonly name: string;
  readonly role: Role;
  readonly via: "session" | "api-token" | "viewer-token" | "auth-proxy";
  readonly userId?: string;
  /** sha256 of the session cookie (logout deletes it). */
  readonly sessionHash?: string;
}

/** How a principal is written in the audit log and `updatedBy`. */
export const actorOf = (p: Principal) => `${p.name} (${p.role})`;

export class AccessError extends Error {
  override name = "AccessError";
  constructor(
    readonly status: 401 | 403 | 429,
    message: string,
    /** Seconds, with 429. */
    readonly retryAfter?: number,
  ) {
    super(message);
  }
}
