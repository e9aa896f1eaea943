/**
 * Authorisation for writes: when UNTORN_ADMIN_TOKEN is set, a write must present it; when it is not set,
 * writes are open (the default suits one operator on localhost; set the token anywhere else).
 */
import { createHash, timingSafeEqual } from "node:crypto";

export type AuthResult =
  | { readonly ok: true; readonly actor: string }
  | { readonly ok: false; readonly reason: string };

const digest = (s: string) => createHash("sha256").update(s, "utf8").digest();

export function authorise(configured: string | undefined, presented: string): AuthResult {
  if (!configured) return { ok: true, actor: "web" };
  if (!presented)
    return { ok: false, reason: "This console requires the admin token (UNTORN_ADMIN_TOKEN) to edit." };
  // Compare digests: equal length, constant time, whatever the lengths of the inputs.
  if (!timingSafeEqual(digest(configured), digest(presented)))
    return { ok: false, reason: "The admin token is wrong." };
  return { ok: true, actor: "web (admin token)" };
}
