import { env } from "../../../../env.js";
import { csvResponse } from "../../../../lib/csv.js";
import { parseRecommendationsQuery } from "../../../../lib/recommendations-query.js";
import { route } from "../../../../server/auth/access.js";
import { badQuery, unavailableResponse } from "../../../../server/fleet/api.js";
import { getFleetView } from "../../../../server/fleet/data.js";
import { recommendationsCsv } from "../../../../server/fleet/exports.js";
import { filterGroups, groupFindings } from "../../../../server/fleet/recommendations.js";
import { methodNotAllowed } from "../../../../server/http.js";

export const dynamic = "force-dynamic";

/** GET /api/v1/recommendations.csv: one line per finding, with the Recommendations page's filters. */
export const GET = route("GET /api/v1/recommendations.csv", async (req) => {
  const { query, problems } = parseRecommendationsQuery(new URL(req.url).searchParams);
  const bad = badQuery(problems);
  if (bad) return bad;
  const view = await getFleetView(env(), query.range);
  if (!view.snapshot) {
    return unavailableResponse(view);
  }
  const groups = filterGroups(groupFindings(view.snapshot.advice.values()), query);
  return csvResponse(recommendationsCsv(groups), `untorn-recommendations-${view.snapshot.window}.csv`);
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
