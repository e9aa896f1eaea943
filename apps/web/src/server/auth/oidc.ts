import "server-only";
/**
 * UNTORN_AUTH=oidc: sign-in with an OpenID Connect provider through openid-client (panva), the
 * authorization code flow with PKCE (S256), state and nonce. The flow's secrets wait in a short-lived
 * HttpOnly cookie scoped to /api/auth/oidc; the callback checks them, maps the groups claim to a role
 * (UNTORN_ROLE_MAP) and starts the same store session a local sign-in does.
 */
import * as client from "openid-client";
import { z } from "zod";
import type { Env } from "../../env.js";
import { roleFor } from "../../lib/role-map.js";
import { getStore } from "../store.js";
import { AccessError, sha256 } from "./access.js";
import { externalUser } from "./external-users.js";
import { randomToken } from "./password.js";

export const OIDC_COOKIE = "untorn_oidc";
export const OIDC_PATH = "/api/auth/oidc";
export const CALLBACK_PATH = `${OIDC_PATH}/callback`;
/** How long a started sign-in may take at the provider. */
const FLOW_SECONDS = 600;

/** A sign-in refused: said on the sign-in page, and logged. */
export class OidcError extends Error {
  override name = "OidcError";
}

/**
 * Per module, not on globalThis: Next bundles openid-client into the instrumentation hook and the routes
 * separately, and a Configuration made by one copy is refused by the other's instanceof check.
 */
const holder: { config?: Promise<client.Configuration> } = {};

/** The provider's configuration (discovery), read once; a failed read is retried on the next sign-in. */
export async function oidcConfig(e: Env): Promise<client.Configuration> {
  const issuer = new URL(e.UNTORN_OIDC_ISSUER!);
  holder.config ??= client.discovery(
    issuer,
    e.UNTORN_OIDC_CLIENT_ID!,
    undefined,
    client.ClientSecretBasic(e.UNTORN_OIDC_CLIENT_SECRET!),
    // env.ts allows http:// for a loopback issuer only.
    { timeout: 10, ...(issuer.protocol === "http:" ? { execute: [client.allowInsecureRequests] } : {}) },
  );
  try {
    return await holder.config;
  } catch (err) {
    holder.config = undefined;
    throw new OidcError(
      `cannot read the identity provider's configuration at ${issuer.href}: ${(err as Error).message}`,
    );
  }
}

export const redirectUri = (e: Env) => `${e.UNTORN_PUBLIC_URL}${CALLBACK_PATH}`;

const flowSchema = z
  .object({
    verifier: z.string().min(43).max(128),
    state: z.string().min(1).max(200),
    nonce: z.string().min(1).max(200),
    next: z.string().max(2000),
  })
  .strict();
type Flow = z.infer<typeof flowSchema>;

const cookieAttrs = (secure: boolean, maxAge: number) =>
  [`Path=${OIDC_PATH}`, "HttpOnly", "SameSite=Lax", `Max-Age=${maxAge}`, ...(secure ? ["Secure"] : [])].join(
    "; ",
  );

/** The flow cookie's Set-Cookie value that forgets it (the callback always sends it). */
export const clearFlowCookie = (secure: boolean) => `${OIDC_COOKIE}=; ${cookieAttrs(secure, 0)}`;

/** Starts a sign-in: the provider's authorization URL and the flow cookie to set. */
export async function startSignIn(
  e: Env,
  next: string,
  secure: boolean,
): Promise<{ url: URL; cookie: string }> {
  const config = await oidcConfig(e);
  const flow: Flow = {
    verifier: client.randomPKCECodeVerifier(),
    state: client.randomState(),
    nonce: client.randomNonce(),
    next,
  };
  const url = client.buildAuthorizationUrl(config, {
    redirect_uri: redirectUri(e),
    scope: e.UNTORN_OIDC_SCOPES,
    code_challenge: await client.calculatePKCECodeChallenge(flow.verifier),
    code_challenge_method: "S256",
    state: flow.state,
    nonce: flow.nonce,
  });
  const value = Buffer.from(JSON.stringify(flow), "utf8").toString("base64url");
  return { url, cookie: `${OIDC_COOKIE}=${value}; ${cookieAttrs(secure, FLOW_SECONDS)}` };
}

function readFlow(cookie: string | undefined): Flow {
  if (!cookie)
    throw new OidcError(
      "no sign-in was started from this browser, or it took over 10 minutes: start again from the sign-in page",
    );
  let json: unknown;
  try {
    json = JSON.parse(Buffer.from(cookie, "base64url").toString("utf8"));
  } catch {
    throw new OidcError("the sign-in cookie is malformed: start again from the sign-in page");
  }
  const r = flowSchema.safeParse(json);
  if (!r.success) throw new OidcError("the sign-in cookie is malformed: start again from the sign-in page");
  return r.data;
}

/** A claim as a list of strings: an array of strings, or one string; anything else is no groups. */
function groupsOf(value: unknown): string[] | undefined {
  if (typeof value === "string") return [value];
  if (Array.isArray(value) && value.every((g) => typeof g === "string")) return value as string[];
  return undefined;
}

export interface SignedIn {
  readonly cookie: string;
  readonly maxAge: number;
  readonly username: string;
  readonly next: string;
}

/**
 * Finishes a sign-in at the callback: the code is exchanged (PKCE verifier), the ID token checked
 * (signature, issuer, audience, nonce) by openid-client, state compared; OidcError says why not.
 */
export async function finishSignIn(
  e: Env,
  callbackSearch: string,
  flowCookie: string | undefined,
): Promise<SignedIn> {
  const flow = readFlow(flowCookie);
  const config = await oidcConfig(e);
  // The URL the provider sent the browser to: what the console is reached as, not what it listens on.
  const current = new URL(`${CALLBACK_PATH}${callbackSearch}`, e.UNTORN_PUBLIC_URL);
  let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
  try {
    tokens = await client.authorizationCodeGrant(config, current, {
      pkceCodeVerifier: flow.verifier,
      expectedState: flow.state,
      expectedNonce: flow.nonce,
      idTokenExpected: true,
    });
  } catch (err) {
    const e2 = err as Error & { error?: string; error_description?: string; cause?: unknown };
    // openid-client's "invalid response encountered" says what was wrong in its cause.
    const cause = e2.cause instanceof Error ? `: ${e2.cause.message}` : "";
    const why = e2.error
      ? `${e2.error}${e2.error_description ? `: ${e2.error_description}` : ""}`
      : `${e2.message}${cause}`;
    throw new OidcError(`the identity provider's answer was refused (${why.slice(0, 300)})`);
  }
  const idClaims = tokens.claims();
  if (!idClaims) throw new OidcError("the identity provider sent no ID token");
  const claims: Record<string, unknown> = { ...idClaims };
  const usernameClaim = e.UNTORN_OIDC_USERNAME_CLAIM;
  const groupsClaim = e.UNTORN_OIDC_GROUPS_CLAIM;
  // Many providers put profile claims in userinfo only (the ID token of a code flow stays small).
  if ((claims[usernameClaim] === undefined || claims[groupsClaim] === undefined) && tokens.access_token) {
    try {
      const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub);
      for (const [k, v] of Object.entries(info)) claims[k] ??= v;
    } catch (err) {
      throw new OidcError(
        `cannot read the user's claims from the identity provider: ${(err as Error).message}`,
      );
    }
  }
  const username = claims[usernameClaim];
  if (typeof username !== "string" || !username)
    throw new OidcError(
      `the identity provider sent no "${usernameClaim}" claim (UNTORN_OIDC_USERNAME_CLAIM)`,
    );
  const groups = groupsOf(claims[groupsClaim]) ?? [];
  const role = roleFor(e.UNTORN_ROLE_MAP ?? new Map(), groups);
  if (!role)
    throw new OidcError(
      `${username}'s groups (${groups.join(", ").slice(0, 300) || `no "${groupsClaim}" claim`}) map to no role in UNTORN_ROLE_MAP`,
    );
  const user = await externalUser(e, username, role, "oidc").catch((err: unknown) => {
    throw err instanceof AccessError ? new OidcError(err.message) : err;
  });
  const cookie = randomToken();
  const maxAge = e.UNTORN_SESSION_SECONDS;
  const store = await getStore(e);
  await store.createSession({
    idHash: sha256(cookie),
    userId: user.id,
    expiresAt: new Date(Date.now() + maxAge * 1000),
  });
  await store.deleteExpiredSessions().catch(() => 0);
  return { cookie, maxAge, username: user.username, next: flow.next };
}

/** The provider's sign-out page, when it advertises end_session_endpoint; null otherwise or when unreachable. */
export async function endSessionUrl(e: Env): Promise<string | null> {
  try {
    const config = await oidcConfig(e);
    if (!config.serverMetadata().end_session_endpoint) return null;
    return client
      .buildEndSessionUrl(config, { post_logout_redirect_uri: `${e.UNTORN_PUBLIC_URL}/login?signedOut=1` })
      .toString();
  } catch {
    return null;
  }
}
