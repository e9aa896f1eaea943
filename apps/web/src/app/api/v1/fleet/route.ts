import { env } from "../../../../env.js";
import { parseFleetQuery, parsePageQuery } from "../../../../lib/fleet-query.js";
import { route } from "../../../../server/auth/access.js";
import { badQuery, fleetResponseJson, unavailableResponse } from "../../../../server/fleet/api.js";
import { getFleetView } from "../../../../server/fleet/data.js";
import { methodNotAllowed } from "../../../../server/http.js";

export const dynamic = "force-dynamic";

/** GET /api/v1/fleet: every instance, filtered and sorted by the fleet page's parameters, paged. */
export const GET = route("GET /api/v1/fleet", async (req) => {
  const paging = parsePageQuery(new URL(req.url).searchParams);
  const parsed = parseFleetQuery(paging.rest);
  const { query } = parsed;
  const problems = [...paging.problems, ...parsed.problems];
  const bad = badQuery(problems);
  if (bad) return bad;
  const view = await getFleetView(env(), query.range);
  const body = fleetResponseJson(view, query, paging.page);
  if (body === null) {
    return unavailableResponse(view);
  }
  return new Response(body, {
    status: 200,
    headers: { "content-type": "application/json", "cache-control": "no-store" },
  });
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
