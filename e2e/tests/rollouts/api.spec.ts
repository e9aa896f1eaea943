import { expect, test } from "../../fixtures/rollouts.js";

// The read API as automation calls it: with the read-only viewer token (fixtures/test.ts).
test.describe("the rollout read API", () => {
  test("lists rollouts, active first, and filters by state", async ({ request, seeded }) => {
    const res = await request.get("/api/v1/rollouts");
    expect(res.status()).toBe(200);
    const body = await res.json();
    const ids = body.rollouts.map((r: { id: string }) => r.id);
    expect(ids).toEqual(expect.arrayContaining([seeded.judged.id, seeded.baking.id, seeded.aborted.id]));
    expect(ids.indexOf(seeded.baking.id)).toBeLessThan(ids.indexOf(seeded.aborted.id));
    const only = await (await request.get("/api/v1/rollouts?status=aborted")).json();
    expect(only.rollouts.map((r: { id: string }) => r.id)).toEqual([seeded.aborted.id]);
  });

  test("shows one rollout with its document, timeline and gates", async ({ request, seeded }) => {
    const res = await request.get(`/api/v1/rollouts/${seeded.baking.id}`);
    expect(res.status()).toBe(200);
    const body = await res.json();
    expect(body.summary).toMatchObject({ id: seeded.baking.id, status: "active", createdBy: "alice" });
    expect(body.document.waves[0].phase).toBe("baking");
    expect(body.gates.map((g: { gate: string }) => g.gate)).toEqual(["pre-wave", "step"]);
    expect(body.events[0].type).toBe("created");
  });

  test("answers 404 for an unknown rollout and 400 naming the bad parameter", async ({ request }) => {
    const missing = await request.get("/api/v1/rollouts/00000000-0000-4000-8000-000000000000");
    expect(missing.status()).toBe(404);
    expect((await missing.json()).error).toMatch(/^no rollout/);
    const badId = await request.get("/api/v1/rollouts/x'or'1");
    expect(badId.status()).toBe(400);
    expect((await badId.json()).issues[0].param).toBe("id");
    const badStatus = await request.get("/api/v1/rollouts?status=running");
    expect(badStatus.status()).toBe(400);
    expect((await badStatus.json()).issues[0]).toMatchObject({ param: "status", value: "running" });
    const badLimit = await request.get("/api/v1/rollouts?limit=5000");
    expect((await badLimit.json()).issues[0].param).toBe("limit");
  });

  test("serves the report with its content type and file name", async ({ request, seeded }) => {
    const md = await request.get(`/api/v1/rollouts/${seeded.aborted.id}/report?format=md`);
    expect(md.headers()["content-type"]).toBe("text/markdown; charset=utf-8");
    expect(md.headers()["content-disposition"]).toBe(
      `attachment; filename="rollout-${seeded.aborted.id}-report.md"`,
    );
    expect(await md.text()).toContain("**Verdict: aborted**");
  });

  test("refuses anyone without a credential, as JSON", async ({ baseURL, seeded }) => {
    for (const path of [
      "/api/v1/rollouts",
      `/api/v1/rollouts/${seeded.baking.id}`,
      `/api/v1/rollouts/${seeded.baking.id}/report`,
    ]) {
      const res = await fetch(`${baseURL}${path}`);
      expect(res.status, path).toBe(401);
      expect((await res.json()).error).toMatch(/needs a signed-in viewer or an API token/);
    }
  });
});
