import { route } from "../../server/auth/access.js";
import { EXPOSITION_CONTENT_TYPE, exposition } from "../../server/exposition.js";
import { methodNotAllowed } from "../../server/http.js";
import { rolloutFamilies } from "../../server/rollouts/rollout-metrics.js";
import { listRolloutStates } from "../../server/rollouts/rollouts.js";

export const dynamic = "force-dynamic";

/**
 * GET /metrics: the console's rollout metrics in the Prometheus text format, built from the store on
 * every scrape; a viewer's session or API token. A store that cannot be read gives
 * `untorn_console_rollout_store_up 0` and a 200, so the scrape itself still succeeds. No parameters.
 */
export const GET = route("GET /metrics", async (req) => {
  const given = [...new URL(req.url).searchParams.keys()];
  if (given.length > 0)
    return Response.json(
      { error: `/metrics takes no parameters (given: ${given.join(", ").slice(0, 200)})` },
      { status: 400, headers: { "cache-control": "no-store" } },
    );
  const states = await listRolloutStates().catch((err: unknown) => {
    console.error(`untorn: /metrics: the rollouts could not be read: ${(err as Error).message}`);
    return null;
  });
  return new Response(exposition(rolloutFamilies(states)), {
    status: 200,
    headers: { "content-type": EXPOSITION_CONTENT_TYPE, "cache-control": "no-store" },
  });
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
