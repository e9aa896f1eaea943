/** JSON error responses: every error the console answers is `{ error }` JSON with its status. */
export function jsonError(status: number, error: string, headers: Record<string, string> = {}): Response {
  return Response.json({ error }, { status, headers: { "cache-control": "no-store", ...headers } });
}

const REFUSAL = Symbol.for("untorn.refusal");

/** A handler that only refuses (405, 404): it reads nothing, so it needs no role. */
export type Refusal = ((req: Request) => Promise<Response>) & { readonly [REFUSAL]: true };

const refusal = (f: (req: Request) => Promise<Response>): Refusal =>
  Object.assign(f, { [REFUSAL]: true as const });

export const isRefusal = (f: unknown): f is Refusal => typeof f === "function" && REFUSAL in f;

/** 405 with `Allow`, as JSON, for the methods a route does not take. */
export const methodNotAllowed = (allow: string): Refusal =>
  refusal(async (req) => jsonError(405, `${req.method} is not allowed here; use ${allow}`, { allow }));

/** 404 as JSON for a path under /api that names no route. */
export const noSuchRoute: Refusal = refusal(async (req) =>
  jsonError(
    404,
    `no API route ${new URL(req.url).pathname} (GET /api/v1/fleet, GET /api/v1/instances/{id}, GET /api/v1/rollouts, GET /api/v1/rollouts/{id})`,
  ),
);
