import { route } from "../../../../server/auth/access.js";
import { metadataStore } from "../../../../server/fleet/data.js";
import { methodNotAllowed } from "../../../../server/http.js";

export const dynamic = "force-dynamic";

const json = (status: number, body: unknown) =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });

/**
 * GET /api/v1/health: 200 once the console answers a viewer (a session or the API token) and its store
 * opens; 401/403 when the credential is refused, 503 when the store cannot open. The compose demo's
 * healthcheck reads it and passes on 200 only. It reads no Prometheus: a slow data source is the fleet
 * page's banner, not a dead console.
 */
export const GET = route("GET /api/v1/health", async () => {
  try {
    await metadataStore();
  } catch (err) {
    return json(503, { status: "unavailable", error: `the store cannot open: ${(err as Error).message}` });
  }
  return json(200, { status: "ok" });
});

const notAllowed = methodNotAllowed("GET");
export const POST = notAllowed;
export const PUT = notAllowed;
export const PATCH = notAllowed;
export const DELETE = notAllowed;
