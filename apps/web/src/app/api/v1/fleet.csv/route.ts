import { env } from "../../../../env.js";
import type { ErrorResponse } from "../../../../lib/api-schema.js";
import { csvResponse } from "../../../../lib/csv.js";
import { applyFleetQuery, parseFleetQuery } from "../../../../lib/fleet-query.js";
import { route } from "../../../../server/access.js";
import { unavailable } from "../../../../server/api.js";
import { getFleetView } from "../../../../server/data.js";
import { fleetCsv } from "../../../../server/exports.js";
import { methodNotAllowed } from "../../../../server/http.js";

export const dynamic = "force-dynamic";

const json = (status: number, body: unknown) =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });

/** GET /api/v1/fleet.csv: the fleet table as CSV, with the fleet page's filters, sort and range. */
export const GET = route("GET /api/v1/fleet.csv", async (req) => {
  const { query, problems } = parseFleetQuery(new URL(req.url).searchParams);
  if (problems.length > 0)
    return json(400, {
      error: `bad query parameters: ${problems.map((p) => `${p.param} ${p.message}`).join("; ")}`,
      issues: problems,
    } satisfies ErrorResponse);
  const view = await getFleetView(env(), query.range);
  if (!view.snapshot) {
    const u = unavailable(view.source, view.status);
    return json(u.code, u.body);
  }
  const name = `untorn-fleet-${view.snapshot.window}.csv`;
  return csvResponse(fleetCsv(applyFleetQuery(view.rows, query)), name);
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
