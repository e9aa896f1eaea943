import { expect, test } from "../../fixtures/test.js";

test.describe("Recommendations search and filters", () => {
  test("filter by severity and search from the keyboard, in the URL; a bad value is named", async ({
    recommendationsPage,
    page,
  }) => {
    await recommendationsPage.goto();
    const group = recommendationsPage.group("doublewrite-off-unverified-storage");
    await expect(group).toBeVisible();
    await page.getByLabel("Severity").selectOption("critical");
    const search = page.getByLabel("Search");
    await search.fill("db-off");
    await search.press("Enter");
    await expect(page).toHaveURL(/\/recommendations\?q=db-off&severity=critical/);
    await expect(group).toBeVisible();
    await expect(page.getByTestId("recommendations-count")).toContainText("findings match the filters");
    const sections = page.locator("section[data-rule]");
    for (const s of await sections.all()) await expect(s.getByRole("link", { name: "db-off" })).toBeVisible();
    await page.goto("/recommendations?q=no-such-instance");
    await expect(page.getByText("No finding matches these filters.")).toBeVisible();
    await page.goto("/recommendations?severity=fatal");
    await expect(page.getByTestId("param-problems")).toContainText("severity=fatal");
    await expect(group).toBeVisible();
  });
});
