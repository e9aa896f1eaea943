import { expect, test } from "../../fixtures/test.js";

test.describe("read API", () => {
  test("GET /api/v1/fleet lists the fleet, filtered and sorted like the page", async ({
    request,
    instances,
  }) => {
    const all = await request.get("/api/v1/fleet");
    expect(all.status()).toBe(200);
    expect(all.headers()["content-type"]).toContain("application/json");
    const body = await all.json();
    expect(body.total).toBe(instances.length);
    expect(body.instances.map((r: { instance: string }) => r.instance).sort()).toEqual(instances);
    expect(body.summary.instances).toBe(instances.length);
    expect(body.timing.queries).toBeGreaterThan(0);
    const some = await (await request.get("/api/v1/fleet?cluster=orders&sort=instance&dir=desc")).json();
    expect(some.instances.map((r: { instance: string }) => r.instance)).toEqual(["db-on", "db-off"]);
    expect(some.query).toEqual({ cluster: "orders", sort: "instance", dir: "desc" });
  });

  test("GET /api/v1/fleet with bad parameters is a 400 naming them", async ({ request }) => {
    const r = await request.get("/api/v1/fleet?sort=bogus&colour=red&limit=0");
    expect(r.status()).toBe(400);
    const body = await r.json();
    expect(body.error).toMatch(/^bad query parameters: /);
    expect(body.issues.map((i: { param: string }) => i.param).sort()).toEqual(["colour", "limit", "sort"]);
  });

  test("GET /api/v1/instances/{id}: facts, verdict, evidence, gate and findings; 404 and 400", async ({
    request,
  }) => {
    const r = await request.get(`/api/v1/instances/${encodeURIComponent("db-on")}`);
    expect(r.status()).toBe(200);
    const body = await r.json();
    expect(body.instance).toBe("db-on");
    expect(body.facts.server.flavor).toBe("mariadb");
    expect(body.facts.identity).toMatchObject({ cluster: "orders", role: "primary" });
    expect(body.advice.verdict.evidence).toHaveLength(10);
    expect(["verified", "unverified", "unsafe"]).toContain(body.advice.safetyGate.status);
    expect(body.metadata).toMatchObject({ cluster: "orders", updatedBy: "e2e setup" });

    const missing = await request.get("/api/v1/instances/nope%3A1");
    expect(missing.status()).toBe(404);
    expect((await missing.json()).error).toBe(
      'no instance "nope:1" in the fleet (GET /api/v1/fleet lists them)',
    );

    const literal = await request.get(`/api/v1/instances/${encodeURIComponent("odd%41")}`);
    expect((await literal.json()).error).toContain('"odd%41"');

    const bad = await request.get(`/api/v1/instances/${"x".repeat(600)}`);
    expect(bad.status()).toBe(400);
    expect((await bad.json()).error).toMatch(/at most 512 characters/);
  });
});
