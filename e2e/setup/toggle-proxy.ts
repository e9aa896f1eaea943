/**
 * An HTTP proxy in front of Prometheus that the tests can switch off and on (POST /__untorn/down and
 * /__untorn/up): while down it refuses connections like a dead Prometheus, so the console's stale-data
 * path runs against a Prometheus that was fine a moment ago. POST /__untorn/hold holds every request
 * unanswered until /__untorn/up: a fleet read that is still running.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface ToggleProxy {
  readonly url: string;
  stop(): Promise<void>;
}

export async function startToggleProxy(target: string): Promise<ToggleProxy> {
  let down = false;
  let held: (() => void)[] | null = null;
  const server = http.createServer(async (req, res) => {
    if (req.url === "/__untorn/down" || req.url === "/__untorn/up" || req.url === "/__untorn/hold") {
      down = req.url.endsWith("down");
      if (req.url.endsWith("hold")) held ??= [];
      else {
        for (const release of held ?? []) release();
        held = null;
      }
      res.writeHead(204).end();
      return;
    }
    if (held) await new Promise<void>((release) => held!.push(release));
    // A client that gave up while its request was held (a timed-out or navigated-away read) has gone:
    // reading its body would throw "aborted" in this process.
    if (req.destroyed || res.destroyed) return;
    if (down) {
      // Drop the connection without an answer: what a crashed Prometheus looks like to a client.
      req.socket.destroy();
      return;
    }
    const chunks: Buffer[] = [];
    try {
      for await (const c of req) chunks.push(c as Buffer);
      const upstream = await fetch(`${target}${req.url}`, {
        method: req.method,
        headers: { "content-type": req.headers["content-type"] ?? "application/x-www-form-urlencoded" },
        body: req.method === "GET" || req.method === "HEAD" ? undefined : Buffer.concat(chunks),
      });
      res.writeHead(upstream.status, {
        "content-type": upstream.headers.get("content-type") ?? "text/plain",
      });
      res.end(Buffer.from(await upstream.arrayBuffer()));
    } catch (err) {
      if (!res.destroyed) res.writeHead(502).end((err as Error).message);
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
