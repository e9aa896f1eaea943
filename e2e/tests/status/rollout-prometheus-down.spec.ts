import { expect, test } from "../../fixtures/rollouts.js";

// The "down" console serves a copy of the recorded console's store (setup/global-setup.ts) with a
// Prometheus nobody answers: the rollout stays readable, its stored results too.
test.describe("a rollout while Prometheus is unreachable", () => {
  test.use({ target: "down" });

  test("shows the stored rollout and its last judgement, with a banner over the live charts", async ({
    rolloutPage,
    seeded,
    page,
  }) => {
    await rolloutPage.goto(seeded.judged.id);
    await expect(rolloutPage.status).toHaveAttribute("data-status", seeded.judged.status);
    await expect(page.getByTestId("comparison-wave-0")).toBeVisible();
    const banner = page.getByTestId("rollout-charts-error");
    await expect(banner).toContainText(/Prometheus at http:\/\/127\.0\.0\.1:\d+ is unreachable or failing/);
    await expect(banner).toContainText("last stored judgements above are read from the store");
    await expect(rolloutPage.timeline).toBeVisible();
  });

  test("the rollout API answers from the store", async ({ request, seeded }) => {
    const res = await request.get(`/api/v1/rollouts/${seeded.judged.id}`);
    expect(res.status()).toBe(200);
    expect((await res.json()).gates.some((g: { gate: string }) => g.gate === "bake")).toBe(true);
  });
});
