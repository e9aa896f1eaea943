import "server-only";
/**
 * Accounts of people signed in elsewhere (UNTORN_AUTH=proxy or oidc): a row in the store's users table,
 * made on first sign-in, so sessions, API tokens, the audit log and disabling work as for local accounts.
 * The role follows the groups on every sign-in (proxy: every request); a change is audited. Such an
 * account has no password (`!external:<source>`, which no password verifies), and a local account of
 * the same name is never taken over.
 */
import type { User } from "@untorn/store/schema";
import type { Env } from "../../env.js";
import type { Role } from "../../lib/permissions.js";
import { getStore } from "../store.js";
import { AccessError } from "./principal.js";

export type ExternalSource = "oidc" | "auth-proxy";

const NO_PASSWORD = (source: ExternalSource) => `!external:${source}`;
const isExternal = (u: User) => u.passwordHash.startsWith("!external:");

/** Letters, digits and `._@-`, as the store's usernames (packages/store validation). */
export const USERNAME = /^[A-Za-z0-9._@-]{1,100}$/;

/** The store's row for `username`, created or brought to `role`; AccessError(403) when it may not sign in. */
export async function externalUser(
  e: Env,
  username: string,
  role: Role,
  source: ExternalSource,
): Promise<User> {
  if (!USERNAME.test(username))
    throw new AccessError(
      403,
      `the user name "${username.slice(0, 100)}" from ${source} is not usable here (letters, digits and . _ @ - only, at most 100)`,
    );
  const store = await getStore(e);
  let user = await store.getUserByName(username);
  if (!user) {
    try {
      user = await store.createUser({
        username,
        passwordHash: NO_PASSWORD(source),
        role,
        actor: `${source} sign-in`,
      });
    } catch (err) {
      if ((err as { constraint?: string }).constraint?.startsWith("users_username_") !== true) throw err;
      // Another request (or console) created it first.
      user = await store.getUserByName(username);
      if (!user) throw err;
    }
  }
  if (!isExternal(user))
    throw new AccessError(
      403,
      `"${username}" is a local account of this console: a sign-in through ${source} cannot use it (rename one of them)`,
    );
  if (user.disabledAt) throw new AccessError(403, `the account "${username}" is disabled on this console`);
  if (user.role !== role)
    user = await store.updateUser({ id: user.id, role, actor: `${source} sign-in (groups changed)` });
  return user;
}
