import { expect, test } from "../../fixtures/rollouts.js";

test("the list shows rollouts someone still acts on first, with state, progress, last gate and who", async ({
  rolloutsPage,
  seeded,
  page,
}) => {
  await page.goto("/");
  await page.getByRole("navigation", { name: "Main" }).getByRole("link", { name: "Rollouts" }).click();
  await expect(page).toHaveURL(/\/rollouts$/);
  await expect(rolloutsPage.table).toBeVisible();
  const ids = await rolloutsPage
    .rows()
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-rollout")));
  const statuses = await rolloutsPage
    .rows()
    .evaluateAll((rows) => rows.map((r) => r.getAttribute("data-status")));
  // The aborted rollout is the newest, yet comes after the active one; every active-like row is first.
  expect(ids.indexOf(seeded.baking.id)).toBeLessThan(ids.indexOf(seeded.aborted.id));
  const finished = statuses.map((s) => ["completed", "aborted", "reverted"].includes(s ?? ""));
  expect(finished).toEqual([...finished].sort((a, b) => Number(a) - Number(b)));

  const active = rolloutsPage.row(seeded.baking.id);
  await expect(active.getByRole("cell").nth(0)).toHaveText("Active");
  await expect(active).toContainText("0 of 1 wave done");
  await expect(active).toContainText(/Pass Step verification, wave 0 \(billing-r1:9105\)/);
  await expect(active).toContainText("alice");
  const aborted = rolloutsPage.row(seeded.aborted.id);
  await expect(aborted).toContainText("Aborted");
  await expect(aborted).toContainText("bob");
  await expect(aborted).toContainText("none yet");

  await active.getByRole("link", { name: "Doublewrite off on the billing canary" }).click();
  await expect(page).toHaveURL(new RegExp(`/rollouts/${seeded.baking.id}$`));
});
