import { z } from "zod";
import { env } from "../../../../env.js";
import { route } from "../../../../server/access.js";
import { jsonError, methodNotAllowed } from "../../../../server/http.js";
import { getStore } from "../../../../server/store.js";

export const dynamic = "force-dynamic";

const digits = (max: number) =>
  z
    .string()
    .regex(/^\d{1,12}$/, "must be a whole number")
    .transform(Number)
    .pipe(z.number().int().min(1).max(max));

const query = z
  .object({
    actor: z.string().max(200).optional(),
    action: z.string().max(100).optional(),
    entity: z.string().max(100).optional(),
    entityId: z.string().max(512).optional(),
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
