import type { Browser, BrowserContext, Locator, Page } from "@playwright/test";
import { ADMIN_USER, signIn } from "../../fixtures/auth.js";
import { InstancePage } from "../../fixtures/pages/instance-page.js";
import { expect, test } from "../../fixtures/test.js";

/**
 * The admin's users page (apps/web/src/app/admin/users/page.tsx, the updateUser Server Action): each
 * change reaches the user on their very next request, and each is in the audit log with its before/after.
 */
const PASSWORD = "member-password-0123";
const NEW_PASSWORD = "member-password-4567";

/** The admin creates an account on the users page; returns its name. */
async function createUser(page: Page, role: "viewer" | "operator"): Promise<string> {
  const name = `member-${Date.now().toString(36)}-${Math.random().toString(36).slice(2, 6)}`;
  await page.goto("/admin/users");
  const form = page.getByRole("region", { name: "New user" });
  await form.getByLabel("Username").fill(name);
  await form.getByLabel(/^Password/).fill(PASSWORD);
  await form.getByLabel("Role").selectOption(role);
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByRole("status")).toHaveText(`Created ${name} (${role}).`);
  return name;
}

/** The user's row of the users table (its Change cell holds the apply form). */
function userRow(page: Page, name: string): Locator {
  return page.getByRole("row").filter({ has: page.getByTestId(`user-${name}`) });
}

/** Changes the row's fields, submits with Apply and waits for the action's answer. */
async function apply(
  page: Page,
  name: string,
  change: { role?: string; disabled?: "true" | "false"; password?: string },
): Promise<Locator> {
  await page.goto("/admin/users");
  const row = userRow(page, name);
  if (change.role) await row.getByLabel("Role").selectOption(change.role);
  if (change.disabled) await row.getByLabel("Disabled").selectOption(change.disabled);
  if (change.password) {
    await row.getByLabel("New password").fill(change.password);
    await row.getByLabel("New password").press("Enter");
  } else await row.getByRole("button", { name: "Apply" }).click();
  return row;
}

/** A second browser signed in as the user. */
async function userBrowser(browser: Browser, baseURL: string, name: string, password: string) {
  const ctx = await browser.newContext({ baseURL });
  await ctx.addCookies([
    { name: "untorn_session", value: await signIn(baseURL, name, password), url: baseURL },
  ]);
  return ctx;
}

/** The audit page's rows for user changes of `name`, newest first. */
async function auditRows(page: Page, name: string): Promise<Locator> {
  await page.goto("/admin/audit");
  await page.getByLabel("Actor contains").fill(ADMIN_USER);
  await page.getByLabel("Action starts with").fill("user.update");
  await page.getByLabel("Action starts with").press("Enter");
  await expect(page).toHaveURL(/action=user\.update/);
  return page.getByTestId("audit-table").locator("tbody tr").filter({ hasText: name });
}

/** An audit entry's change of one field as the Audit page shows it: `field: from → to`. */
function changed(field: string, from: unknown, to: unknown): string {
  const shown = (v: unknown) => (typeof v === "string" ? v : JSON.stringify(v));
  return `${field}: ${shown(from)} → ${shown(to)}`;
}

async function loginRefused(baseURL: string, name: string, password: string): Promise<string> {
  const res = await fetch(`${baseURL}/api/auth/login`, {
    method: "POST",
    body: new URLSearchParams({ username: name, password, next: "/" }),
    redirect: "manual",
  });
  expect(res.headers.get("set-cookie") ?? "").not.toContain("untorn_session=");
  return new URL(res.headers.get("location") ?? "/", baseURL).searchParams.get("error") ?? "";
}

test.describe("the admin's users page", () => {
  let user: BrowserContext | undefined;
  test.afterEach(async () => {
    await user?.close();
    user = undefined;
  });

  test("a role change applies on the user's next page load: promoted, the metadata form appears; demoted, it goes", async ({
    page,
    browser,
    baseURL,
  }) => {
    const name = await createUser(page, "viewer");
    user = await userBrowser(browser, baseURL!, name, PASSWORD);
    const theirs = new InstancePage(await user.newPage());
    const save = theirs.metadata.getByRole("button", { name: "Save metadata" });

    await theirs.goto("db-idle");
    await expect(theirs.page.getByTestId("user-menu")).toContainText(`${name} (viewer)`);
    await expect(theirs.metadata.getByTestId("metadata-readonly")).toBeVisible();
    await expect(save).toHaveCount(0);

    const row = await apply(page, name, { role: "operator" });
    await expect(row.getByRole("status")).toHaveText(`Updated ${name}.`);
    await expect(row.getByRole("cell", { name: "operator", exact: true })).toBeVisible();
    // Same session cookie, next page load: the role is read from the store on every request.
    await theirs.goto("db-idle");
    await expect(theirs.page.getByTestId("user-menu")).toContainText(`${name} (operator)`);
    await expect(theirs.metadata.getByLabel("Notes")).toBeEditable();
    await expect(save).toBeVisible();

    await apply(page, name, { role: "viewer" });
    await expect(userRow(page, name).getByRole("status")).toHaveText(`Updated ${name}.`);
    await theirs.goto("db-idle");
    await expect(theirs.page.getByTestId("user-menu")).toContainText(`${name} (viewer)`);
    await expect(theirs.metadata.getByTestId("metadata-readonly")).toContainText(
      "Editing fleet metadata needs the operator role",
    );
    await expect(save).toHaveCount(0);

    const audit = await auditRows(page, name);
    await expect(audit).toHaveCount(2);
    await expect(audit.nth(0)).toContainText(changed("role", "operator", "viewer"));
    await expect(audit.nth(1)).toContainText(changed("role", "viewer", "operator"));
    await expect(audit.nth(1)).toContainText("admin (admin)");
  });

  test("disabling ends the user's session and refuses sign-in until enabled; a new password ends it too", async ({
    page,
    browser,
    baseURL,
  }) => {
    // Four sign-ins (each a deliberate scrypt), three user changes and two audit reads: over a minute
    // on a loaded 2-core CI machine, so this one flow gets three times the default.
    test.slow();
    const name = await createUser(page, "operator");
    user = await userBrowser(browser, baseURL!, name, PASSWORD);
    const theirs = await user.newPage();
    await theirs.goto("/recommendations");
    await expect(theirs.getByTestId("user-menu")).toContainText(`${name} (operator)`);

    // The row's Disabled box reads no/yes (not false/true), styled as the row's other fields.
    await page.goto("/admin/users");
    const fields = userRow(page, name);
    await expect(fields.getByLabel("Disabled").locator("option")).toHaveText(["no", "yes"]);
    await expect(fields.getByLabel("Disabled")).toHaveValue("false");
    const select = await fields.getByLabel("Disabled").boundingBox();
    const input = await fields.getByLabel("New password").boundingBox();
    expect(Math.abs(select!.height - input!.height)).toBeLessThanOrEqual(1);

    const row = await apply(page, name, { disabled: "true" });
    await expect(row.getByRole("status")).toHaveText(`Updated ${name}.`);
    await expect(row.getByRole("cell", { name: "disabled", exact: true })).toBeVisible();
    await theirs.goto("/recommendations");
    await expect(theirs).toHaveURL(/\/login\?next=%2Frecommendations/);
    // The right password is refused, with the same answer as a wrong one.
    expect(await loginRefused(baseURL!, name, PASSWORD)).toBe("Wrong username or password.");

    await apply(page, name, { disabled: "false" });
    await expect(userRow(page, name).getByRole("cell", { name: "active", exact: true })).toBeVisible();
    await theirs.getByLabel("Username").fill(name);
    await theirs.getByLabel("Password").fill(PASSWORD);
    await theirs.getByLabel("Password").press("Enter");
    await expect(theirs).toHaveURL(/\/recommendations$/);
    await expect(theirs.getByTestId("user-menu")).toContainText(`${name} (operator)`);

    // A new password (typed, submitted with Enter): the old one stops working, and so does the session.
    await apply(page, name, { password: NEW_PASSWORD });
    await expect(userRow(page, name).getByRole("status")).toHaveText(`Updated ${name}.`);
    await theirs.goto("/recommendations");
    await expect(theirs).toHaveURL(/\/login\?next=/);
    expect(await loginRefused(baseURL!, name, PASSWORD)).toBe("Wrong username or password.");
    await signIn(baseURL!, name, NEW_PASSWORD);

    const audit = await auditRows(page, name);
    await expect(audit).toHaveCount(3);
    await expect(audit.nth(0)).toContainText("password: changed");
    await expect(audit.nth(0)).not.toContainText(NEW_PASSWORD);
    await expect(audit.nth(1)).toContainText(changed("disabled", true, false));
    await expect(audit.nth(2)).toContainText(changed("disabled", false, true));
    // The refused sign-ins are audited with their reason (the answer to the client did not tell it).
    await page.goto(`/admin/audit?${new URLSearchParams({ actor: name, action: "auth.sign-in-failed" })}`);
    const failed = page.getByTestId("audit-table").locator("tbody tr");
    await expect(failed).toHaveCount(2);
    await expect(failed.nth(0)).toContainText("reason: wrong password");
    await expect(failed.nth(1)).toContainText("reason: disabled");
  });

  test("an admin cannot demote or disable themselves", async ({ page }) => {
    await apply(page, ADMIN_USER, { role: "viewer" });
    const row = userRow(page, ADMIN_USER);
    await expect(row.getByRole("status")).toHaveText(
      "You cannot disable or demote yourself: ask another admin.",
    );
    await page.reload();
    await expect(row.getByRole("cell", { name: "admin", exact: true })).toHaveCount(2);
    await expect(page.getByTestId("user-menu")).toContainText("admin (admin)");
  });
});
