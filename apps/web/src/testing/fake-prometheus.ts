/**
 * A local HTTP server speaking the Prometheus query API from a PromQueryApi (e.g. a ReplayApi over a
 * fakeReplay file), so the app's live path runs over real HTTP in tests; `stop()` makes it unreachable
 * and `delayMs` makes it slow.
 */
import http from "node:http";
import type { AddressInfo } from "node:net";
import type { PromQueryApi } from "@untorn/fleet/api";
import type { ReplayApi } from "@untorn/fleet/replay";

export interface FakePrometheus {
  readonly url: string;
  /** PromQL requests (/api/v1/query, /api/v1/query_range) answered so far. */
  readonly requests: () => number;
  /** Delay every answer by this many ms from now on. */
  setDelay(ms: number): void;
  stop(): Promise<void>;
}

const wire = (v: number) =>
  Number.isNaN(v) ? "NaN" : v === Infinity ? "+Inf" : v === -Infinity ? "-Inf" : String(v);

async function body(req: http.IncomingMessage): Promise<URLSearchParams> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const url = new URL(req.url ?? "/", "http://x");
  const form = new URLSearchParams(Buffer.concat(chunks).toString("utf8"));
  for (const [k, v] of url.searchParams) form.append(k, v);
  return form;
}

/** Answers every instant query at the recording's last evaluation time, whatever time is asked. */
export function pinnedToRecording(api: ReplayApi): PromQueryApi {
  return {
    queryVector: (expr) => api.queryVector(expr, { time: api.meta.end }),
    queryRange: (expr, opts) => api.queryRange(expr, opts),
  };
}

export async function startFakePrometheus(api: PromQueryApi): Promise<FakePrometheus> {
  let count = 0;
  let delay = 0;
  const server = http.createServer(async (req, res) => {
    const send = (status: number, payload: unknown) => {
      res.writeHead(status, { "content-type": "application/json" });
      res.end(JSON.stringify(payload));
    };
    try {
      if (delay > 0) await new Promise((r) => setTimeout(r, delay));
      const path = new URL(req.url ?? "/", "http://x").pathname;
      const form = await body(req);
      const query = form.get("query") ?? "";
      if (path === "/api/v1/query" || path === "/api/v1/query_range") count++;
      if (path === "/api/v1/query") {
        const time = Number(form.get("time") ?? Date.now() / 1000);
        const a = await api.queryVector(query, { time });
        send(200, {
          status: "success",
          data: {
            resultType: "vector",
            result: a.data.map((s) => ({ metric: s.labels, value: [time, wire(s.value)] })),
          },
          ...(a.warnings.length ? { warnings: a.warnings } : {}),
        });
      } else if (path === "/api/v1/query_range") {
        const a = await api.queryRange(query, {
          start: Number(form.get("start")),
          end: Number(form.get("end")),
          step: Number(form.get("step")),
        });
        send(200, {
          status: "success",
          data: {
            resultType: "matrix",
            result: a.data.map((s) => ({ metric: s.labels, values: s.points.map(([t, v]) => [t, wire(v)]) })),
          },
        });
      } else if (path === "/api/v1/status/buildinfo") {
        // As Prometheus answers it, so the client takes this for Prometheus (no query delay).
        send(200, { status: "success", data: { version: "2.45.0", revision: "fake" } });
      } else if (path === "/-/ready") {
        res.writeHead(200).end("Prometheus Server is Ready.");
      } else send(404, { status: "error", errorType: "not_found", error: `no ${path}` });
    } catch (err) {
      send(422, { status: "error", errorType: "execution", error: (err as Error).message });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    url: `http://127.0.0.1:${port}`,
    requests: () => count,
    setDelay(ms) {
      delay = ms;
    },
    stop: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
