import { env } from "../../../../../env.js";
import { route } from "../../../../../server/auth/access.js";
import { isHttps, safeNext } from "../../../../../server/auth/auth.js";
import { OidcError, startSignIn } from "../../../../../server/auth/oidc.js";
import { jsonError, methodNotAllowed } from "../../../../../server/http.js";

export const dynamic = "force-dynamic";

const secure = (req: Request) => isHttps(req) || env().UNTORN_PUBLIC_URL?.startsWith("https:") === true;

/** GET /api/auth/oidc/login?next=/path: sends the browser to the identity provider (UNTORN_AUTH=oidc). */
export const GET = route("GET /api/auth/oidc/login", async (req) => {
  const e = env();
  if (e.UNTORN_AUTH !== "oidc") return jsonError(404, `OIDC sign-in is off (UNTORN_AUTH=${e.UNTORN_AUTH})`);
  const next = safeNext(new URL(req.url).searchParams.get("next"));
  try {
    const { url, cookie } = await startSignIn(e, next, secure(req));
    return new Response(null, {
      status: 303,
      headers: { location: url.href, "set-cookie": cookie, "cache-control": "no-store" },
    });
  } catch (err) {
    if (!(err instanceof OidcError)) throw err;
    console.error(`untorn: OIDC sign-in cannot start: ${err.message}`);
    return jsonError(503, err.message);
  }
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
