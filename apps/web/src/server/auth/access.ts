import "server-only";
/**
 * Who is asking, and may they: the one server-side check behind every Server Action (requireRole),
 * route handler (route) and page (requirePage). Roles come from lib/permissions.ts. A proxy or the UI
 * hiding a button is never the check (Next.js middleware can be bypassed: CVE-2025-29927).
 */
import { AsyncLocalStorage } from "node:async_hooks";
import { createHash, timingSafeEqual } from "node:crypto";
import { headers } from "next/headers";
import { forbidden, redirect } from "next/navigation";
import { env } from "../../env.js";
import {
  ACTIONS,
  type ActionName,
  allows,
  PAGES,
  type PageName,
  ROUTES,
  type RouteName,
  TOKEN_ROUTES,
} from "../../lib/permissions.js";
import { foreignOrigin } from "../../lib/request-checks.js";
import { peerAddress } from "../../lib/server-info.js";
import { jsonError } from "../http.js";
import { getStore } from "../store.js";
import { AccessError, actorOf, type Principal } from "./principal.js";
import { proxyPrincipal } from "./proxy-auth.js";
import { failedCredential, reserveTokenFailure, throttledAttempt } from "./throttle.js";

export { AccessError, actorOf, type Principal };

export const SESSION_COOKIE = "untorn_session";
export const sha256 = (s: string) => createHash("sha256").update(s, "utf8").digest("hex");

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();
/** Constant time whatever the lengths: compares digests. */
const sameSecret = (a: string, b: string) => timingSafeEqual(digest(a), digest(b));

const asUser = new AsyncLocalStorage<{ principal: Principal | null }>();
/**
 * Runs `fn` as `principal`, without a request (the table test calls every action this way; the checks
 * are the same ones a request goes through).
 */
export const runAs = <T>(principal: Principal | null, fn: () => Promise<T>) => asUser.run({ principal }, fn);

export function cookieValue(header: string | null, name: string): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq > 0 && part.slice(0, eq).trim() === name) return part.slice(eq + 1).trim();
  }
  return undefined;
}

/**
 * The address sign-in throttling and the logs name: the TCP peer server.mjs reports. X-Forwarded-For is
 * believed only from a configured auth proxy (UNTORN_TRUSTED_PROXIES), whose own hop is the last entry;
 * from anyone else it is what the client chose to send. Only under plain `next start`/`next dev`, which
 * report no peer, is the header the one source left.
 */
export function clientAddress(h: Headers): string {
  const forwarded = (h.get("x-forwarded-for") ?? "")
    .split(",")
    .map((hop) => hop.trim())
    .filter(Boolean);
  const peer = peerAddress(h);
  if (peer === null) return forwarded[0] || h.get("x-real-ip") || "unknown";
  if (env().UNTORN_TRUSTED_PROXIES?.has(peer)) return forwarded.at(-1) ?? peer;
  return peer;
}

/**
 * The principal behind a request's headers: a bearer token (only where `bearer`), else the session
 * cookie. Null when there is none; AccessError(401) for a bearer token that is not valid.
 */
export async function principalOf(h: Headers, opts: { bearer: boolean }): Promise<Principal | null> {
  const forced = asUser.getStore();
  if (forced) return forced.principal;
  const e = env();
  const authorization = h.get("authorization");
  // Pages and actions go by the session alone (a proxy's Basic credentials may pass through).
  if (authorization !== null && opts.bearer) {
    const m = /^Bearer\s+([\x21-\x7e]{1,1000})$/i.exec(authorization.trim());
    if (!m) throw new AccessError(401, "the Authorization header must be Bearer <API token>");
    const token = m[1]!;
    if (e.UNTORN_VIEWER_TOKEN && sameSecret(token, e.UNTORN_VIEWER_TOKEN))
      return { name: "viewer-token", role: "viewer", via: "viewer-token" };
    const store = await getStore(e);
    const found = await store.getApiTokenUser(sha256(token));
    // API tokens are read-only whoever owns them.
    if (found) return { name: found.user.username, role: "viewer", via: "api-token", userId: found.user.id };
    const address = clientAddress(h);
    const counted = await reserveTokenFailure(store, address);
    if (!counted.ok) {
      throttledAttempt("api-token", address, null);
      throw new AccessError(
        429,
        `too many bad API tokens from this address: try again in ${counted.wait} s`,
        counted.wait,
      );
    }
    await failedCredential(store, { kind: "api-token", address, account: null, reason: "unknown token" });
    throw new AccessError(401, "the API token is not valid (unknown or revoked)");
  }
  // The auth proxy names the user on every request; no session of the console's own.
  if (e.UNTORN_AUTH === "proxy") return proxyPrincipal(e, h);
  const cookie = cookieValue(h.get("cookie"), SESSION_COOKIE);
  if (!cookie) return null;
  const hash = sha256(cookie);
  const user = await (await getStore(e)).getSessionUser(hash);
  if (!user) return null;
  return { name: user.username, role: user.role, via: "session", userId: user.id, sessionHash: hash };
}

/** The signed-in principal of the current request (pages, Server Actions). */
export async function currentPrincipal(): Promise<Principal | null> {
  const forced = asUser.getStore();
  if (forced) return forced.principal;
  return principalOf(await headers(), { bearer: false });
}

/** First line of every Server Action: who is asking, or AccessError when they may not. */
export async function requireRole(action: ActionName): Promise<Principal> {
  const needed = ACTIONS[action];
  const who = await currentPrincipal();
  // A signed-in caller refused (a viewer replaying an operator's action) is an audit entry; callers
  // with no credential are not (anyone could fill the log).
  if (who && !allows(who.role, needed))
    await (await getStore(env()))
      .audit({
        actor: actorOf(who),
        action: "access.denied",
        entity: "action",
        entityId: action,
        details: { needed, role: who.role, via: who.via },
      })
      .catch((err: unknown) =>
        console.warn(`untorn: could not audit a refused ${action} by ${who.name}: ${(err as Error).message}`),
      );
  if (!who || !allows(who.role, needed))
    throw new AccessError(
      who ? 403 : 401,
      who
        ? `${action} needs the ${needed} role; ${who.name} is ${who.role}`
        : `${action} needs a signed-in ${needed}: sign in first`,
    );
  return who;
}

/**
 * Pages: the principal, a redirect to the sign-in page, or, for a role too weak, Next's forbidden()
 * (HTTP 403 with app/forbidden.tsx; a page under a loading boundary answers 200 by then, but every
 * such page needs only a viewer, which every signed-in user is).
 */
export async function requirePage(page: PageName, here: string): Promise<Principal> {
  const who = await currentPrincipal().catch((err: unknown) => {
    if (err instanceof AccessError) return null;
    throw err;
  });
  if (!who) redirect(`/login?next=${encodeURIComponent(here)}`);
  if (!allows(who.role, PAGES[page])) forbidden();
  return who;
}

/**
 * A route handler that checks the caller first: a foreign Origin on a write is 403, no or a bad
 * credential 401, a role too weak 403 (all JSON).
 */
export function route<C>(
  name: RouteName,
  handler: (req: Request, who: Principal | null, ctx: C) => Promise<Response>,
): (req: Request, ctx: C) => Promise<Response> {
  const method = name.slice(0, name.indexOf(" "));
  const needed = ROUTES[name];
  const bearer = TOKEN_ROUTES.includes(name);
  return async (req, ctx) => {
    if (method !== "GET" && method !== "HEAD") {
      const why = foreignOrigin(req.headers, env().UNTORN_TRUSTED_PROXIES);
      if (why) return jsonError(403, why);
    }
    let who: Principal | null;
    try {
      who = await principalOf(req.headers, { bearer });
    } catch (err) {
      if (err instanceof AccessError)
        return jsonError(err.status, err.message, {
          ...authenticate(bearer),
          ...(err.retryAfter ? { "retry-after": String(err.retryAfter) } : {}),
        });
      return jsonError(503, `cannot check the credentials: ${(err as Error).message}`);
    }
    if (!allows(who?.role ?? null, needed))
      return who
        ? jsonError(403, `${name} needs the ${needed} role; ${who.name} is ${who.role}`)
        : jsonError(
            401,
            `${name} needs a signed-in ${needed}${bearer ? " or an API token" : ""}`,
            authenticate(bearer),
          );
    try {
      return await handler(req, who, ctx);
    } catch (err) {
      // Input the store refused, or a record that is not there: the caller's mistake, never a 500.
      // By name: @untorn/store is loaded at run time, its classes are not this bundle's (server/store.ts).
      const name = (err as Error | undefined)?.name;
      if (name === "StoreValidationError") return jsonError(400, (err as Error).message);
      if (name === "NotFoundError") return jsonError(404, (err as Error).message);
      throw err;
    }
  };
}

const authenticate = (bearer: boolean): Record<string, string> =>
  bearer ? { "www-authenticate": 'Bearer realm="untorn"' } : {};

/**
 * True when the request is signed in with a role that may open `page` (an unknown or expired sign-in is
 * false, not an error): the not-found layouts answer 404 only to those who may know what exists.
 */
export async function mayOpen(page: PageName): Promise<boolean> {
  const who = await currentPrincipal().catch((err: unknown) => {
    if (err instanceof AccessError) return null;
    throw err;
  });
  return who !== null && allows(who.role, PAGES[page]);
}
