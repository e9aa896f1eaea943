import { expect, test } from "../../fixtures/test.js";

test("groups the fleet's findings by rule with counts and affected instances", async ({
  recommendationsPage,
  page,
}) => {
  await recommendationsPage.goto();
  const rules = recommendationsPage.rules;
  await expect(rules.locator("tbody tr").first()).toBeVisible();
  // Doublewrite OFF on unverified storage (db-off) is critical: listed first.
  const first = rules.locator("tbody tr").first();
  await expect(first).toContainText("critical");
  const group = recommendationsPage.group("doublewrite-off-unverified-storage");
  await expect(group.getByRole("heading", { level: 2 })).toContainText("(1 instance)");
  await group.getByRole("link", { name: "db-off" }).click();
  await expect(page).toHaveURL(/\/instances\/db-off$/);
});
