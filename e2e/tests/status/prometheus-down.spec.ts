import { expect, test } from "../../fixtures/test.js";

test.describe("Prometheus unreachable from the start", () => {
  test.use({ target: "down" });

  test("the fleet page says so in a banner, with the error, and shows no table", async ({
    fleetPage,
    page,
  }) => {
    await fleetPage.goto();
    const alert = page.getByRole("main").getByRole("alert").filter({ hasText: "unreachable or failing" });
    await expect(alert).toContainText(/Prometheus at http:\/\/127\.0\.0\.1:\d+ is unreachable/);
    await expect(alert).toContainText("PROMETHEUS_URL");
    await expect(fleetPage.table).toHaveCount(0);
  });

  test("the read API answers 503 with the reason", async ({ request }) => {
    const r = await request.get("/api/v1/fleet");
    expect(r.status()).toBe(503);
    const body = await r.json();
    expect(body.error).toMatch(/^the data source is unavailable: Prometheus at .* is unreachable/);
    expect(body.status.state).toBe("unavailable");
  });
});

test.describe("Prometheus failing after a good read", () => {
  test.use({ target: "flaky" });

  test("the last good data stays on screen, marked stale, until Prometheus is back", async ({
    fleetPage,
    page,
    request,
  }) => {
    const proxy = process.env.UNTORN_E2E_PROXY!;
    await fleetPage.goto();
    await expect(fleetPage.rows().first()).toBeVisible();
    await expect(page.getByRole("main").getByRole("alert")).toHaveCount(0);
    const shown = await fleetPage.instanceNames();
    await request.post(`${proxy}/__untorn/down`);
    try {
      await page.reload();
      const banner = page
        .getByRole("main")
        .getByRole("alert")
        .filter({ hasText: "showing the last good data (stale)" });
      await expect(banner).toBeVisible();
      expect(await fleetPage.instanceNames()).toEqual(shown);
      await expect(fleetPage.card("Instances")).toContainText("stale");
      // Each row says so too, not only the banner.
      for (const row of await fleetPage.rows().all()) await expect(row).toContainText("stale");
      const api = await (await request.get("/api/v1/fleet")).json();
      expect(api.status.state).toBe("stale");
      expect(api.instances.every((r: { stale: boolean }) => r.stale)).toBe(true);
    } finally {
      await request.post(`${proxy}/__untorn/up`);
    }
    await page.reload();
    await expect(page.getByRole("main").getByRole("alert")).toHaveCount(0);
    await expect(fleetPage.table.locator("tr.stale")).toHaveCount(0);
  });
});

test.describe("no data source at all", () => {
  test.use({ target: "empty" });

  test("the fleet page explains how to add an exporter or record a fleet", async ({ fleetPage, page }) => {
    await fleetPage.goto();
    const empty = page.getByRole("region", { name: "No data: connect Prometheus or add a recorded fleet" });
    await expect(empty).toContainText("PROMETHEUS_URL");
    await expect(empty).toContainText("untorn record");
    await expect(empty).toContainText("lab/recordings/");
    await expect(page.getByText("No data source")).toBeVisible();
  });
});
