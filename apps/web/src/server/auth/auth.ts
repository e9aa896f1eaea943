import "server-only";
/**
 * Local accounts (UNTORN_AUTH=local): the first-run admin, password sign-in with throttling, and
 * sessions: a random 256-bit cookie value, stored only as its sha256 with an expiry, so the database
 * decides (logout, expiry, a disabled user end a session on every console at once).
 */
import { type Env, env } from "../../env.js";
import { requestProto } from "../../lib/request-checks.js";
import { getStore } from "../store.js";
import { SESSION_COOKIE, sha256 } from "./access.js";
import { DUMMY_HASH, hashPassword, randomToken, verifyPassword } from "./password.js";
import { failedCredential, reservePasswordAttempt, succeeded, throttledAttempt } from "./throttle.js";

/**
 * Creates the admin account when the store has no user. Returns the generated password when none was
 * configured (the caller prints it once), else null.
 */
export async function ensureFirstAdmin(e: Env): Promise<{ created: boolean; generated: string | null }> {
  const store = await getStore(e);
  if ((await store.countUsers()) > 0) return { created: false, generated: null };
  const generated = e.UNTORN_ADMIN_PASSWORD ? null : randomToken().slice(0, 24);
  const password = e.UNTORN_ADMIN_PASSWORD ?? generated!;
  try {
    await store.createUser({
      username: e.UNTORN_ADMIN_USER,
      passwordHash: await hashPassword(password),
      role: "admin",
      actor: "first run",
    });
  } catch (err) {
    // Another console on the same database created it first.
    if ((err as { constraint?: string }).constraint?.startsWith("users_username_") === true)
      return { created: false, generated: null };
    throw err;
  }
  return { created: true, generated };
}

export type SignIn =
  | { ok: true; cookie: string; maxAge: number; username: string }
  | { ok: false; status: 401 | 429; error: string };

export async function signIn(e: Env, username: string, password: string, address: string): Promise<SignIn> {
  const store = await getStore(e);
  // Counted before the password is checked, so parallel guesses cannot all pass a check made first.
  const reservation = await reservePasswordAttempt(store, username, address);
  if (!reservation.ok) {
    throttledAttempt("password", address, username);
    return {
      ok: false,
      status: 429,
      error: `Too many failed sign-ins: try again in ${Math.ceil(reservation.wait / 60)} min.`,
    };
  }
  const user = await store.getUserByName(username);
  // Verify even for an unknown user, so the answer takes as long either way.
  const good = await verifyPassword(password, user?.passwordHash ?? DUMMY_HASH);
  if (!user || !good || user.disabledAt) {
    const reason = !user ? "unknown user" : !good ? "wrong password" : "disabled";
    await failedCredential(store, { kind: "password", address, account: username, reason, audit: !!user });
    return { ok: false, status: 401, error: "Wrong username or password." };
  }
  await succeeded(store, username, reservation.ids);
  const cookie = randomToken();
  const maxAge = e.UNTORN_SESSION_SECONDS;
  await store.createSession({
    idHash: sha256(cookie),
    userId: user.id,
    expiresAt: new Date(Date.now() + maxAge * 1000),
  });
  await store.deleteExpiredSessions().catch(() => 0);
  return { ok: true, cookie, maxAge, username: user.username };
}

/** The session cookie's Set-Cookie value; Secure when the request came over https. */
export function sessionCookie(value: string, maxAge: number, secure: boolean): string {
  return [
    `${SESSION_COOKIE}=${value}`,
    "Path=/",
    "HttpOnly",
    "SameSite=Lax",
    `Max-Age=${maxAge}`,
    ...(secure ? ["Secure"] : []),
  ].join("; ");
}

/** Whether the request came over https (a trusted proxy's X-Forwarded-Proto counts, no one else's). */
export const isHttps = (req: Request) =>
  requestProto(req.headers, req.url, env().UNTORN_TRUSTED_PROXIES) === "https";

/** Where to go once signed in: lib/safe-next.ts. */
export { safeNext } from "../../lib/safe-next.js";
