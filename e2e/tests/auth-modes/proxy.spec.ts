import { readFileSync } from "node:fs";
import { expect, test } from "@playwright/test";
import { INSTANCE, PROXY_USERS, type ProxyConsole, startProxyConsole } from "../../setup/auth-modes.js";

let px: ProxyConsole;
test.beforeAll(async () => {
  test.setTimeout(240_000);
  px = await startProxyConsole();
});
test.afterAll(async () => {
  await px?.stop();
});

const as = (username: keyof typeof PROXY_USERS) => ({
  httpCredentials: { username, password: PROXY_USERS[username].password, send: "always" as const },
});

test.describe("through the trusted proxy", () => {
  test.describe("a dbas user", () => {
    test.use(as("paula"));
    test("is an operator and saves metadata", async ({ page }) => {
      await page.goto(`${px.proxy.url}/instances/${INSTANCE}`);
      await expect(page.getByTestId("user-menu")).toContainText("paula (operator)");
      // The proxy signs people out, not the console (no UNTORN_PROXY_SIGN_OUT_URL here).
      await expect(page.getByTestId("user-menu").getByText("Sign out")).toHaveCount(0);
      const form = page.getByRole("region", { name: "Fleet metadata" });
      const note = `proxy operator ${Date.now()}`;
      await form.getByLabel("Notes").fill(note);
      await form.getByRole("button", { name: "Save metadata" }).click();
      await expect(form.getByTestId("metadata-status")).toContainText("Saved");
      await page.reload();
      await expect(form.getByLabel("Notes")).toHaveValue(note);
    });
  });

  test.describe("a readers user", () => {
    test.use(as("rita"));
    test("is a viewer and sees no operator form", async ({ page }) => {
      await page.goto(`${px.proxy.url}/instances/${INSTANCE}`);
      await expect(page.getByTestId("user-menu")).toContainText("rita (viewer)");
      const section = page.getByRole("region", { name: "Fleet metadata" });
      await expect(section.getByTestId("metadata-readonly")).toContainText(
        "Editing fleet metadata needs the operator role",
      );
      await expect(section.getByRole("button", { name: "Save metadata" })).toHaveCount(0);
    });
  });
});

test.describe("the same headers from an untrusted address", () => {
  // The browser reaches the console directly from 127.0.0.1; only 127.0.0.2 (the proxy) is trusted.
  const spoofed = { "x-forwarded-user": "paula", "x-forwarded-groups": "dba-admins" };
  test.use({ extraHTTPHeaders: spoofed });

  test("a page sends the visitor to the sign-in page, which says why", async ({ page }) => {
    await page.goto(`${px.console.url}/instances/${INSTANCE}`);
    await expect(page).toHaveURL(/\/login\?next=/);
    await expect(page.getByTestId("login-error")).toContainText(
      "identity headers (x-forwarded-user, x-forwarded-groups) are accepted from the auth proxy only; 127.0.0.1 is not in UNTORN_TRUSTED_PROXIES",
    );
    await expect(page.getByTestId("user-menu")).toHaveCount(0);
  });

  test("the API answers a JSON 403, also when the client claims the proxy's address itself", async () => {
    const claims: Record<string, string>[] = [
      {},
      { "x-untorn-peer": "127.0.0.2", "x-forwarded-for": "127.0.0.2" },
    ];
    for (const extra of claims) {
      const r = await fetch(`${px.console.url}/api/v1/audit`, { headers: { ...spoofed, ...extra } });
      expect(r.status).toBe(403);
      expect((await r.json()).error).toMatch(/127\.0\.0\.1 is not in UNTORN_TRUSTED_PROXIES/);
    }
    // Through the proxy, the client's own identity headers are replaced by the proxy's.
    const viaProxy = await fetch(`${px.proxy.url}/api/v1/audit`, {
      headers: { ...spoofed, authorization: `Basic ${Buffer.from("rita:rita-password").toString("base64")}` },
    });
    expect(viaProxy.status).toBe(403);
    expect((await viaProxy.json()).error).toMatch(/needs the admin role; rita is viewer/);
  });

  test("the refusal is logged with the address", async () => {
    await fetch(`${px.console.url}/api/v1/fleet`, { headers: spoofed });
    await expect
      .poll(() => readFileSync(px.console.process.logFile, "utf8"))
      .toMatch(
        /refused identity headers \(x-forwarded-user: "paula"\) from 127\.0\.0\.1, not in UNTORN_TRUSTED_PROXIES/,
      );
  });
});
