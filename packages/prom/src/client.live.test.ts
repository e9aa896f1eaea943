import { waitFor } from "@untorn/testkit/process";
import { type Prometheus, startPrometheus } from "@untorn/testkit/prometheus";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PromClient } from "./client.js";
import { PromApiError, PromResponseError } from "./errors.js";
import { rangeToSeriesMap, toSeriesMap } from "./series.js";
import { type HttpPeer, startHttpPeer } from "./testing/http-peer.js";

// Against a real prometheus scraping two fixture targets with known values.

/** Exposition text of fixture target number `n`. */
function exposition(n: number): string {
  return [
    "# HELP untorn_fixture_gauge The target's number.",
    "# TYPE untorn_fixture_gauge gauge",
    `untorn_fixture_gauge ${n}`,
    "# HELP untorn_fixture_special Values JSON cannot carry as numbers.",
    "# TYPE untorn_fixture_special gauge",
    'untorn_fixture_special{kind="nan"} NaN',
    'untorn_fixture_special{kind="inf"} +Inf',
    'untorn_fixture_special{kind="neg_inf"} -Inf',
    "",
  ].join("\n");
}

let targets: HttpPeer[] = [];
let prometheus: Prometheus;
let prom: PromClient;

beforeAll(async () => {
  targets = await Promise.all(
    [1, 2].map((n) =>
      startHttpPeer((_req, res) => {
        res.writeHead(200, { "content-type": "text/plain; version=0.0.4" });
        res.end(exposition(n));
      }),
    ),
  );
  prometheus = await startPrometheus({
    jobs: [{ jobName: "fixture", targets: targets.map((t) => `127.0.0.1:${t.port}`) }],
  });
  prom = new PromClient({ baseUrl: prometheus.url, timeoutMs: 10_000 });
  // Enough scrapes (1 s apart) of both targets for range queries.
  await waitFor(
    "5 scrapes of both fixture targets",
    async () => {
      const { data } = await prom.queryVector("count_over_time(untorn_fixture_gauge[1m]) >= 5");
      return data.length === 2;
    },
    { timeoutMs: 30_000, intervalMs: 500 },
  );
});

afterAll(async () => {
  await prometheus?.stop();
  await Promise.all(targets.map((t) => t.close()));
});

const instances = () => targets.map((t) => `127.0.0.1:${t.port}`);

describe("PromClient against a real Prometheus", () => {
  it("reads build info and readiness", async () => {
    const info = await prom.buildInfo();
    expect(info.version).toMatch(/^\d+\.\d+\.\d+/);
    expect(typeof info.goVersion).toBe("string");
    expect(await prom.ready()).toMatchObject({ ready: true, status: 200 });
  });

  it("answers an instant vector keyed by instance", async () => {
    const res = await prom.queryVector("untorn_fixture_gauge");
    expect(res.warnings).toEqual([]);
    const byInstance = toSeriesMap(res.data);
    expect(Object.fromEntries(byInstance)).toEqual({ [instances()[0]!]: 1, [instances()[1]!]: 2 });
    expect(res.data[0]?.labels["job"]).toBe("fixture");
    expect(res.data[0]?.timestamp).toBeGreaterThan(1.7e9);
  });

  it("parses NaN and infinities", async () => {
    const res = await prom.queryVector(`untorn_fixture_special{instance="${instances()[0]}"}`);
    const byKind = toSeriesMap(res.data, "kind");
    expect(byKind.get("nan")).toBeNaN();
    expect(byKind.get("inf")).toBe(Number.POSITIVE_INFINITY);
    expect(byKind.get("neg_inf")).toBe(Number.NEGATIVE_INFINITY);
  });

  it("answers scalars and strings, and evaluates at a given time", async () => {
    const at = Math.floor(Date.now() / 1000) - 60;
    // vector(1) is an instant vector, not a scalar: the typed method refuses it.
    const scalar = await prom.queryScalar("vector(1)").catch((e) => e);
    expect(scalar).toBeInstanceOf(PromResponseError);
    expect((scalar as PromResponseError).problem).toBe("data.resultType: expected scalar, got vector");

    const time = await prom.queryScalar("time()", { time: at });
    expect(time.data).toEqual({ timestamp: at, value: at });
    const text = await prom.query('"doublewrite"');
    expect(text.data).toMatchObject({ resultType: "string", result: { value: "doublewrite" } });
  });

  it("answers a range query as one series per target with the requested step", async () => {
    const end = Math.floor(Date.now() / 1000);
    const res = await prom.queryRange("untorn_fixture_gauge", { start: end - 2, end, step: "1s" });
    const series = rangeToSeriesMap(res.data);
    expect([...series.keys()].sort()).toEqual([...instances()].sort());
    const first = series.get(instances()[0]!)!;
    expect(first.t).toEqual([end - 2, end - 1, end]);
    expect(first.v).toEqual([1, 1, 1]);
    expect(series.get(instances()[1]!)?.v).toEqual([2, 2, 2]);
  });

  it("returns an instant query over a range selector as a matrix", async () => {
    const res = await prom.query("untorn_fixture_gauge[5s]");
    expect(res.data.resultType).toBe("matrix");
  });

  it("lists series and label values", async () => {
    const series = await prom.series(["untorn_fixture_gauge", 'untorn_fixture_special{kind="nan"}']);
    expect(series.data).toHaveLength(4);
    expect(series.data.every((l) => l["job"] === "fixture")).toBe(true);

    const values = await prom.labelValues("instance", { match: ["untorn_fixture_gauge"] });
    expect(values.data).toEqual([...instances()].sort());
    expect((await prom.labelValues("kind")).data).toEqual(["inf", "nan", "neg_inf"]);
  });

  it("reports a PromQL syntax error as PromApiError bad_data with the server's message", async () => {
    const before = prom.stats.requests;
    const err = await prom.queryVector("sum(rate(untorn_fixture_gauge[5m])").catch((e) => e);
    expect(err).toBeInstanceOf(PromApiError);
    const api = err as PromApiError;
    expect(api.errorType).toBe("bad_data");
    expect(api.status).toBe(400);
    expect(api.error).toMatch(/parse error/);
    expect(api.message).toContain(
      `Prometheus at ${prometheus.url} rejected the query (bad_data, HTTP 400): `,
    );
    expect(api.message).toContain("; query: sum(rate(untorn_fixture_gauge[5m])");
    expect(prom.stats.requests - before).toBe(1);
  });

  it("reports an evaluation error (422 execution) without retrying", async () => {
    const before = prom.stats.requests;
    // Two series on each side with on() match each other many-to-many.
    const err = await prom.queryVector("untorn_fixture_gauge + on() untorn_fixture_gauge").catch((e) => e);
    expect(err).toMatchObject({ name: "PromApiError", errorType: "execution", status: 422 });
    expect((err as Error).message).toMatch(/many-to-many matching not allowed/);
    expect(prom.stats.requests - before).toBe(1);
  });

  it("counts its requests per endpoint", async () => {
    const client = new PromClient({ baseUrl: prometheus.url });
    await client.queryVector("untorn_fixture_gauge");
    await client.labelValues("job");
    await client.series("untorn_fixture_gauge");
    const stats = client.stats;
    expect(stats.requests).toBe(3);
    expect(Object.keys(stats.byEndpoint).sort()).toEqual([
      "/api/v1/label/:name/values",
      "/api/v1/query",
      "/api/v1/series",
    ]);
    expect(stats.totalMs).toBeGreaterThan(0);
  });
});
