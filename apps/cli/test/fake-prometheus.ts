// A Prometheus HTTP API in front of any PromQueryApi (usually a ReplayApi over a fake replay), for CLI
// tests that go through the real PromClient and HTTP: /api/v1/query, /api/v1/query_range and the
// buildinfo a Prometheus gives (the client asks it once to tell Prometheus from VictoriaMetrics).
import { createServer, type Server } from "node:http";
import type { PromQueryApi } from "@untorn/fleet/api";

export interface FakePrometheus {
  readonly url: string;
  /** Requests served, by path. */
  readonly requests: Map<string, number>;
  close(): Promise<void>;
}

const wire = (v: number) =>
  Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v);

export async function startFakePrometheus(api: PromQueryApi): Promise<FakePrometheus> {
  const requests = new Map<string, number>();
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", async () => {
      const url = new URL(req.url ?? "/", "http://x");
      const params = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
      for (const [k, v] of url.searchParams) params.set(k, v);
      requests.set(url.pathname, (requests.get(url.pathname) ?? 0) + 1);
      const send = (status: number, body: unknown) => {
        res.writeHead(status, { "content-type": "application/json" });
        res.end(JSON.stringify(body));
      };
      try {
        const query = params.get("query") ?? "";
        if (url.pathname === "/api/v1/query") {
          const a = await api.queryVector(query, { time: Number(params.get("time")) });
          send(200, {
            status: "success",
            data: {
              resultType: "vector",
              result: a.data.map((s) => ({ metric: s.labels, value: [s.timestamp, wire(s.value)] })),
            },
            ...(a.warnings.length ? { warnings: a.warnings } : {}),
          });
        } else if (url.pathname === "/api/v1/query_range") {
          const a = await api.queryRange(query, {
            start: Number(params.get("start")),
            end: Number(params.get("end")),
            step: Number(params.get("step")),
          });
          send(200, {
            status: "success",
            data: {
              resultType: "matrix",
              result: a.data.map((s) => ({
                metric: s.labels,
                values: s.points.map(([t, v]) => [t, wire(v)]),
              })),
            },
          });
        } else if (url.pathname === "/api/v1/status/buildinfo") {
          // As Prometheus answers it, so the client takes this for Prometheus (no query delay).
          send(200, { status: "success", data: { version: "2.45.0", revision: "fake" } });
        } else send(404, { status: "error", errorType: "not_found", error: `no ${url.pathname} here` });
      } catch (err) {
        send(422, { status: "error", errorType: "execution", error: (err as Error).message });
      }
    });
  });
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  const addr = server.address();
  if (!addr || typeof addr === "string") throw new Error("no port");
  return {
    url: `http://127.0.0.1:${addr.port}`,
    requests,
    close: () => new Promise((r) => server.close(() => r())),
  };
}
