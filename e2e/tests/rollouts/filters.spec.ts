import { expect, test } from "../../fixtures/rollouts.js";

test("the rollout list: search and state filter in the URL, from the keyboard", async ({
  rolloutsPage,
  seeded,
  page,
}) => {
  await page.goto("/rollouts");
  await expect(rolloutsPage.table).toBeVisible();
  await page.getByLabel("State").selectOption("aborted");
  await page.getByRole("button", { name: "Apply" }).press("Enter");
  await expect(page).toHaveURL(/\/rollouts\?q=&status=aborted|\/rollouts\?status=aborted/);
  await expect(rolloutsPage.row(seeded.aborted.id)).toBeVisible();
  await expect(rolloutsPage.row(seeded.baking.id)).toHaveCount(0);
  await page.goto("/rollouts?q=billing%20canary");
  await expect(rolloutsPage.row(seeded.baking.id)).toBeVisible();
  await expect(rolloutsPage.row(seeded.aborted.id)).toHaveCount(0);
  await page.goto("/rollouts?q=nothing-like-this");
  await expect(page.getByTestId("rollouts-none-match")).toBeVisible();
  await page.goto("/rollouts?status=stuck");
  await expect(page.getByTestId("param-problems")).toContainText("status=stuck");
  await expect(rolloutsPage.row(seeded.baking.id)).toBeVisible();
});
