import { lastSegment } from "../../../../../lib/instance-id.js";
import { route } from "../../../../../server/auth/access.js";
import { methodNotAllowed } from "../../../../../server/http.js";
import { rolloutResponse } from "../../../../../server/rollouts/rollout-api.js";
import { lookupForApi } from "../../../../../server/rollouts/rollout-route.js";
import { changeText, nextOf } from "../../../../../server/rollouts/rollouts.js";

export const dynamic = "force-dynamic";

/** GET /api/v1/rollouts/{id}: one rollout's stored document, its timeline and every gate decision. */
export const GET = route<{ params: Promise<{ id: string }> }>("GET /api/v1/rollouts/[id]", async (req) => {
  const r = await lookupForApi(lastSegment(req.url));
  if (r instanceof Response) return r;
  const body = rolloutResponse(r, changeText(r.state), nextOf(r.state));
  return Response.json(body, { headers: { "cache-control": "no-store" } });
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
