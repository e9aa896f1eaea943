import type { Page } from "@playwright/test";
import { signIn, VIEWER_TOKEN } from "../../fixtures/auth.js";
import { expect, test } from "../../fixtures/test.js";

const PASSWORD = "viewer-password-0123";

/** The admin creates a viewer account on the users page (the admin's own browser). */
async function createViewer(page: Page): Promise<string> {
  const name = `viewer-${Date.now().toString(36)}`;
  await page.goto("/admin/users");
  const form = page.getByTestId("new-user");
  await form.getByLabel("Username").fill(name);
  await form.getByLabel(/^Password/).fill(PASSWORD);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByRole("status")).toHaveText(`Created ${name} (viewer).`);
  return name;
}

test.describe("roles", () => {
  test("a viewer sees metadata read-only, and a form submitted with a viewer's session saves nothing", async ({
    page,
    context,
    baseURL,
    instancePage,
  }) => {
    const viewer = await createViewer(page);
    const viewerCookie = await signIn(baseURL!, viewer, PASSWORD);

    // The admin's form, loaded while signed in as admin…
    await instancePage.goto("db-idle");
    const form = instancePage.metadata;
    await expect(form.getByLabel("Cluster")).toBeVisible();
    const before = await form.getByLabel("Notes").inputValue();
    // …submitted after the browser's session became the viewer's (a demoted user, a replayed form).
    await context.clearCookies();
    await context.addCookies([{ name: "untorn_session", value: viewerCookie, url: baseURL! }]);
    await form.getByLabel("Notes").fill(`viewer was here ${Date.now()}`);
    const answered = page.waitForResponse((r) => r.request().method() === "POST");
    await form.getByRole("button", { name: "Save metadata" }).click();
    await answered;
    await expect(form.getByTestId("metadata-status")).toHaveText(
      `Not allowed: saveInstanceMetadata needs the operator role; ${viewer} is viewer.`,
    );

    // As the viewer: no form, no save button, the values read-only, no admin links.
    await instancePage.goto("db-idle");
    await expect(page.getByTestId("user-menu")).toContainText(`${viewer} (viewer)`);
    const section = page.getByRole("region", { name: "Fleet metadata" });
    await expect(section.getByTestId("metadata-readonly")).toContainText(
      "Editing fleet metadata needs the operator role",
    );
    await expect(section.getByRole("button", { name: "Save metadata" })).toHaveCount(0);
    await expect(page.getByRole("link", { name: "Users" })).toHaveCount(0);
    await page.goto("/admin/audit");
    await expect(page.getByRole("main").getByRole("alert")).toContainText("This page needs the admin role");

    // Nothing was saved: the audit log (as admin) has no entry by the viewer.
    const admin = await fetch(`${baseURL}/api/v1/audit?actor=${viewer}`, {
      headers: { cookie: `untorn_session=${await signIn(baseURL!, "admin", "e2e-admin-password-0123")}` },
    });
    expect(admin.status).toBe(200);
    // The refusal itself is audited (access.denied); nothing else by the viewer is.
    const entries = (await admin.json()).entries as { action: string }[];
    expect(entries.filter((e) => e.action !== "access.denied")).toEqual([]);
    await context.clearCookies();
    await context.addCookies([
      {
        name: "untorn_session",
        value: await signIn(baseURL!, "admin", "e2e-admin-password-0123"),
        url: baseURL!,
      },
    ]);
    await instancePage.goto("db-idle");
    await expect(instancePage.metadata.getByLabel("Notes")).toHaveValue(before);
  });

  test("an admin's metadata change is in the audit log with actor, role and before/after", async ({
    page,
    instancePage,
  }) => {
    await instancePage.goto("db-on");
    const note = `audited ${Date.now()}`;
    await instancePage.metadata.getByLabel("Notes").fill(note);
    await instancePage.metadata.getByRole("button", { name: "Save metadata" }).click();
    await expect(instancePage.metadata.getByTestId("metadata-status")).toContainText("Saved");
    await page.goto("/admin/audit");
    await page.getByLabel("Action starts with").fill("instance-metadata.");
    await page.getByRole("button", { name: "Filter" }).click();
    const row = page.getByTestId("audit-table").locator("tbody tr").filter({ hasText: note }).first();
    await expect(row).toContainText("admin (admin)");
    await expect(row).toContainText("instance-metadata.update");
    await expect(row).toContainText(`→ ${note}`);
  });
});

test.describe("read API credentials", () => {
  test.use({ signedIn: null });

  test("no token or a wrong one is a JSON 401; the viewer token reads; a user's token works until revoked", async ({
    baseURL,
    browser,
  }) => {
    const get = (token?: string) =>
      fetch(
        `${baseURL}/api/v1/fleet?limit=1`,
        token ? { headers: { authorization: `Bearer ${token}` } } : {},
      );
    const none = await get();
    expect(none.status).toBe(401);
    expect(none.headers.get("www-authenticate")).toBe('Bearer realm="untorn"');
    expect((await none.json()).error).toMatch(/needs a signed-in viewer or an API token/);
    expect((await get("x".repeat(40))).status).toBe(401);
    expect((await get(VIEWER_TOKEN)).status).toBe(200);
    // Tokens are for the API only: a page given one still asks to sign in.
    const pageWithToken = await fetch(`${baseURL}/`, {
      headers: { authorization: `Bearer ${VIEWER_TOKEN}` },
      redirect: "manual",
    });
    expect(pageWithToken.status).toBe(307);

    const ctx = await browser.newContext({ baseURL: baseURL! });
    await ctx.addCookies([
      {
        name: "untorn_session",
        value: await signIn(baseURL!, "admin", "e2e-admin-password-0123"),
        url: baseURL!,
      },
    ]);
    const page = await ctx.newPage();
    await page.goto("/account");
    await page.getByTestId("new-token").getByLabel("Token name").fill("health check");
    await page.getByTestId("new-token").getByRole("button", { name: "Create token" }).click();
    const token = (await page.getByTestId("new-token-secret").textContent())!;
    expect(token).toMatch(/^untorn_[\w-]{43}$/);
    expect((await get(token)).status).toBe(200);
    // Read-only whoever owns it: the admin's token cannot read the audit log.
    const audit = await fetch(`${baseURL}/api/v1/audit`, { headers: { authorization: `Bearer ${token}` } });
    expect(audit.status).toBe(401);
    await page.reload();
    const row = page.getByRole("row").filter({ hasText: "health check" }).first();
    await row.getByRole("button", { name: "Revoke" }).click();
    // Revoked: the page shows it so, and the token stops working at once.
    await expect(row).toContainText(/revoked \d{4}-\d\d-\d\d/);
    expect((await get(token)).status).toBe(401);
    await ctx.close();
  });
});

test.describe("hardening", () => {
  test("security headers, no x-powered-by, and JSON errors with the right status", async ({
    page,
    baseURL,
  }) => {
    const res = await page.goto("/");
    const h = res!.headers();
    expect(h["x-powered-by"]).toBeUndefined();
    expect(h["content-security-policy"]).toMatch(
      /script-src 'self' 'nonce-[A-Za-z0-9+/=]+' 'strict-dynamic'/,
    );
    expect(h["content-security-policy"]).toContain("frame-ancestors 'none'");
    expect(h["content-security-policy"]).not.toMatch(/script-src[^;]*unsafe-inline/);
    expect(h["referrer-policy"]).toBe("same-origin");
    expect(h["x-content-type-options"]).toBe("nosniff");
    // The page works under that policy: the client table renders and sorts.
    await expect(page.getByRole("table", { name: "Fleet instances" })).toBeVisible();

    const bad = await fetch(`${baseURL}/instances/%E0%A4%A`, {
      headers: { authorization: `Bearer ${VIEWER_TOKEN}` },
    });
    expect(bad.status).toBe(400);
    expect((await bad.json()).error).toMatch(/malformed percent-encoding/);
    const big = await fetch(`${baseURL}/api/auth/login`, {
      method: "POST",
      body: "x".repeat(2 * 1024 * 1024),
    });
    expect(big.status).toBe(413);
    expect((await big.json()).error).toMatch(/at most 1048576/);
    // A chunked body carries no Content-Length to check: refused rather than read whole.
    const chunks = new ReadableStream({
      start(c) {
        for (let i = 0; i < 3; i++) c.enqueue(new TextEncoder().encode("x".repeat(1024 * 1024)));
        c.close();
      },
    });
    const chunked = await fetch(`${baseURL}/api/auth/login`, {
      method: "POST",
      body: chunks,
      duplex: "half",
    } as RequestInit);
    expect(chunked.status).toBe(411);
    expect((await chunked.json()).error).toMatch(/Content-Length/);
    const strict = await fetch(`${baseURL}/api/v1/fleet?limit=1e3`, {
      headers: { authorization: `Bearer ${VIEWER_TOKEN}` },
    });
    expect(strict.status).toBe(400);
    const post = await fetch(`${baseURL}/api/v1/fleet`, {
      method: "POST",
      headers: { authorization: `Bearer ${VIEWER_TOKEN}` },
    });
    expect(post.status).toBe(405);
    expect(post.headers.get("allow")).toBe("GET");
    expect((await post.json()).error).toMatch(/POST is not allowed here/);
    const noDoc = await page.goto("/docs/rules/no-such-rule");
    expect(noDoc!.status()).toBe(404);
    await expect(page.getByRole("heading", { name: "Not found" })).toBeVisible();
    expect((await page.goto("/docs/security"))!.status()).toBe(200);
    const missing = await fetch(`${baseURL}/api/v1/nope`);
    expect(missing.status).toBe(404);
    expect((await missing.json()).error).toMatch(/^no API route \/api\/v1\/nope/);
  });
});
