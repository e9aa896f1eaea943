import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ADMIN_PASSWORD, ADMIN_USER, signIn } from "../../fixtures/auth.js";
import { layoutProblems } from "../../fixtures/layout.js";
import { expect, test } from "../../fixtures/test.js";
import { startWebServer, type WebServer } from "../../setup/web-server.js";

test.describe("signing in and out", () => {
  test.use({ signedIn: null });

  test("a visitor is sent to sign in; a wrong password is refused; sign-out ends the session", async ({
    page,
    context,
    baseURL,
  }) => {
    await page.goto("/recommendations");
    await expect(page).toHaveURL(/\/login\?next=%2Frecommendations$/);
    await page.getByLabel("Username").fill(ADMIN_USER);
    await page.getByLabel("Password").fill("not the password");
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page.getByTestId("login-error")).toHaveText("Wrong username or password.");
    await page.getByLabel("Username").fill(ADMIN_USER);
    await page.getByLabel("Password").fill(ADMIN_PASSWORD);
    await page.getByRole("button", { name: "Sign in" }).click();
    await expect(page).toHaveURL(/\/recommendations$/);
    await expect(page.getByTestId("user-menu")).toContainText("admin (admin)");
    const cookie = (await context.cookies()).find((c) => c.name === "untorn_session")!;
    expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });

    await page.getByRole("button", { name: "Sign out" }).click();
    await expect(page).toHaveURL(/\/login\?signedOut=1$/);
    await expect(page.getByRole("status").filter({ hasText: "You are signed out." })).toBeVisible();
    // The old cookie is dead on the server too, not only forgotten by this browser.
    const replay = await fetch(`${baseURL}/`, {
      headers: { cookie: `untorn_session=${cookie.value}` },
      redirect: "manual",
    });
    expect(replay.status).toBe(307);
    expect(replay.headers.get("location")).toMatch(/\/login\?next=/);
  });

  test("the sign-in page fits a phone and a desktop, its two boxes styled alike", async ({ page }) => {
    for (const width of [390, 1440]) {
      await page.setViewportSize({ width, height: 900 });
      await page.goto("/login");
      expect(await layoutProblems(page)).toEqual([]);
      const user = await page.getByLabel("Username").boundingBox();
      const password = await page.getByLabel("Password").boundingBox();
      // Not the browser's default 21 px box beside a styled 34 px one.
      expect(user!.height).toBeGreaterThan(28);
      expect(Math.abs(user!.height - password!.height)).toBeLessThanOrEqual(1);
      expect(Math.abs(user!.width - password!.width)).toBeLessThanOrEqual(1);
    }
  });

  test("a foreign Origin cannot sign anyone in (login CSRF)", async ({ baseURL }) => {
    const r = await fetch(`${baseURL}/api/auth/login`, {
      method: "POST",
      headers: { origin: "http://evil.example" },
      body: new URLSearchParams({ username: ADMIN_USER, password: ADMIN_PASSWORD }),
      redirect: "manual",
    });
    expect(r.status).toBe(403);
    expect((await r.json()).error).toMatch(/foreign Origin "http:\/\/evil.example"/);
    expect(r.headers.get("set-cookie")).toBeNull();
  });

  test("repeated failures for one account are throttled and the right password waits too", async ({
    baseURL,
  }) => {
    const user = `nobody-${Date.now()}`;
    const attempt = (password: string) =>
      fetch(`${baseURL}/api/auth/login`, {
        method: "POST",
        body: new URLSearchParams({ username: user, password }),
        redirect: "manual",
      }).then((r) => new URL(r.headers.get("location") ?? "/", baseURL).searchParams.get("error") ?? "");
    for (let i = 0; i < 10; i++) expect(await attempt(`wrong-${i}`)).toMatch(/Wrong username or password/);
    expect(await attempt("whatever")).toMatch(/Too many failed sign-ins: try again in \d+ min/);
  });
});

test.describe("session expiry", () => {
  let server: WebServer;
  let workDir: string;
  test.beforeAll(async () => {
    workDir = await mkdtemp(join(tmpdir(), "untorn-e2e-expiry-"));
    server = await startWebServer(
      "expiry",
      { UNTORN_SESSION_SECONDS: "5", UNTORN_RECORDINGS_DIR: workDir },
      workDir,
    );
  });
  test.afterAll(async () => {
    await server?.stop();
    await rm(workDir, { recursive: true, force: true });
  });

  test("a session past UNTORN_SESSION_SECONDS sends the user to sign in again", async ({ page, context }) => {
    const value = await signIn(server.url, ADMIN_USER, ADMIN_PASSWORD);
    await context.addCookies([{ name: "untorn_session", value, url: server.url }]);
    await page.goto(`${server.url}/account`);
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(ADMIN_USER);
    // The cookie's Max-Age and the store's expiry are both 5 s; keep the cookie to prove the server refuses it.
    await page.waitForTimeout(6_500);
    await context.addCookies([{ name: "untorn_session", value, url: server.url }]);
    await page.goto(`${server.url}/account`);
    await expect(page).toHaveURL(/\/login\?next=%2Faccount$/);
  });
});
