import { expect, test } from "../../fixtures/rollouts.js";

test.describe("a rollout in progress", () => {
  test.use({ permissions: ["clipboard-read", "clipboard-write"] });

  test("shows its waves, gates with their evidence, the steps with copy buttons, and the audit", async ({
    rolloutPage,
    seeded,
    page,
  }) => {
    await rolloutPage.goto(seeded.baking.id);
    await expect(rolloutPage.status).toHaveText("Active");
    await expect(rolloutPage.status).toHaveAttribute("data-status", "active");
    await expect(page.getByRole("heading", { level: 1 })).toHaveText("Doublewrite off on the billing canary");

    const wave = rolloutPage.wave(0);
    await expect(wave).toHaveAttribute("data-phase", "baking");
    await expect(wave).toContainText("control (left untouched): billing-r2:9105");
    await expect(rolloutPage.gate(0, "pre-wave")).toHaveAttribute("data-outcome", "pass");
    // The step gate's evidence: what was expected and what the exporter read back.
    const step = rolloutPage.gate(0, "step");
    await step.locator("summary").click();
    await expect(step).toContainText("Read-back matches OFF");
    await expect(step.getByRole("table")).toBeVisible();
    await expect(wave).toContainText("Not judged yet: the wave is baking");

    // The exact step for the canary's platform, copied as shown.
    const canary = rolloutPage.step("billing-r1:9105");
    await expect(canary).toContainText("innodb_doublewrite");
    await expect(canary.getByTestId("readback-billing-r1:9105")).toContainText("seen doublewrite mode off");
    const snippet = canary.locator(".snippet").first();
    const text = await snippet.locator("pre").innerText();
    await snippet.getByRole("button", { name: /^Copy / }).click();
    await expect(snippet.getByRole("button", { name: /^Copy / })).toHaveText("Copied");
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(text);

    const types = await rolloutPage.timeline
      .locator("tbody tr")
      .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-event")));
    expect(types.slice(0, 5)).toEqual([
      "created",
      "backup-attested",
      "wave-approved",
      "gate",
      "wave-started",
    ]);
    await expect(rolloutPage.timeline).toContainText("alice");
    await expect(rolloutPage.timeline).toContainText("reconciler (automatic)");
  });
});

test("a judged wave's comparison is read against the control, and inconclusive is never a pass", async ({
  rolloutPage,
  seeded,
  page,
}) => {
  await rolloutPage.goto(seeded.judged.id);
  await expect(rolloutPage.status).toHaveAttribute("data-status", seeded.judged.status);
  const table = page.getByTestId("comparison-wave-0");
  await expect(table).toBeVisible();
  const bytes = table.locator('tr[data-metric="write_bytes_per_transaction"]');
  await expect(bytes).toContainText(/−\d+\.\d% vs control/);
  await expect(rolloutPage.wave(0)).toContainText("relative to what the untouched control did");
  await expect(page.locator("dl.legend")).toContainText("not a pass");
  await expect(page.locator("dl.legend")).toContainText("never counted as a pass");
  // Recorded console: the rollout's own data is labelled as such, and the charts say what the
  // recording does not hold instead of drawing zeros.
  await expect(page.getByTestId("recorded-note")).toContainText("Recorded data");
  const charts = rolloutPage.section("Canary vs control");
  await expect(charts).toContainText(/Not in the recording|holds no series|No series|outside the recording/);
  await expect(page.getByRole("link", { name: "Change report" })).toHaveAttribute(
    "href",
    `/rollouts/${seeded.judged.id}/report`,
  );
});

test("an unknown or malformed rollout id answers HTTP 404 with the not-found page, not an error", async ({
  page,
}) => {
  for (const path of [
    "/rollouts/00000000-0000-4000-8000-000000000000",
    "/rollouts/00000000-0000-4000-8000-000000000000/report",
    "/rollouts/not-a-rollout",
    "/rollouts/not-a-rollout/report",
  ]) {
    const res = await page.goto(path);
    // The status, not only the words: no loading skeleton streams a 200 before the lookup.
    expect(res?.status(), path).toBe(404);
    await expect(page.getByRole("heading", { level: 1, name: "Not found" })).toBeVisible();
    // (Next.js's route announcer is an alert outside main.)
    await expect(page.getByRole("main").getByRole("alert")).toHaveCount(0);
  }
});
