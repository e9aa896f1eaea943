/**
 * Request checks that need no state: same-origin writes (CSRF, DNS rebinding) and allowed hosts. Used
 * by the proxy (src/proxy.ts) for every request and again by each state-changing route handler.
 */

/** The host the request was sent to (a proxy's X-Forwarded-Host wins, as Next's own action check does). */
export const requestHost = (h: Headers) =>
  (h.get("x-forwarded-host")?.split(",")[0]?.trim() || h.get("host") || "").toLowerCase();

/**
 * Why a state-changing request is refused as cross-site, or null: a browser sends Origin (and
 * Sec-Fetch-Site) on every POST; their host must be the one the request was sent to.
 */
export function foreignOrigin(h: Headers): string | null {
  const origin = h.get("origin");
  const host = requestHost(h);
  if (origin !== null) {
    let originHost: string;
    try {
      originHost = new URL(origin).host.toLowerCase();
    } catch {
      return `foreign Origin "${origin.slice(0, 100)}": writes are accepted from this console's own pages only`;
    }
    if (originHost !== host)
      return `foreign Origin "${origin.slice(0, 100)}" for host "${host}": writes are accepted from this console's own pages only`;
    return null;
  }
  const site = h.get("sec-fetch-site");
  if (site && site !== "same-origin" && site !== "none")
    return `cross-site request (Sec-Fetch-Site: ${site}): writes are accepted from this console's own pages only`;
  return null;
}

/** Null when `host` (Host header, maybe with :port) is allowed; else why not. */
export function hostRefused(host: string, allowed: readonly string[] | undefined): string | null {
  if (!allowed) return null;
  const h = host.toLowerCase();
  const bare = h.replace(/:\d+$/, "");
  if (allowed.includes(h) || allowed.includes(bare)) return null;
  return `host "${h.slice(0, 100)}" is not in UNTORN_ALLOWED_HOSTS`;
}
