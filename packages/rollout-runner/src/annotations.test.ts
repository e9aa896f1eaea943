// Grafana can't run on this machine: these tests post to a real HTTP server started by the test
// that records each request and answers like Grafana's annotations API (or fails on purpose).
import net from "node:net";
import { afterEach, describe, expect, it } from "vitest";
import { createAnnotator } from "./annotations.js";
import { type Recorder, startRecorder } from "./testing/http-recorder.js";

const rolloutId = "3f1c7e0a-8a55-4b1e-9d53-2a3e2b8a9c10";
const time = new Date("2026-11-24T12:00:00Z");
let rec: Recorder | undefined;
afterEach(async () => {
  await rec?.close();
  rec = undefined;
});

describe("grafana annotations", () => {
  it("posts the step to /api/annotations with the token and the untorn and rollout tags", async () => {
    rec = await startRecorder(() => ({ status: 200, body: '{"id":42,"message":"Annotation added"}' }));
    const logs: string[] = [];
    const a = createAnnotator({ url: `${rec.url}/grafana/`, token: "glsa_test" }, (m) => logs.push(m));
    const r = await a.annotate({
      rolloutId,
      time,
      timeEnd: new Date(time.getTime() + 3_600_000),
      text: "wave 1 bake window",
      tags: ["wave-baked", "db-2:3306"],
    });
    expect(r).toEqual({ ok: true, id: 42 });
    expect(logs).toEqual([]);
    expect(rec.requests).toHaveLength(1);
    const req = rec.requests[0]!;
    expect(req).toMatchObject({ method: "POST", url: "/grafana/api/annotations" });
    expect(req.headers["authorization"]).toBe("Bearer glsa_test");
    expect(req.headers["content-type"]).toBe("application/json");
    expect(JSON.parse(req.body)).toEqual({
      time: time.getTime(),
      timeEnd: time.getTime() + 3_600_000,
      tags: ["untorn", "rollout", rolloutId, "wave-baked", "db-2:3306"],
      text: "wave 1 bake window",
    });
  });

  it("logs and returns a refusal by Grafana, never throws", async () => {
    rec = await startRecorder(() => ({ status: 401, body: '{"message":"invalid API key"}' }));
    const logs: string[] = [];
    const r = await createAnnotator({ url: rec.url, token: "bad" }, (m) => logs.push(m)).annotate({
      rolloutId,
      time,
      text: "x",
    });
    expect(r).toEqual({ ok: false, error: 'HTTP 401: {"message":"invalid API key"}' });
    expect(logs[0]).toContain(`grafana annotation for rollout ${rolloutId} not written`);
    expect(logs[0]).toContain("the rollout goes on");
  });

  it("gives up on a Grafana that never answers, and on a closed port", async () => {
    rec = await startRecorder(() => "hang");
    const logs: string[] = [];
    const slow = await createAnnotator({ url: rec.url, timeoutMs: 300 }, (m) => logs.push(m)).annotate({
      rolloutId,
      time,
      text: "x",
    });
    expect(slow).toEqual({ ok: false, error: "no answer within 300 ms" });

    const port = await new Promise<number>((resolve) => {
      const s = net.createServer().listen(0, "127.0.0.1", () => {
        const p = (s.address() as net.AddressInfo).port;
        s.close(() => resolve(p));
      });
    });
    const refused = await createAnnotator({ url: `http://127.0.0.1:${port}` }, (m) => logs.push(m)).annotate({
      rolloutId,
      time,
      text: "x",
    });
    expect(refused.ok).toBe(false);
    expect((refused as { error: string }).error).toContain("ECONNREFUSED");
    expect(logs).toHaveLength(2);
  });

  it("does nothing when no Grafana is configured", async () => {
    const a = createAnnotator(null);
    expect(a.enabled).toBe(false);
    expect(await a.annotate({ rolloutId, time, text: "x" })).toEqual({
      ok: false,
      error: "annotations disabled",
    });
  });
});
