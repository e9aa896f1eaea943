import { env } from "../../../../env.js";
import { route } from "../../../../server/auth/access.js";
import { isHttps, sessionCookie } from "../../../../server/auth/auth.js";
import { methodNotAllowed } from "../../../../server/http.js";
import { getStore } from "../../../../server/store.js";

export const dynamic = "force-dynamic";

/** POST /api/auth/logout: ends the session in the store and clears the cookie. */
export const POST = route("POST /api/auth/logout", async (req, who) => {
  if (who?.sessionHash) await (await getStore(env())).deleteSession(who.sessionHash);
  return new Response(null, {
    status: 303,
    headers: {
      location: "/login?signedOut=1",
      "set-cookie": sessionCookie("", 0, isHttps(req)),
      "cache-control": "no-store",
    },
  });
});

const notAllowed = methodNotAllowed("POST");
export const GET = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
