/**
 * Runs before every request (Next.js "proxy", formerly middleware): refuses hosts outside
 * UNTORN_ALLOWED_HOSTS (DNS rebinding), cross-site writes, oversized bodies, malformed
 * percent-encoding and Server Action requests of a shape no form of the console sends
 * (lib/action-request.ts), each as JSON with its status; and sets the per-request CSP nonce. It is a first
 * line only: every Server Action and route handler checks the caller itself (server/auth/access.ts).
 */
import { type NextRequest, NextResponse } from "next/server";
import { env } from "./env.js";
import { actionRequestProblem } from "./lib/action-request.js";
import { foreignOrigin, hostRefused, requestHost, requestProto } from "./lib/request-checks.js";
import type { TrustedPeers } from "./lib/trusted-peers.js";
import { isMissingDoc } from "./server/docs/doc-files.js";

/** No route lives here: a rewrite to it renders app/not-found.tsx with a real 404 status. */
const NOT_FOUND_PATH = "/_untorn/not-found";

/** Largest request body: the metadata form is a few KiB. Next's own Server Action limit is 1 MB. */
const MAX_BODY_BYTES = 1024 * 1024;

const refuse = (status: number, error: string, headers: Record<string, string> = {}) =>
  NextResponse.json({ error }, { status, headers: { "cache-control": "no-store", ...headers } });

function csp(nonce: string): string {
  return [
    "default-src 'self'",
    // Next.js marks its own inline scripts with the nonce it finds in this header.
    `script-src 'self' 'nonce-${nonce}' 'strict-dynamic'`,
    // React's style={…} props are inline style attributes; Next gives them no nonce.
    "style-src 'self' 'unsafe-inline'",
    "img-src 'self' data: blob:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'self'",
    "form-action 'self'",
    "frame-ancestors 'none'",
  ].join("; ");
}

export function proxy(req: NextRequest): NextResponse | Promise<NextResponse> {
  const e = env();
  const h = req.headers;
  const trusted = e.UNTORN_TRUSTED_PROXIES;
  const host = requestHost(h, trusted);
  const hostProblem = hostRefused(host, e.UNTORN_ALLOWED_HOSTS);
  if (hostProblem) return refuse(403, hostProblem);
  try {
    decodeURIComponent(req.nextUrl.pathname);
  } catch {
    return refuse(400, "the path holds malformed percent-encoding");
  }
  if (req.method !== "GET" && req.method !== "HEAD") {
    const why = foreignOrigin(h, trusted);
    if (why) return refuse(403, why);
    // A chunked body has no length to check here, and route handlers would read all of it.
    if (h.get("transfer-encoding") !== null && h.get("content-length") === null)
      return refuse(411, `send the request body with a Content-Length (at most ${MAX_BODY_BYTES} bytes)`);
    const length = Number(h.get("content-length") ?? "0");
    if (length > MAX_BODY_BYTES)
      return refuse(413, `the request body is ${length} bytes; at most ${MAX_BODY_BYTES}`);
    // A POST to a page is a Server Action (Next's decoder answers a malformed one with a 500).
    if (req.method === "POST" && !req.nextUrl.pathname.startsWith("/api/"))
      return actionRequestProblem(h, () => req.clone().formData()).then((problem) =>
        problem ? refuse(400, problem) : pass(req, h, host, trusted),
      );
  }
  return pass(req, h, host, trusted);
}

/** Hands the request on with the nonce, the host and scheme decided, and the CSP. */
function pass(req: NextRequest, h: Headers, host: string, trusted: TrustedPeers | undefined): NextResponse {
  const nonce = Buffer.from(crypto.randomUUID()).toString("base64");
  const policy = csp(nonce);
  const forwarded = new Headers(h);
  forwarded.set("x-nonce", nonce);
  // What the app and Next's own Server Action origin check read: the host and scheme decided above,
  // never a forged X-Forwarded-Host or -Proto from a client that is no trusted proxy.
  if (host) forwarded.set("x-forwarded-host", host);
  forwarded.set("x-forwarded-proto", requestProto(h, req.url, trusted));
  forwarded.set("x-untorn-path", req.nextUrl.pathname + req.nextUrl.search);
  forwarded.set("content-security-policy", policy);
  const res =
    (req.method === "GET" || req.method === "HEAD") && isMissingDoc(req.nextUrl.pathname)
      ? NextResponse.rewrite(new URL(NOT_FOUND_PATH, req.url), { request: { headers: forwarded } })
      : NextResponse.next({ request: { headers: forwarded } });
  res.headers.set("content-security-policy", policy);
  return res;
}

export const config = {
  matcher: [{ source: "/((?!_next/static|_next/image|icon.svg).*)" }],
};
