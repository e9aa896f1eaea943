import { expect, test } from "../../fixtures/test.js";

// Global setup holds this console's data directory open in another process before the console starts.
// Accounts live in the store, so nobody can sign in; the read API still answers the viewer token.
test.describe("the store's data directory is locked by another process", () => {
  test.use({ target: "locked", signedIn: null });

  test("the read API still profiles the fleet for the viewer token", async ({ request }) => {
    const r = await request.get("/api/v1/fleet");
    expect(r.status()).toBe(200);
    expect((await r.json()).total).toBeGreaterThan(0);
  });

  test("sign-in says the store is unavailable, without server paths or PIDs", async ({ page }) => {
    await page.goto("/");
    await expect(page).toHaveURL(/\/login\?next=%2F$/);
    await page.getByLabel("Username").fill("admin");
    await page.getByLabel("Password").fill("e2e-admin-password-0123");
    await page.getByRole("button", { name: "Sign in" }).click();
    const error = page.getByTestId("login-error");
    await expect(error).toHaveText(/Cannot sign in now: the store is unavailable/);
    await expect(error).not.toContainText("/");
    await expect(error).not.toContainText(/pid|PID/);
  });
});
