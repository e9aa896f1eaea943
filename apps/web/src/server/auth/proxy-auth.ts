import "server-only";
/**
 * UNTORN_AUTH=proxy: an auth proxy in front of the console (oauth2-proxy, a corporate SSO gateway) signs
 * people in and names them in request headers. Those headers are believed only from the proxy's own
 * addresses (UNTORN_TRUSTED_PROXIES), checked against the TCP peer server.mjs reports; from anyone else
 * they are refused and logged, since any client can write them.
 */
import type { Env } from "../../env.js";
import { roleFor, splitGroups } from "../../lib/role-map.js";
import { peerAddress } from "../../lib/server-info.js";
import { externalUser } from "./external-users.js";
import { AccessError, type Principal } from "./principal.js";

export async function proxyPrincipal(e: Env, h: Headers): Promise<Principal | null> {
  const userHeader = e.UNTORN_PROXY_USER_HEADER;
  const groupsHeader = e.UNTORN_PROXY_GROUPS_HEADER;
  const user = h.get(userHeader);
  const groups = h.get(groupsHeader);
  if (user === null && groups === null) return null;
  const peer = peerAddress(h);
  if (!peer || !e.UNTORN_TRUSTED_PROXIES?.has(peer)) {
    console.warn(
      `untorn: refused identity headers (${userHeader}: ${JSON.stringify((user ?? "").slice(0, 100))}) from ${peer ?? "an unknown address"}, not in UNTORN_TRUSTED_PROXIES`,
    );
    throw new AccessError(
      403,
      `identity headers (${userHeader}, ${groupsHeader}) are accepted from the auth proxy only; ${peer ?? "this address"} is not in UNTORN_TRUSTED_PROXIES`,
    );
  }
  const name = (user ?? "").trim();
  if (!name) throw new AccessError(401, `the auth proxy sent ${groupsHeader} without ${userHeader}`);
  const list = splitGroups(groups);
  const role = roleFor(e.UNTORN_ROLE_MAP ?? new Map(), list);
  if (!role)
    throw new AccessError(
      403,
      `${name}'s groups (${list.join(", ").slice(0, 300) || "none"}) map to no role in UNTORN_ROLE_MAP`,
    );
  const row = await externalUser(e, name, role, "auth-proxy");
  return { name: row.username, role: row.role, via: "auth-proxy", userId: row.id };
}
