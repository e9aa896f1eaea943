import { expect, test } from "../../fixtures/test.js";

// Global setup holds this console's data directory open in another process before the console starts.
test.describe("the store's data directory is locked by another process", () => {
  test.use({ target: "locked" });

  test("the fleet is still profiled, and a banner says the metadata is unavailable and why", async ({
    fleetPage,
    page,
  }) => {
    await fleetPage.goto();
    await expect(fleetPage.rows().first()).toBeVisible();
    const banner = page
      .getByRole("main")
      .getByRole("status")
      .filter({ hasText: "Fleet metadata is unavailable" });
    await expect(banner).toContainText(/data directory .*data-locked is locked by/);
  });

  test("the instance page keeps its advice and says why metadata cannot be edited", async ({
    page,
    fleetPage,
  }) => {
    await fleetPage.goto();
    const first = (await fleetPage.instanceNames())[0]!;
    await page.goto(`/instances/${encodeURIComponent(first)}`);
    await expect(page.getByRole("heading", { level: 1 })).toContainText(first);
    const section = page.getByRole("region", { name: "Fleet metadata" });
    await expect(section).toContainText("The store cannot be opened, so metadata cannot be edited");
    await expect(section).toContainText(/is locked by/);
    await expect(section.getByRole("button", { name: "Save metadata" })).toHaveCount(0);
  });
});
