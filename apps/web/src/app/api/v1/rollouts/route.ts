import { type ErrorResponse, rolloutListQuerySchema } from "../../../../lib/api-schema.js";
import { route } from "../../../../server/auth/access.js";
import { methodNotAllowed } from "../../../../server/http.js";
import { rolloutSummaryJson } from "../../../../server/rollouts/rollout-api.js";
import { listRolloutSummaries, RolloutStoreError } from "../../../../server/rollouts/rollouts.js";

export const dynamic = "force-dynamic";

const json = (status: number, body: unknown) =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });

/** GET /api/v1/rollouts: rollouts, active first, optionally filtered by state. */
export const GET = route("GET /api/v1/rollouts", async (req) => {
  const raw: Record<string, string> = {};
  for (const [k, v] of new URL(req.url).searchParams) {
    if (k in raw)
      return json(400, {
        error: `bad query parameters: ${k} given more than once`,
        issues: [{ param: k, value: v.slice(0, 60), message: "given more than once" }],
      } satisfies ErrorResponse);
    raw[k] = v;
  }
  const q = rolloutListQuerySchema.safeParse(raw);
  if (!q.success) {
    const issues = q.error.issues.map((i) => {
      const param =
        i.path.length > 0
          ? String(i.path[0])
          : i.code === "unrecognized_keys"
            ? (i as { keys: string[] }).keys.join(",")
            : "(query)";
      return {
        param,
        value: (raw[param] ?? "").slice(0, 60),
        message: i.code === "unrecognized_keys" ? "is not a parameter (status, limit)" : i.message,
      };
    });
    return json(400, {
      error: `bad query parameters: ${issues.map((p) => `${p.param} ${p.message}`).join("; ")}`,
      issues,
    } satisfies ErrorResponse);
  }
  const limit = q.data.limit ?? 100;
  try {
    const list = await listRolloutSummaries({ ...(q.data.status ? { statuses: q.data.status } : {}), limit });
    return json(200, { count: list.length, limit, rollouts: list.map(rolloutSummaryJson) });
  } catch (err) {
    if (err instanceof RolloutStoreError)
      return json(503, { error: `the store is unavailable: ${err.message}` } satisfies ErrorResponse);
    throw err;
  }
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
