/** The instance path segment / API parameter: a Prometheus instance label. */
import { z } from "zod";

export const instanceIdSchema = z
  .string()
  .min(1, "must not be empty")
  .max(512, "must be at most 512 characters")
  .refine((s) => !/\p{Cc}/u.test(s), "must not contain control characters")
  .describe("Prometheus instance label (host:port or a /probe target), percent-encoded in the path.");

/**
 * The instance from its raw (still percent-encoded) path segment: decoded exactly once, so a literal
 * "%41" in a label stays "%41". Pages get the raw segment in `params` (Next.js 16 passes it undecoded);
 * route handlers read it from the request URL for the same reason.
 */
export function parseInstanceId(
  rawSegment: string,
): { ok: true; id: string } | { ok: false; message: string } {
  let decoded: string;
  try {
    decoded = decodeURIComponent(rawSegment);
  } catch {
    return { ok: false, message: "is not a valid percent-encoded path segment" };
  }
  const r = instanceIdSchema.safeParse(decoded);
  return r.success
    ? { ok: true, id: r.data }
    : { ok: false, message: r.error.issues[0]?.message ?? "is invalid" };
}

/** The raw last path segment of a request URL (route handlers' params arrive already decoded). */
export const lastSegment = (url: string): string => new URL(url).pathname.split("/").at(-1) ?? "";
