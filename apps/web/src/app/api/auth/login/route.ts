import { z } from "zod";
import { env } from "../../../../env.js";
import { clientAddress, route } from "../../../../server/auth/access.js";
import { isHttps, safeNext, sessionCookie, signIn } from "../../../../server/auth/auth.js";
import { jsonError, methodNotAllowed } from "../../../../server/http.js";

export const dynamic = "force-dynamic";

const form = z.object({
  username: z.string().trim().min(1, "username is required").max(100),
  password: z.string().min(1, "password is required").max(1000),
  next: z.string().max(2000).optional(),
});

const back = (req: Request, params: Record<string, string>) => {
  const u = new URL("/login", req.url);
  for (const [k, v] of Object.entries(params)) u.searchParams.set(k, v);
  return new Response(null, {
    status: 303,
    headers: { location: u.pathname + u.search, "cache-control": "no-store" },
  });
};

/** POST /api/auth/login (form): signs in, sets the session cookie and goes to `next`. */
export const POST = route("POST /api/auth/login", async (req) => {
  const e = env();
  if (e.UNTORN_AUTH !== "local")
    return jsonError(404, `password sign-in is off (UNTORN_AUTH=${e.UNTORN_AUTH})`);
  let data: FormData;
  try {
    data = await req.formData();
  } catch {
    return jsonError(
      400,
      "send the sign-in as a form (application/x-www-form-urlencoded or multipart/form-data)",
    );
  }
  const parsed = form.safeParse(
    Object.fromEntries([...data.entries()].filter(([, v]) => typeof v === "string")),
  );
  const next = safeNext(data.get("next"));
  if (!parsed.success) return back(req, { error: parsed.error.issues[0]?.message ?? "bad form", next });
  let r: Awaited<ReturnType<typeof signIn>>;
  try {
    r = await signIn(e, parsed.data.username, parsed.data.password, clientAddress(req.headers));
  } catch (err) {
    // The reason names server paths: it goes to the log, not to someone not yet signed in.
    console.error(`untorn: sign-in failed, the store is unavailable: ${(err as Error).message}`);
    return back(req, {
      error: "Cannot sign in now: the store is unavailable (the server log says why).",
      next,
    });
  }
  if (!r.ok) return back(req, { error: r.error, next });
  return new Response(null, {
    status: 303,
    headers: {
      location: next,
      "set-cookie": sessionCookie(r.cookie, r.maxAge, isHttps(req)),
      "cache-control": "no-store",
    },
  });
});

const notAllowed = methodNotAllowed("POST");
export const GET = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
