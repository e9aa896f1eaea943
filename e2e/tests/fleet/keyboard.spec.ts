import { expect, test } from "../../fixtures/test.js";

test.describe("keyboard", () => {
  test("skip link, filters, sort buttons and rows work without a mouse", async ({ fleetPage, page }) => {
    await fleetPage.goto();
    await page.keyboard.press("Tab");
    await expect(page.getByRole("link", { name: "Skip to content" })).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page.locator("main")).toBeFocused();

    await fleetPage.search.focus();
    await page.keyboard.type("db-");
    await expect.poll(() => fleetPage.searchParams().get("q")).toBe("db-");

    // Sort by instance from the keyboard.
    const sortInstance = fleetPage.columnHeader("Instance").getByRole("button");
    await sortInstance.focus();
    await page.keyboard.press("Enter");
    await expect(fleetPage.columnHeader("Instance")).toHaveAttribute("aria-sort", "ascending");
    // The server sorts: the URL changes with the sorted rows.
    await expect.poll(() => fleetPage.searchParams().get("sort")).toBe("instance");

    // Arrow keys move between rows; Enter opens the instance.
    const links = fleetPage.instanceLinks();
    const names = await fleetPage.instanceNames();
    await links.first().focus();
    await page.keyboard.press("ArrowDown");
    await expect(links.nth(1)).toBeFocused();
    await page.keyboard.press("ArrowDown");
    await expect(links.nth(2)).toBeFocused();
    await page.keyboard.press("ArrowUp");
    await expect(links.nth(1)).toBeFocused();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(new RegExp(`/instances/${names[1]}$`));
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(names[1]!);
  });

  test("the theme toggle cycles and is remembered", async ({ fleetPage, page }) => {
    await fleetPage.goto();
    const toggle = page.getByRole("button", { name: /theme/ });
    await toggle.focus();
    await page.keyboard.press("Enter");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "light");
    await page.keyboard.press("Enter");
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await page.reload();
    await expect(page.locator("html")).toHaveAttribute("data-theme", "dark");
    await page.getByRole("button", { name: /theme/ }).click();
    await expect(page.locator("html")).not.toHaveAttribute("data-theme", /.+/);
  });
});
