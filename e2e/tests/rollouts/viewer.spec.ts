import { signIn } from "../../fixtures/auth.js";
import { expect, test } from "../../fixtures/rollouts.js";

const PASSWORD = "viewer-password-rollouts-0123";

test("a viewer reads a rollout and sees no operator control", async ({
  page,
  context,
  baseURL,
  rolloutPage,
  seeded,
}) => {
  const name = `rollout-viewer-${Date.now().toString(36)}`;
  await page.goto("/admin/users");
  const form = page.getByTestId("new-user");
  await form.getByLabel("Username").fill(name);
  await form.getByLabel(/^Password/).fill(PASSWORD);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByRole("status")).toHaveText(`Created ${name} (viewer).`);
  await context.clearCookies();
  await context.addCookies([
    { name: "untorn_session", value: await signIn(baseURL!, name, PASSWORD), url: baseURL! },
  ]);

  await rolloutPage.goto(seeded.baking.id);
  await expect(page.getByTestId("user-menu")).toContainText(`${name} (viewer)`);
  await expect(rolloutPage.status).toHaveText("Active");
  await expect(rolloutPage.timeline).toBeVisible();
  await expect(page.getByTestId("rollout-controls")).toHaveCount(0);
  for (const action of [/approve/i, /pause/i, /resume/i, /abort/i, /revert/i, /mark .*done/i])
    await expect(page.getByRole("main").getByRole("button", { name: action })).toHaveCount(0);
});
