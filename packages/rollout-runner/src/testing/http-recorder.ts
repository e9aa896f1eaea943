/** A small real HTTP server on 127.0.0.1 that records requests and answers as the test says. */
import http from "node:http";
import type { AddressInfo } from "node:net";

export interface RecordedRequest {
  method: string;
  url: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export type Responder = (req: RecordedRequest) => { status: number; body?: string } | "hang";

export interface Recorder {
  url: string;
  requests: RecordedRequest[];
  respond: Responder;
  close(): Promise<void>;
}

export async function startRecorder(
  respond: Responder = () => ({ status: 200, body: "{}" }),
): Promise<Recorder> {
  const hanging = new Set<http.ServerResponse>();
  const rec: Recorder = {
    url: "",
    requests: [],
    respond,
    close: () =>
      new Promise((resolve) => {
        for (const r of hanging) r.destroy();
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
  const server = http.createServer((req, res) => {
    let body = "";
    req.on("data", (d: Buffer) => {
      body += d.toString();
    });
    req.on("end", () => {
      const r: RecordedRequest = { method: req.method ?? "", url: req.url ?? "", headers: req.headers, body };
      rec.requests.push(r);
      const answer = rec.respond(r);
      if (answer === "hang") {
        hanging.add(res);
        return;
      }
      res.writeHead(answer.status, { "content-type": "application/json" });
      res.end(answer.body ?? "");
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  rec.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return rec;
}
