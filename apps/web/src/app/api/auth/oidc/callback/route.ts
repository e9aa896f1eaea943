import { env } from "../../../../../env.js";
import { clientAddress, cookieValue, route } from "../../../../../server/auth/access.js";
import { isHttps, sessionCookie } from "../../../../../server/auth/auth.js";
import { clearFlowCookie, finishSignIn, OIDC_COOKIE, OidcError } from "../../../../../server/auth/oidc.js";
import { jsonError, methodNotAllowed } from "../../../../../server/http.js";

export const dynamic = "force-dynamic";

/**
 * GET /api/auth/oidc/callback?code=…&state=…: where the identity provider sends the browser back. A
 * refused answer (wrong state or nonce, a replayed or forged code, a provider's error) goes back to the
 * sign-in page with the reason, and to the log; the flow cookie is forgotten either way.
 */
export const GET = route("GET /api/auth/oidc/callback", async (req) => {
  const e = env();
  if (e.UNTORN_AUTH !== "oidc") return jsonError(404, `OIDC sign-in is off (UNTORN_AUTH=${e.UNTORN_AUTH})`);
  const secure = isHttps(req) || e.UNTORN_PUBLIC_URL?.startsWith("https:") === true;
  const flow = cookieValue(req.headers.get("cookie"), OIDC_COOKIE);
  const headers = new Headers({ "cache-control": "no-store" });
  headers.append("set-cookie", clearFlowCookie(secure));
  try {
    const r = await finishSignIn(e, new URL(req.url).search, flow);
    headers.append("set-cookie", sessionCookie(r.cookie, r.maxAge, secure));
    headers.set("location", r.next);
    return new Response(null, { status: 303, headers });
  } catch (err) {
    if (!(err instanceof OidcError)) throw err;
    console.warn(`untorn: OIDC sign-in refused for ${clientAddress(req.headers)}: ${err.message}`);
    const back = new URLSearchParams({ error: `Sign-in refused: ${err.message}`.slice(0, 500) });
    headers.set("location", `/login?${back}`);
    return new Response(null, { status: 303, headers });
  }
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
