/**
 * Forged X-Forwarded-Host and -Proto, sent by clients that are no configured reverse proxy and by one
 * that is, through the request proxy (src/proxy.ts) every request passes first. The TCP peer is what
 * server.mjs reports in its peer header; here it is set the way server.mjs sets it.
 */
import { NextRequest } from "next/server";
import { afterAll, beforeAll, describe, expect, it } from "vitest";

const SERVER = Symbol.for("untorn.server");
const PEER_HEADER = "x-untorn-peer";
const UNTRUSTED = "203.0.113.9";
const TRUSTED = "10.0.0.5";
const g = globalThis as Record<symbol, unknown>;
let proxy: (req: NextRequest) => Response;
let isHttps: (req: Request) => boolean;
let saved: Record<string, string | undefined>;

beforeAll(async () => {
  saved = {
    UNTORN_ALLOWED_HOSTS: process.env.UNTORN_ALLOWED_HOSTS,
    UNTORN_TRUSTED_PROXIES: process.env.UNTORN_TRUSTED_PROXIES,
  };
  process.env.UNTORN_ALLOWED_HOSTS = "console.example";
  process.env.UNTORN_TRUSTED_PROXIES = `${TRUSTED}/32`;
  g[SERVER] = { host: "127.0.0.1", port: 3000, peerHeader: PEER_HEADER };
  // Synchronous for every request but a POST to a page (a Server Action, whose body it reads).
  proxy = (await import("./proxy.js")).proxy as (req: NextRequest) => Response;
  isHttps = (await import("./server/auth/auth.js")).isHttps;
});

afterAll(() => {
  delete g[SERVER];
  for (const [k, v] of Object.entries(saved))
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
});

function request(peer: string, headers: Record<string, string>, method = "GET"): NextRequest {
  return new NextRequest(`http://${headers.host ?? "console.example"}/api/v1/audit`, {
    method,
    headers: { [PEER_HEADER]: peer, ...headers },
  });
}

/** The request headers the proxy hands on to the app (Next's x-middleware-request-* protocol). */
const handedOn = (res: Response, name: string) => res.headers.get(`x-middleware-request-${name}`);

describe("X-Forwarded-Host from a client that is no trusted proxy", () => {
  it("does not make a refused Host allowed (the probe read the audit this way)", () => {
    const res = proxy(request(UNTRUSTED, { host: "evil.example", "x-forwarded-host": "console.example" }));
    expect(res.status).toBe(403);
  });

  it("does not pass the same-origin check on a write", () => {
    const res = proxy(
      request(
        UNTRUSTED,
        { host: "evil.example", "x-forwarded-host": "console.example", origin: "http://console.example" },
        "POST",
      ),
    );
    expect(res.status).toBe(403);
    const spoofed = proxy(
      request(
        UNTRUSTED,
        { host: "console.example", "x-forwarded-host": "evil.example", origin: "http://evil.example" },
        "POST",
      ),
    );
    expect(spoofed.status).toBe(403);
    expect(JSON.stringify(spoofed.headers.get("content-type"))).toContain("json");
  });

  it("is replaced by the real Host before the app (and Next's action check) read it", () => {
    const res = proxy(request(UNTRUSTED, { host: "console.example", "x-forwarded-host": "evil.example" }));
    expect(res.status).toBe(200);
    expect(handedOn(res, "x-forwarded-host")).toBe("console.example");
  });

  it("X-Forwarded-Proto: https from it is not believed (no Secure decision on its word)", () => {
    const res = proxy(request(UNTRUSTED, { host: "console.example", "x-forwarded-proto": "https" }));
    expect(handedOn(res, "x-forwarded-proto")).toBe("http");
    const req = new Request("http://console.example/", {
      headers: { [PEER_HEADER]: UNTRUSTED, "x-forwarded-proto": "https" },
    });
    expect(isHttps(req)).toBe(false);
  });
});

describe("X-Forwarded-Host from a configured reverse proxy", () => {
  it("is the host checked against UNTORN_ALLOWED_HOSTS", () => {
    expect(
      proxy(request(TRUSTED, { host: "10.0.0.9:3000", "x-forwarded-host": "console.example" })).status,
    ).toBe(200);
    expect(
      proxy(request(TRUSTED, { host: "console.example", "x-forwarded-host": "evil.example" })).status,
    ).toBe(403);
  });

  it("and the one a write's Origin must match; its X-Forwarded-Proto counts", () => {
    const ok = proxy(
      request(
        TRUSTED,
        { host: "10.0.0.9:3000", "x-forwarded-host": "console.example", origin: "https://console.example" },
        "POST",
      ),
    );
    expect(ok.status).toBe(200);
    const req = new Request("http://10.0.0.9:3000/", {
      headers: { [PEER_HEADER]: TRUSTED, "x-forwarded-proto": "https" },
    });
    expect(isHttps(req)).toBe(true);
  });
});
