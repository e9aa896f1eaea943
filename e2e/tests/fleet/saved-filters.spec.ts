import { expect, test } from "../../fixtures/test.js";

test("a saved view of the fleet comes back after a reload, opens its filters, and can be deleted", async ({
  fleetPage,
  page,
}) => {
  await fleetPage.goto("cluster=orders&sort=instance");
  const saved = page.getByTestId("saved-filters");
  const open = () =>
    saved.evaluate((d) => {
      (d as HTMLDetailsElement).open = true;
    });
  await saved.locator("summary").focus();
  await page.keyboard.press("Enter");
  await saved.getByLabel("Name").fill("Orders by name");
  await saved.getByLabel("Name").press("Enter");
  await expect(saved.getByRole("link", { name: "Orders by name" })).toBeVisible();
  await fleetPage.goto();
  await expect(saved.locator("summary")).toHaveText("Saved views (1)");
  await open();
  const link = saved.getByRole("link", { name: "Orders by name" });
  await expect(link).toHaveAttribute("href", "/?cluster=orders&sort=instance");
  await link.click();
  await expect(page).toHaveURL(/\?cluster=orders&sort=instance$/);
  await expect(fleetPage.rows()).toHaveCount(2);
  await open();
  await saved.getByRole("button", { name: "Delete Orders by name" }).click();
  await expect(saved.getByRole("link", { name: "Orders by name" })).toHaveCount(0);
});
