import { expect, test } from "../../fixtures/rollouts.js";

/** The console's own /metrics: the seeded rollouts (completed, baking, aborted) as Prometheus sees them. */
test("GET /metrics exposes rollouts by status, gate results, bake verdicts and time to a verdict", async ({
  request,
  baseURL,
}) => {
  const r = await request.get("/metrics");
  expect(r.status()).toBe(200);
  expect(r.headers()["content-type"]).toBe("text/plain; version=0.0.4; charset=utf-8");
  const text = await r.text();
  const value = (series: string) => {
    const line = text.split("\n").find((l) => l.startsWith(`${series} `));
    return line === undefined ? undefined : Number(line.slice(series.length + 1));
  };
  expect(value("untorn_console_rollout_store_up")).toBe(1);
  expect(value('untorn_console_rollouts{status="active"}')).toBeGreaterThanOrEqual(1);
  expect(value('untorn_console_rollouts{status="completed"}')).toBeGreaterThanOrEqual(1);
  expect(value('untorn_console_rollouts{status="aborted"}')).toBeGreaterThanOrEqual(1);
  expect(value('untorn_console_rollout_gate_results{gate="step",outcome="pass"}')).toBeGreaterThanOrEqual(1);
  expect(value('untorn_console_rollout_bake_verdicts{verdict="passed"}')).toBeGreaterThanOrEqual(1);
  expect(value("untorn_console_rollout_time_to_verdict_seconds_count")).toBeGreaterThanOrEqual(1);
  expect(text).toContain("# TYPE untorn_console_rollout_time_to_verdict_seconds histogram");
  // Without the fixtures' session or token (fetch from the test process).
  expect((await fetch(`${baseURL}/metrics`)).status).toBe(401);
  expect((await request.get("/metrics?debug=1")).status()).toBe(400);
});
