import { env } from "../../../../env.js";
import { csvResponse } from "../../../../lib/csv.js";
import { applyFleetQuery, parseFleetQuery } from "../../../../lib/fleet-query.js";
import { route } from "../../../../server/auth/access.js";
import { badQuery, unavailableResponse } from "../../../../server/fleet/api.js";
import { getFleetView } from "../../../../server/fleet/data.js";
import { fleetCsv } from "../../../../server/fleet/exports.js";
import { methodNotAllowed } from "../../../../server/http.js";

export const dynamic = "force-dynamic";

/** GET /api/v1/fleet.csv: the fleet table as CSV, with the fleet page's filters, sort and range. */
export const GET = route("GET /api/v1/fleet.csv", async (req) => {
  const { query, problems } = parseFleetQuery(new URL(req.url).searchParams);
  const bad = badQuery(problems);
  if (bad) return bad;
  const view = await getFleetView(env(), query.range);
  if (!view.snapshot) {
    return unavailableResponse(view);
  }
  const name = `untorn-fleet-${view.snapshot.window}.csv`;
  return csvResponse(fleetCsv(applyFleetQuery(view.rows, query)), name);
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
