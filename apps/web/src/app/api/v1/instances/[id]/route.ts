import { env } from "../../../../../env.js";
import type { ErrorResponse } from "../../../../../lib/api-schema.js";
import { lastSegment, parseInstanceId } from "../../../../../lib/instance-id.js";
import { parseRangeParam } from "../../../../../lib/ranges.js";
import { route } from "../../../../../server/auth/access.js";
import { instanceResponse, unavailable } from "../../../../../server/fleet/api.js";
import { getInstance } from "../../../../../server/fleet/instance.js";
import { methodNotAllowed } from "../../../../../server/http.js";

export const dynamic = "force-dynamic";

const json = (status: number, body: unknown) =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });

/** GET /api/v1/instances/{id}: one instance's facts, verdict and evidence, gate and findings. */
export const GET = route<{ params: Promise<{ id: string }> }>("GET /api/v1/instances/[id]", async (req) => {
  const segment = lastSegment(req.url);
  const id = parseInstanceId(segment);
  if (!id.ok)
    return json(400, {
      error: `bad instance id: it ${id.message}`,
      issues: [{ param: "id", value: segment.slice(0, 60), message: id.message }],
    } satisfies ErrorResponse);
  const given = new URL(req.url).searchParams.getAll("range");
  const range = parseRangeParam(given.length > 1 ? given : given[0]);
  if (!range.ok)
    return json(400, {
      error: `bad query parameters: range ${range.message}`,
      issues: [{ param: "range", value: range.value, message: range.message }],
    } satisfies ErrorResponse);
  const r = await getInstance(id.id, env(), range.range);
  switch (r.kind) {
    case "found":
      return json(200, instanceResponse(r.view));
    case "not-found":
      return json(404, {
        error: `no instance "${id.id}" in the fleet (GET /api/v1/fleet lists them)`,
        source: r.source,
        status: r.status,
      } satisfies ErrorResponse);
    case "skipped":
      return json(404, {
        error: `instance "${id.id}" has no usable facts: ${r.reason}`,
        source: r.source,
        status: r.status,
      } satisfies ErrorResponse);
    default: {
      const u = unavailable(r.source, r.status);
      return json(u.code, u.body);
    }
  }
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
