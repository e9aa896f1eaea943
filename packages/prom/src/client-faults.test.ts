import { freePort } from "@untorn/testkit/process";
import { afterEach, describe, expect, it } from "vitest";
import { PromClient, type PromClientOptions } from "./client.js";
import {
  PromApiError,
  PromError,
  PromHttpError,
  PromResponseError,
  PromTimeoutError,
  PromUnreachableError,
} from "./errors.js";
import {
  type HttpPeer,
  type PeerHandler,
  sendJson,
  startHttpPeer,
  vectorEnvelope,
} from "./testing/http-peer.js";

// Faults against a real HTTP server on a real socket: the peer plays a broken Prometheus or proxy.

const peers: HttpPeer[] = [];
afterEach(async () => {
  await Promise.all(peers.splice(0).map((p) => p.close()));
});

async function peer(handler: PeerHandler): Promise<HttpPeer> {
  const p = await startHttpPeer(handler);
  peers.push(p);
  return p;
}

/** A client whose pauses between attempts are recorded instead of slept. */
function client(baseUrl: string, opts: Partial<PromClientOptions> = {}) {
  const delays: number[] = [];
  const prom = new PromClient({
    baseUrl,
    timeoutMs: 5000,
    sleep: async (ms) => {
      delays.push(ms);
    },
    random: () => 0.5,
    ...opts,
  });
  return { prom, delays };
}

const ok = vectorEnvelope({ "db1:9104": "1" });

async function rejection(p: Promise<unknown>): Promise<unknown> {
  try {
    await p;
  } catch (err) {
    return err;
  }
  throw new Error("expected the call to fail");
}

describe("retries", () => {
  it("retries a 500 and returns the answer of the second attempt", async () => {
    const p = await peer((req, res) =>
      req.index === 0 ? sendJson(res, 500, "internal trouble") : sendJson(res, 200, ok),
    );
    const { prom, delays } = client(p.url);
    const res = await prom.queryVector("up");
    expect(res.data).toEqual([{ labels: { instance: "db1:9104" }, timestamp: 1700000000, value: 1 }]);
    expect(p.requests).toHaveLength(2);
    // First retry: half of 250 ms fixed plus 0.5 × the other half.
    expect(delays).toEqual([188]);
    expect(prom.stats).toMatchObject({ calls: 1, requests: 2, retries: 1, failures: 0 });
    expect(prom.stats.byEndpoint["/api/v1/query"]?.requests).toBe(2);
  });

  it("gives up on a persistent 503 after retries + 1 attempts with the last status", async () => {
    const p = await peer((req, res) => {
      res.writeHead(503, { "content-type": "text/plain" });
      res.end(`overloaded, attempt ${req.index + 1}`);
    });
    const { prom, delays } = client(p.url, { retries: 3 });
    const err = await rejection(prom.queryVector("up"));
    expect(err).toBeInstanceOf(PromHttpError);
    const http = err as PromHttpError;
    expect(http.status).toBe(503);
    expect(http.attempts).toBe(4);
    expect(http.bodyExcerpt).toBe("overloaded, attempt 4");
    expect(http.message).toBe(
      `Prometheus at ${p.url} answered HTTP 503 Service Unavailable for /api/v1/query: overloaded, attempt 4 (gave up after 4 attempts)`,
    );
    expect(p.requests).toHaveLength(4);
    expect(delays).toEqual([188, 375, 750]);
    expect(prom.stats).toMatchObject({ calls: 1, requests: 4, retries: 3, failures: 1 });
  });

  it("does not retry a 400: a PromQL error envelope becomes PromApiError", async () => {
    const p = await peer((_req, res) =>
      sendJson(res, 400, {
        status: "error",
        errorType: "bad_data",
        error: "1:6: parse error: unexpected end of input",
      }),
    );
    const { prom, delays } = client(p.url);
    const err = await rejection(prom.queryVector("rate("));
    expect(err).toBeInstanceOf(PromApiError);
    expect(err).toMatchObject({ status: 400, errorType: "bad_data", attempts: 1, query: "rate(" });
    expect((err as Error).message).toBe(
      `Prometheus at ${p.url} rejected the query (bad_data, HTTP 400): 1:6: parse error: unexpected end of input; query: rate(`,
    );
    expect(p.requests).toHaveLength(1);
    expect(delays).toEqual([]);
  });

  it("does not retry a plain-text 4xx either, and hints at credentials for 401", async () => {
    const p = await peer((_req, res) => {
      res.writeHead(401, { "content-type": "text/plain" });
      res.end("Unauthorized");
    });
    const { prom } = client(p.url);
    const err = await rejection(prom.series("up"));
    expect(err).toBeInstanceOf(PromHttpError);
    expect((err as Error).message).toMatch(
      /HTTP 401 Unauthorized for \/api\/v1\/series \(check the bearer token/,
    );
    expect(p.requests).toHaveLength(1);
  });

  it("does not repeat a query the server itself timed out (503, errorType timeout)", async () => {
    const p = await peer((_req, res) =>
      sendJson(res, 503, {
        status: "error",
        errorType: "timeout",
        error: "query timed out in expression evaluation",
      }),
    );
    const { prom } = client(p.url);
    const err = await rejection(prom.queryVector("sum(rate(x[30d]))"));
    expect(err).toMatchObject({ name: "PromApiError", status: 503, errorType: "timeout", retryable: false });
    expect(p.requests).toHaveLength(1);
  });

  it("retries a 5xx error envelope (errorType internal)", async () => {
    const p = await peer((req, res) =>
      req.index === 0
        ? sendJson(res, 500, { status: "error", errorType: "internal", error: "storage hiccup" })
        : sendJson(res, 200, ok),
    );
    const { prom } = client(p.url);
    expect((await prom.queryVector("up")).data).toHaveLength(1);
    expect(p.requests).toHaveLength(2);
  });

  it("waits as long as Retry-After asks on a 429", async () => {
    const p = await peer((req, res) => {
      if (req.index > 0) return sendJson(res, 200, ok);
      res.writeHead(429, { "retry-after": "2" });
      res.end("too many outstanding requests");
    });
    const { prom, delays } = client(p.url);
    await prom.queryVector("up");
    expect(delays).toEqual([2000]);
    expect(p.requests).toHaveLength(2);
  });

  it("gives up at once when Retry-After would outlast the time budget", async () => {
    const p = await peer((_req, res) => {
      res.writeHead(429, { "retry-after": "120" });
      res.end("slow down");
    });
    const { prom, delays } = client(p.url, { totalTimeoutMs: 10_000 });
    const err = await rejection(prom.queryVector("up"));
    expect(err).toMatchObject({ name: "PromHttpError", status: 429, attempts: 1, retryAfterMs: 120_000 });
    expect((err as Error).message).toMatch(/rate-limiting this client/);
    expect(delays).toEqual([]);
  });

  it("retries when the server closes the connection without answering", async () => {
    const p = await peer((req, res) => {
      if (req.index < 2) res.socket?.destroy();
      else sendJson(res, 200, ok);
    });
    const { prom, delays } = client(p.url, { retries: 1 });
    const err = await rejection(prom.queryVector("up"));
    expect((err as Error).message).toBe(
      `Prometheus at ${p.url} is unreachable: the connection closed before an answer arrived (other side closed) (gave up after 2 attempts)`,
    );
    expect((await prom.queryVector("up")).data[0]?.value).toBe(1);
    expect(p.requests).toHaveLength(3);
    expect(delays).toHaveLength(1);
  });

  it("retries a body cut off mid-way (connection dropped)", async () => {
    const p = await peer((req, res) => {
      if (req.index === 2) return sendJson(res, 200, ok);
      res.writeHead(200, { "content-type": "application/json", "content-length": "1000" });
      res.write('{"status":"success","data":{"resultType":"vec');
      setTimeout(() => res.destroy(), 20);
    });
    const { prom } = client(p.url);
    const err = await rejection(prom.queryVector("up", { retries: 0 }));
    expect(err).toMatchObject({ name: "PromResponseError", status: 200, retryable: true });
    expect((err as PromResponseError).problem).toBe(
      "the answer was cut off, the connection closed while it was being read (other side closed)",
    );
    expect((await prom.queryVector("up")).data[0]?.value).toBe(1);
    expect(p.requests).toHaveLength(3);
  });
});

describe("garbage answers", () => {
  it("names an HTML login page behind a 200 and does not retry", async () => {
    const p = await peer((_req, res) => {
      res.writeHead(200, { "content-type": "text/html" });
      res.end(
        "<!DOCTYPE html><html><head><title>Sign in - Corp SSO</title></head><body><form>…</form></body></html>",
      );
    });
    const { prom } = client(p.url);
    const err = await rejection(prom.queryVector("up"));
    expect(err).toBeInstanceOf(PromResponseError);
    expect((err as Error).message).toBe(
      `Prometheus at ${p.url} sent an answer to /api/v1/query that is not a valid Prometheus API response: got an HTML page ("Sign in - Corp SSO") instead of JSON: check the base URL and any proxy or login page in front of Prometheus; query: up`,
    );
    expect(p.requests).toHaveLength(1);
  });

  it("reduces a proxy's 502 HTML page to its text and retries it", async () => {
    const page =
      "<html>\r\n<head><title>502 Bad Gateway</title></head>\r\n<body>\r\n<center><h1>502 Bad Gateway</h1></center>\r\n<hr><center>nginx</center>\r\n</body>\r\n</html>\r\n";
    const p = await peer((_req, res) => {
      res.writeHead(502, { "content-type": "text/html" });
      res.end(page);
    });
    const { prom } = client(p.url, { retries: 1 });
    const err = await rejection(prom.queryVector("up"));
    expect(err).toMatchObject({ name: "PromHttpError", status: 502, attempts: 2 });
    expect((err as PromHttpError).bodyExcerpt).toBe("502 Bad Gateway 502 Bad Gateway nginx");
  });

  it("says truncated JSON ends early", async () => {
    const p = await peer((_req, res) =>
      sendJson(res, 200, '{"status":"success","data":{"resultType":"vector","resu'),
    );
    const { prom } = client(p.url);
    const err = await rejection(prom.queryVector("up"));
    expect(err).toBeInstanceOf(PromResponseError);
    expect((err as PromResponseError).problem).toMatch(/^the JSON ends early, truncated answer\?/);
    expect(p.requests).toHaveLength(1);
  });

  it("names the field of a wrongly shaped answer", async () => {
    const p = await peer((_req, res) =>
      sendJson(res, 200, {
        status: "success",
        data: { resultType: "vector", result: [{ metric: { instance: "a" }, value: [1700000000, 0.5] }] },
      }),
    );
    const { prom } = client(p.url);
    const err = await rejection(prom.queryVector("up"));
    expect(err).toBeInstanceOf(PromResponseError);
    expect((err as PromResponseError).problem).toMatch(/^data\.result\[0\]\.value\[1\]: /);
  });

  it("rejects JSON that is not an API envelope", async () => {
    const p = await peer((_req, res) => sendJson(res, 200, { hello: "world" }));
    const { prom } = client(p.url);
    const err = await rejection(prom.labelValues("job"));
    expect((err as PromResponseError).problem).toBe(
      'no "status" field, this is not a Prometheus API answer: {"hello":"world"}',
    );
  });

  it("rejects an empty body", async () => {
    const p = await peer((_req, res) => sendJson(res, 200, ""));
    const { prom } = client(p.url);
    expect((await rejection(prom.buildInfo())) as PromResponseError).toMatchObject({
      problem: "the body is empty",
    });
  });

  it("treats success with an unexpected result type as PromResponseError", async () => {
    const p = await peer((_req, res) => sendJson(res, 200, ok));
    const { prom } = client(p.url);
    const err = await rejection(prom.queryRange("up", { start: 1700000000, end: 1700000600, step: "1m" }));
    expect(err).toBeInstanceOf(PromResponseError);
    expect((err as PromResponseError).problem).toBe("data.resultType: expected matrix, got vector");
  });

  it("hints at the path prefix on a 404", async () => {
    const p = await peer((_req, res) => {
      res.writeHead(404, { "content-type": "text/plain" });
      res.end("404 page not found");
    });
    const { prom } = client(p.url);
    const err = await rejection(prom.queryVector("up"));
    expect((err as Error).message).toMatch(
      /HTTP 404 Not Found for \/api\/v1\/query \(check the base URL, including any path prefix/,
    );
  });
});

describe("timeouts and unreachable servers", () => {
  it("times out a server that never answers, without retrying", async () => {
    const p = await peer(() => {
      // never answers
    });
    const { prom } = client(p.url, { timeoutMs: 200 });
    const err = await rejection(prom.queryVector("up"));
    expect(err).toBeInstanceOf(PromTimeoutError);
    expect(err).toMatchObject({ scope: "request", timeoutMs: 200, attempts: 1 });
    expect((err as Error).message).toBe(
      `Prometheus at ${p.url} did not answer /api/v1/query within 200 ms (per-request timeout); query: up`,
    );
    expect(p.requests).toHaveLength(1);
  });

  it("times out a body that stalls after the headers", async () => {
    const p = await peer((_req, res) => {
      res.writeHead(200, { "content-type": "application/json" });
      res.write('{"status":"success",');
    });
    const { prom } = client(p.url, { timeoutMs: 200 });
    expect(await rejection(prom.queryVector("up"))).toMatchObject({
      name: "PromTimeoutError",
      scope: "request",
    });
  });

  it("ends the whole call when the overall budget runs out", async () => {
    const p = await peer(() => {
      // never answers
    });
    const { prom } = client(p.url, { timeoutMs: 10_000, totalTimeoutMs: 250 });
    const err = await rejection(prom.queryVector("up"));
    expect(err).toMatchObject({ name: "PromTimeoutError", scope: "overall", timeoutMs: 250 });
    expect((err as Error).message).toMatch(/within 250 ms \(overall time budget, retries included\)/);
  });

  it("reports a refused connection as unreachable, after retrying", async () => {
    const port = await freePort();
    const base = `http://127.0.0.1:${port}`;
    const { prom, delays } = client(base);
    const err = await rejection(prom.queryVector("up"));
    expect(err).toBeInstanceOf(PromUnreachableError);
    expect(err).toMatchObject({ code: "ECONNREFUSED", attempts: 3 });
    expect((err as Error).message).toBe(
      `Prometheus at ${base} is unreachable: connect ECONNREFUSED 127.0.0.1:${port} (gave up after 3 attempts)`,
    );
    expect(delays).toHaveLength(2);
    expect(prom.stats).toMatchObject({ requests: 3, failures: 1 });
  });

  it("reports an unknown host name as unreachable", async () => {
    const { prom } = client("http://untorn-no-such-host.invalid:9090", { retries: 0 });
    const err = await rejection(prom.queryVector("up"));
    expect(err).toBeInstanceOf(PromUnreachableError);
    expect((err as Error).message).toMatch(
      /^Prometheus at http:\/\/untorn-no-such-host\.invalid:9090 is unreachable: getaddrinfo (ENOTFOUND|EAI_AGAIN) untorn-no-such-host\.invalid$/,
    );
  });

  it("explains a port that fetch refuses to use", async () => {
    const { prom } = client("http://127.0.0.1:6000", { retries: 0 });
    const err = await rejection(prom.buildInfo());
    expect(err).toBeInstanceOf(PromUnreachableError);
    expect((err as Error).message).toBe(
      "Prometheus at http://127.0.0.1:6000 is unreachable: the port is on fetch's blocked list (bad port); use another port",
    );
  });

  it("rejects with the caller's reason on abort, not a PromError", async () => {
    const p = await peer(() => {
      // never answers
    });
    const { prom } = client(p.url);
    const ac = new AbortController();
    const call = prom.queryVector("up", { signal: ac.signal });
    setTimeout(() => ac.abort(new Error("user left the page")), 50);
    const err = await rejection(call);
    expect(err).not.toBeInstanceOf(PromError);
    expect((err as Error).message).toBe("user left the page");
  });
});

describe("requests", () => {
  it("POSTs the query form-encoded below the path prefix, with the auth header and a server-side timeout", async () => {
    const p = await peer((_req, res) => sendJson(res, 200, ok));
    const { prom } = client(`${p.url}/prometheus/`, {
      bearerToken: "s3cret",
      headers: { "X-Scope-OrgID": "fleet" },
    });
    const expr =
      'sum by (instance) (rate(mysql_global_status_innodb_dblwr_pages_written[5m])) > 0 and on() vector(1) == 1 # "#&+"';
    await prom.queryVector(expr, { time: new Date("2026-01-01T00:00:00.250Z"), timeoutMs: 1500 });
    const [req] = p.requests;
    expect(req?.method).toBe("POST");
    expect(req?.url).toBe("/prometheus/api/v1/query");
    expect(req?.headers["content-type"]).toBe("application/x-www-form-urlencoded");
    expect(req?.headers["authorization"]).toBe("Bearer s3cret");
    expect(req?.headers["x-scope-orgid"]).toBe("fleet");
    const form = new URLSearchParams(req?.body);
    expect(form.get("query")).toBe(expr);
    expect(form.get("time")).toBe("1767225600.250");
    expect(form.get("timeout")).toBe("1s500ms");
  });

  it("caps the server-side timeout at the overall budget", async () => {
    const p = await peer((_req, res) => sendJson(res, 200, ok));
    const { prom } = client(p.url, { timeoutMs: 30_000, totalTimeoutMs: 2_000 });
    await prom.queryVector("up");
    expect(new URLSearchParams(p.requests[0]?.body).get("timeout")).toBe("2s");
  });

  it("sends range parameters in seconds", async () => {
    const p = await peer((_req, res) =>
      sendJson(res, 200, { status: "success", data: { resultType: "matrix", result: [] } }),
    );
    const { prom } = client(p.url);
    await prom.queryRange("up", { start: 1700000000, end: 1700003600, step: "1m30s" });
    const form = new URLSearchParams(p.requests[0]?.body);
    expect([form.get("start"), form.get("end"), form.get("step")]).toEqual([
      "1700000000.000",
      "1700003600.000",
      "90",
    ]);
  });

  it("GETs label values with the name escaped and the selectors as match[]", async () => {
    const p = await peer((_req, res) => sendJson(res, 200, { status: "success", data: ["a", "b"] }));
    const { prom } = client(p.url);
    const res = await prom.labelValues("instance", {
      match: ['up{job="mysql"}', "mysql_up"],
      start: 1700000000,
    });
    expect(res.data).toEqual(["a", "b"]);
    const url = new URL(p.requests[0]?.url ?? "", p.url);
    expect(p.requests[0]?.method).toBe("GET");
    expect(url.pathname).toBe("/api/v1/label/instance/values");
    expect(url.searchParams.getAll("match[]")).toEqual(['up{job="mysql"}', "mysql_up"]);
    expect(url.searchParams.get("start")).toBe("1700000000.000");
  });

  it("turns credentials in the URL into basic auth and keeps them out of messages", async () => {
    const p = await peer((_req, res) => sendJson(res, 500, "nope"));
    const { prom } = client(p.url.replace("http://", "http://dba:pa%3Ass@"), { retries: 0 });
    expect(prom.baseUrl).toBe(p.url);
    const err = await rejection(prom.queryVector("up"));
    expect(p.requests[0]?.headers["authorization"]).toBe(
      `Basic ${Buffer.from("dba:pa:ss").toString("base64")}`,
    );
    expect((err as Error).message).not.toMatch(/pa%3Ass|pa:ss|dba/);
  });

  it("passes warnings and infos through", async () => {
    const p = await peer((_req, res) =>
      sendJson(
        res,
        200,
        vectorEnvelope(
          { "db1:9104": "2" },
          {
            warnings: ["store 10.0.0.7:10901 unavailable: partial response"],
            infos: ['metric might not be a counter, name does not end in _total/_sum/_count/_bucket: "x"'],
          },
        ),
      ),
    );
    const { prom } = client(p.url);
    const res = await prom.queryVector("x");
    expect(res.warnings).toEqual(["store 10.0.0.7:10901 unavailable: partial response"]);
    expect(res.infos).toHaveLength(1);
    expect(res.data[0]?.value).toBe(2);
  });

  it("keeps at most maxConcurrency requests in flight", async () => {
    const p = await peer((_req, res) => {
      setTimeout(() => sendJson(res, 200, ok), 60);
    });
    const { prom } = client(p.url, { maxConcurrency: 2 });
    const answers = await Promise.all(Array.from({ length: 7 }, () => prom.queryVector("up")));
    expect(answers.every((a) => a.data.length === 1)).toBe(true);
    expect(p.requests).toHaveLength(7);
    expect(p.maxConcurrent).toBe(2);
    expect(prom.stats.maxInFlight).toBe(2);
    expect(prom.stats.queueMs).toBeGreaterThan(0);
  });

  it("reports readiness: 503 is not-ready, not an error", async () => {
    let ready = false;
    const p = await peer((_req, res) => {
      res.writeHead(ready ? 200 : 503);
      res.end(ready ? "Prometheus Server is Ready.\n" : "Service Unavailable");
    });
    const { prom } = client(p.url);
    expect(await prom.ready()).toEqual({ ready: false, status: 503, message: "Service Unavailable" });
    ready = true;
    expect(await prom.ready()).toEqual({ ready: true, status: 200, message: "Prometheus Server is Ready." });
    expect(p.requests.map((r) => r.url)).toEqual(["/-/ready", "/-/ready"]);
  });

  it("counts requests and time, and resets", async () => {
    const p = await peer((_req, res) => sendJson(res, 200, ok));
    // The fake clock moves only while a request is on the wire: 7 ms each.
    let clock = 0;
    const { prom } = client(p.url, {
      now: () => clock,
      fetch: async (url, init) => {
        clock += 7;
        return fetch(url, init);
      },
    });
    await prom.queryVector("a");
    await prom.queryVector("b");
    const stats = prom.stats;
    expect(stats).toMatchObject({ calls: 2, requests: 2, retries: 0, failures: 0, queueMs: 0 });
    expect(stats.totalMs).toBe(14);
    expect(stats.byEndpoint).toEqual({ "/api/v1/query": { requests: 2, totalMs: 14 } });
    prom.resetStats();
    expect(prom.stats.requests).toBe(0);
  });
});

describe("options and inputs", () => {
  it.each([
    ["not a url", /is not a URL/],
    ["ftp://host/", /must be http or https/],
    ["http://host:9090/?tenant=a", /must not have a query string/],
  ])("rejects base URL %j", (baseUrl, message) => {
    expect(() => new PromClient({ baseUrl })).toThrow(message);
  });

  it("rejects conflicting auth and bad limits", () => {
    const base = "http://127.0.0.1:9090";
    expect(
      () => new PromClient({ baseUrl: base, bearerToken: "t", basicAuth: { username: "u", password: "p" } }),
    ).toThrow(/either a bearer token or basic auth/);
    expect(
      () => new PromClient({ baseUrl: base, bearerToken: "t", headers: { Authorization: "x" } }),
    ).toThrow(/keep one/);
    expect(() => new PromClient({ baseUrl: base, maxConcurrency: 0 })).toThrow(
      /maxConcurrency must be an integer ≥ 1/,
    );
    expect(() => new PromClient({ baseUrl: base, retries: -1 })).toThrow(/retries must be an integer ≥ 0/);
  });

  it("rejects milliseconds passed as seconds, reversed ranges and bad steps before any request", async () => {
    const p = await peer((_req, res) => sendJson(res, 200, ok));
    const { prom } = client(p.url);
    await expect(prom.queryVector("up", { time: Date.now() })).rejects.toThrow(/looks like milliseconds/);
    await expect(prom.queryRange("up", { start: 20, end: 10, step: 1 })).rejects.toThrow(/before start/);
    await expect(prom.queryRange("up", { start: 10, end: 20, step: "0s" })).rejects.toThrow(/step must be/);
    await expect(prom.queryRange("up", { start: 10, end: 20, step: "5 min" })).rejects.toThrow(
      /invalid PromQL duration/,
    );
    await expect(prom.series([])).rejects.toThrow(/at least one selector/);
    expect(p.requests).toHaveLength(0);
  });
});
