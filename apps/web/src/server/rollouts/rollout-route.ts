import "server-only";
/** The rollout routes' shared lookup: a bad id is 400, an unknown one 404, a store outage 503 (all JSON). */
import type { ErrorResponse } from "../../lib/api-schema.js";
import { getRolloutView, RolloutStoreError, rolloutIdSchema, type StoredRolloutView } from "./rollouts.js";

const json = (status: number, body: ErrorResponse) =>
  Response.json(body, { status, headers: { "cache-control": "no-store" } });

function decode(segment: string): string {
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment;
  }
}

export async function lookupForApi(segment: string): Promise<StoredRolloutView | Response> {
  const raw = decode(segment);
  const id = rolloutIdSchema.safeParse(raw);
  if (!id.success) {
    const message = id.error.issues[0]?.message ?? "is not a rollout id";
    return json(400, {
      error: `bad rollout id: it ${message}`,
      issues: [{ param: "id", value: raw.slice(0, 60), message }],
    });
  }
  try {
    const r = await getRolloutView(id.data);
    if (r.kind === "not-found")
      return json(404, { error: `no rollout "${id.data}" (GET /api/v1/rollouts lists them)` });
    if (r.kind === "invalid") return json(500, { error: `rollout "${id.data}": ${r.problem}` });
    return r.rollout;
  } catch (err) {
    if (err instanceof RolloutStoreError)
      return json(503, { error: `the store is unavailable: ${err.message}` });
    throw err;
  }
}
