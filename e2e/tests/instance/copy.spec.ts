import { expect, test } from "../../fixtures/test.js";

test.use({ permissions: ["clipboard-read", "clipboard-write"] });

test("a finding's copy button puts the exact change on the clipboard", async ({ instancePage, page }) => {
  await instancePage.goto("db-off");
  const finding = instancePage.findings
    .locator("article")
    .filter({ has: page.locator(".snippet") })
    .first();
  const snippet = finding.locator(".snippet").first();
  const text = await snippet.locator("pre").innerText();
  expect(text.length).toBeGreaterThan(5);
  await snippet.getByRole("button", { name: /^Copy / }).click();
  await expect(snippet.getByRole("button", { name: /^Copy / })).toHaveText("Copied");
  await expect(snippet.getByRole("status")).toHaveText("Copied to the clipboard");
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(text);
});
