import { createServer, type IncomingHttpHeaders, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";

/** A request as the peer saw it. */
export interface PeerRequest {
  method: string;
  /** Path and query string. */
  url: string;
  headers: IncomingHttpHeaders;
  body: string;
  /** 0 for the first request the peer received. */
  index: number;
}

export type PeerHandler = (req: PeerRequest, res: ServerResponse) => void | Promise<void>;

/** A real HTTP server on 127.0.0.1 standing in for Prometheus (or a proxy in front of it). */
export interface HttpPeer {
  readonly url: string;
  readonly port: number;
  readonly requests: PeerRequest[];
  /** Most requests the peer was handling at the same time. */
  readonly maxConcurrent: number;
  close(): Promise<void>;
}

export async function startHttpPeer(handler: PeerHandler): Promise<HttpPeer> {
  const requests: PeerRequest[] = [];
  let active = 0;
  let maxConcurrent = 0;
  const server = createServer((req, res) => {
    active++;
    maxConcurrent = Math.max(maxConcurrent, active);
    // "finish" when the answer is handed to the OS (before the client can send its next request),
    // "close" for answers that never finish.
    let done = false;
    const finished = () => {
      if (!done) active--;
      done = true;
    };
    res.once("finish", finished);
    res.once("close", finished);
    const chunks: Buffer[] = [];
    req.on("data", (c: Buffer) => chunks.push(c));
    req.on("end", () => {
      const seen: PeerRequest = {
        method: req.method ?? "",
        url: req.url ?? "",
        headers: req.headers,
        body: Buffer.concat(chunks).toString("utf8"),
        index: requests.length,
      };
      requests.push(seen);
      Promise.resolve(handler(seen, res)).catch((err: unknown) => {
        res.destroy(err instanceof Error ? err : new Error(String(err)));
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(0, "127.0.0.1", resolve);
  });
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    port,
    requests,
    get maxConcurrent() {
      return maxConcurrent;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** Writes a JSON answer. */
export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  const text = typeof body === "string" ? body : JSON.stringify(body);
  res.writeHead(status, { "content-type": "application/json", ...headers });
  res.end(text);
}

/** A success envelope around an instant vector with one sample per `instance → value`. */
export function vectorEnvelope(values: Record<string, string>, extra: Record<string, unknown> = {}): unknown {
  return {
    status: "success",
    data: {
      resultType: "vector",
      result: Object.entries(values).map(([instance, v]) => ({
        metric: { instance },
        value: [1700000000, v],
      })),
    },
    ...extra,
  };
}
