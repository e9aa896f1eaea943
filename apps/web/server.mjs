/**
 * The console's production server: Next's request handler inside a plain Node HTTP server, so the app
 * learns each request's TCP peer address, which route handlers never see. Every request loses any
 * incoming `x-untorn-*` header and gets `x-untorn-peer` (the socket's remote address) from here only;
 * the auth-proxy mode (UNTORN_AUTH=proxy) trusts identity headers only from the peers it lists.
 *
 *   node server.mjs        listens on UNTORN_HOST (default 127.0.0.1) and PORT (default 3000)
 *
 * Everything else (CSP nonce, security headers, configuration checks) happens inside Next as with
 * `next start`: src/proxy.ts, next.config.ts, src/instrumentation.ts.
 */
import { existsSync, readFileSync } from "node:fs";
import { createServer } from "node:http";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { setFlagsFromString } from "node:v8";
import { runInNewContext } from "node:vm";
import next from "next";

const PEER_HEADER = "x-untorn-peer";
/** Headers only this server (or src/proxy.ts, after it) may set. */
const internal = (name) => name.startsWith("x-untorn-") || name === "x-nonce";

process.env.NODE_ENV ??= "production";
process.env.NEXT_TELEMETRY_DISABLED ??= "1";
const host = process.env.UNTORN_HOST?.trim() || "127.0.0.1";
const portText = process.env.PORT?.trim() || "3000";
if (!/^\d{1,5}$/.test(portText) || Number(portText) < 1 || Number(portText) > 65535) {
  console.error(
    `untorn: refusing to start, invalid configuration:\n  PORT: must be a whole number from 1 to 65535`,
  );
  process.exit(1);
}
const port = Number(portText);

// Nothing listens before src/instrumentation.ts has checked the configuration, the store and the bind
// address (it exits 1 when they are refused): Next may run that hook after prepare() resolved.
const dir = dirname(fileURLToPath(import.meta.url));
let startedUp = () => {};
const checked = existsSync(join(dir, ".next", "server", "instrumentation.js"))
  ? new Promise((resolve) => {
      startedUp = (failure) => resolve(failure ?? null);
    })
  : Promise.resolve(null);

// The build served: the kept fleet read (src/server/fleet/kept-read.ts) is used only by the build that
// wrote it.
let buildId;
try {
  buildId = readFileSync(join(dir, ".next", "BUILD_ID"), "utf8").trim() || undefined;
} catch {
  buildId = undefined;
}

// A full garbage collection on request (src/server/fleet/collect.ts asks for one once a fleet read is
// done): V8 leaves a large read's garbage in the old space until the heap grows again, which on an idle
// console can be never. Exposed as test runners do it, to this module only: `gc` is not made a global.
setFlagsFromString("--expose-gc");
const collectGarbage = runInNewContext("gc");

// Read by the app (src/lib/server-info.ts): where it listens, that the peer header is this server's, the
// build it serves, the call that lets it listen, and the full collection.
globalThis[Symbol.for("untorn.server")] = Object.freeze({
  host,
  port,
  peerHeader: PEER_HEADER,
  buildId,
  startedUp,
  collectGarbage,
});

const app = next({ dev: false, dir, hostname: host, port });
const handle = app.getRequestHandler();
await app.prepare();
const failure = await checked;
if (failure) {
  console.error(`untorn: refusing to start, ${failure}`);
  process.exit(1);
}

/**
 * Methods passed to Next: pages take GET, HEAD and POST (a Server Action); route handlers (/api/…)
 * answer the others they do not take with their own JSON 405. Anything else is refused here: Next
 * builds a fetch Request for src/proxy.ts, which throws on TRACE, TRACK and CONNECT (HTTP 500), and it
 * renders a page for PUT or PROPFIND.
 */
const PAGE_METHODS = new Set(["GET", "HEAD", "POST"]);
const API_METHODS = new Set([...PAGE_METHODS, "PUT", "PATCH", "DELETE", "OPTIONS"]);

function refusedMethod(req, res) {
  const api = req.url?.startsWith("/api/") ?? false;
  if ((api ? API_METHODS : PAGE_METHODS).has(req.method ?? "")) return false;
  res.writeHead(405, {
    allow: "GET, HEAD, POST",
    "content-type": "application/json",
    "cache-control": "no-store",
    "x-content-type-options": "nosniff",
  });
  res.end(
    JSON.stringify({
      error: `${String(req.method).slice(0, 20)} is not allowed here; use GET, HEAD or POST`,
    }),
  );
  return true;
}

const server = createServer((req, res) => {
  if (refusedMethod(req, res)) return;
  for (const name of Object.keys(req.headers)) if (internal(name)) delete req.headers[name];
  const raw = [];
  for (let i = 0; i + 1 < req.rawHeaders.length; i += 2)
    if (!internal(req.rawHeaders[i].toLowerCase())) raw.push(req.rawHeaders[i], req.rawHeaders[i + 1]);
  const peer = req.socket.remoteAddress ?? "";
  req.headers[PEER_HEADER] = peer;
  raw.push(PEER_HEADER, peer);
  req.rawHeaders = raw;
  handle(req, res).catch((err) => {
    console.error(`untorn: request ${req.method} ${req.url?.slice(0, 200)} failed: ${err?.stack ?? err}`);
    if (!res.headersSent) {
      res.statusCode = 500;
      res.setHeader("content-type", "application/json");
      res.end(JSON.stringify({ error: "internal error (the server log says why)" }));
    } else res.destroy();
  });
});
// Node hands CONNECT to this event, not to the request handler; with no listener it drops the socket.
server.on("connect", (_req, socket) => {
  socket.end(
    "HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD, POST\r\nContent-Length: 0\r\nConnection: close\r\n\r\n",
  );
});
server.on("error", (err) => {
  console.error(`untorn: cannot listen on ${host}:${port}: ${err.message}`);
  process.exit(1);
});
server.listen(port, host, () => {
  const shown = host.includes(":") ? `[${host}]` : host;
  console.log(`untorn: console listening on http://${shown}:${port}`);
});

const stop = () => {
  server.close();
  server.closeIdleConnections?.();
  setTimeout(() => process.exit(0), 2000).unref();
  void app.close?.().finally(() => process.exit(0));
};
process.once("SIGTERM", stop);
process.once("SIGINT", stop);
