/**
 * Request checks that need no state: same-origin writes (CSRF, DNS rebinding) and allowed hosts. Used
 * by the proxy (src/proxy.ts) for every request and again by each state-changing route handler.
 *
 * X-Forwarded-Host and X-Forwarded-Proto are what a client chose to send unless the TCP peer (reported
 * by server.mjs) is a configured reverse proxy (UNTORN_TRUSTED_PROXIES, default none): believed from
 * anyone, a forged X-Forwarded-Host would pass UNTORN_ALLOWED_HOSTS and the same-origin check.
 */
import { peerAddress } from "./server-info.js";
import type { TrustedPeers } from "./trusted-peers.js";

/** Whether the request came through a configured reverse proxy, whose X-Forwarded-* headers count. */
export function fromTrustedProxy(h: Headers, trusted: TrustedPeers | undefined): boolean {
  const peer = peerAddress(h);
  return peer !== null && trusted?.has(peer) === true;
}

/** The host the request was sent to: the Host header, or a trusted proxy's X-Forwarded-Host. */
export function requestHost(h: Headers, trusted?: TrustedPeers): string {
  const forwarded = fromTrustedProxy(h, trusted)
    ? h.get("x-forwarded-host")?.split(",")[0]?.trim()
    : undefined;
  return (forwarded || h.get("host") || "").toLowerCase();
}

/** "https" or "http": a trusted proxy's X-Forwarded-Proto, else how this server was reached. */
export function requestProto(h: Headers, url: string, trusted?: TrustedPeers): "https" | "http" {
  if (fromTrustedProxy(h, trusted)) {
    const p = h.get("x-forwarded-proto")?.split(",")[0]?.trim().toLowerCase();
    if (p === "https" || p === "http") return p;
  }
  return new URL(url).protocol === "https:" ? "https" : "http";
}

/**
 * Why a state-changing request is refused as cross-site, or null: a browser sends Origin (and
 * Sec-Fetch-Site) on every POST; their host must be the one the request was sent to.
 */
export function foreignOrigin(h: Headers, trusted?: TrustedPeers): string | null {
  const origin = h.get("origin");
  const host = requestHost(h, trusted);
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
