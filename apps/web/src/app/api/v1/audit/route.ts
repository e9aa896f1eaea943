import { z } from "zod";
import { env } from "../../../../env.js";
import { route } from "../../../../server/auth/access.js";
import { jsonError, methodNotAllowed } from "../../../../server/http.js";
import { getStore } from "../../../../server/store.js";

export const dynamic = "force-dynamic";

const digits = (max: number) =>
  z
    .string()
    .regex(/^\d{1,12}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

/** Text without control characters (PostgreSQL's text holds no NUL). */
const text = (max: number) =>
  z
    .string()
    .max(max)
    .refine((s) => !/\p{Cc}/u.test(s), "must not contain control characters");
/** An RFC 3339 time or a date (UTC midnight). */
const time = z
  .string()
  .regex(
    /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,6})?)?(Z|[+-]\d{2}:\d{2}))?$/,
    "must be a date or an RFC 3339 time",
  )
  .refine((s) => {
    // A calendar date that exists (Date would roll 2026-02-30 over into March).
    const [y, m, d] = s.slice(0, 10).split("-").map(Number) as [number, number, number];
    const day = new Date(Date.UTC(y, m - 1, d));
    return day.getUTCFullYear() === y && day.getUTCMonth() === m - 1 && day.getUTCDate() === d;
  }, "is no such date")
  .transform((s) => new Date(s.length === 10 ? `${s}T00:00:00Z` : s))
  .refine((d) => !Number.isNaN(d.getTime()), "is no such date");

const query = z
  .object({
    actor: text(200).optional(),
    action: text(100).optional(),
    entity: text(100).optional(),
    entityId: text(512).optional(),
    from: time.optional(),
    to: time.optional(),
    before: digits(Number.MAX_SAFE_INTEGER).optional(),
    limit: digits(1000).optional(),
  })
  .strict();

/** GET /api/v1/audit: the audit log, newest first, filtered (admins only). */
export const GET = route("GET /api/v1/audit", async (req) => {
  const params = new URL(req.url).searchParams;
  const raw: Record<string, string> = {};
  for (const [k, v] of params) {
    if (k in raw) return jsonError(400, `bad query parameters: ${k} given more than once`);
    raw[k] = v;
  }
  const q = query.safeParse(raw);
  if (!q.success)
    return jsonError(
      400,
      `bad query parameters: ${q.error.issues.map((i) => `${i.path.join(".") || i.message} ${i.path.length ? i.message : ""}`.trim()).join("; ")}`,
    );
  const { limit, ...filter } = q.data;
  const entries = await (await getStore(env())).listAudit({ ...filter, limit: limit ?? 100 });
  return Response.json(
    { entries: entries.map((a) => ({ ...a, at: a.at.toISOString() })) },
    { headers: { "cache-control": "no-store" } },
  );
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
