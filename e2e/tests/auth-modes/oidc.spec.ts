import { expect, type Page, test } from "@playwright/test";
import { INSTANCE, OIDC_USERS, type OidcConsole, startOidcConsole } from "../../setup/auth-modes.js";

type OidcUser = (typeof OIDC_USERS)[keyof typeof OIDC_USERS];

let oidc: OidcConsole;
let url: string;
test.beforeAll(async () => {
  test.setTimeout(240_000);
  oidc = await startOidcConsole();
  url = oidc.console.url;
});
test.afterAll(async () => {
  await oidc?.stop();
});

/** From the console's sign-in page to the provider's login form. */
async function toProvider(page: Page, path = `/instances/${INSTANCE}`): Promise<void> {
  await page.goto(`${url}${path}`);
  await expect(page).toHaveURL(
    new RegExp(`/login\\?next=${encodeURIComponent(path).replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}$`),
  );
  await page.getByRole("link", { name: "Sign in with your identity provider" }).click();
  await expect(page.getByRole("heading", { name: "Test provider" })).toBeVisible();
}

async function atProvider(page: Page, user: OidcUser): Promise<void> {
  await page.getByLabel("Provider username").fill(user.username);
  await page.getByLabel("Provider password").fill(user.password);
  await page.getByRole("button", { name: "Sign in at the provider" }).click();
}

const sessionCookie = async (page: Page) =>
  (await page.context().cookies(url)).find((c) => c.name === "untorn_session");

test("an operator-group user signs in at the provider, saves metadata, and signs out", async ({ page }) => {
  await toProvider(page);
  // The authorization request the console made: code flow, PKCE S256, state and nonce.
  const auth = new URL(page.url());
  expect(auth.origin).toBe(oidc.provider.issuer);
  await atProvider(page, OIDC_USERS.operator);

  await expect(page).toHaveURL(`${url}/instances/${INSTANCE}`);
  await expect(page.getByTestId("user-menu")).toContainText("olga (operator)");
  const cookie = await sessionCookie(page);
  expect(cookie).toMatchObject({ httpOnly: true, sameSite: "Lax" });
  expect((await page.context().cookies(`${url}/api/auth/oidc/callback`)).map((c) => c.name)).not.toContain(
    "untorn_oidc",
  );

  const form = page.getByRole("region", { name: "Fleet metadata" });
  const note = `oidc operator ${Date.now()}`;
  await form.getByLabel("Notes").fill(note);
  await form.getByRole("button", { name: "Save metadata" }).click();
  await expect(form.getByTestId("metadata-status")).toContainText("Saved");
  await page.reload();
  await expect(form.getByLabel("Notes")).toHaveValue(note);

  await page.getByRole("button", { name: "Sign out" }).click();
  await expect(page).toHaveURL(`${url}/login?signedOut=1`);
  const discovery = (await (
    await fetch(`${oidc.provider.issuer}/.well-known/openid-configuration`)
  ).json()) as { end_session_endpoint: string };
  const providerSignOut = page.getByRole("link", { name: "Sign out of your identity provider too" });
  const href = new URL((await providerSignOut.getAttribute("href"))!);
  expect(`${href.origin}${href.pathname}`).toBe(discovery.end_session_endpoint);
  expect(href.searchParams.get("post_logout_redirect_uri")).toBe(`${url}/login?signedOut=1`);
  // The session is over in the store, not only in this browser.
  const replay = await fetch(`${url}/`, {
    headers: { cookie: `untorn_session=${cookie!.value}` },
    redirect: "manual",
  });
  expect(replay.status).toBe(307);
  expect(replay.headers.get("location")).toMatch(/\/login\?next=/);
});

test("a viewer-group user is a viewer: no operator form, no admin pages", async ({ page }) => {
  await toProvider(page);
  await atProvider(page, OIDC_USERS.viewer);
  await expect(page.getByTestId("user-menu")).toContainText("victor (viewer)");
  const section = page.getByRole("region", { name: "Fleet metadata" });
  await expect(section.getByTestId("metadata-readonly")).toContainText(
    "Editing fleet metadata needs the operator role",
  );
  await expect(section.getByRole("button", { name: "Save metadata" })).toHaveCount(0);
  await page.goto(`${url}/admin/users`);
  await expect(page.getByRole("main").getByRole("alert")).toContainText("This page needs the admin role");
});

test("a user whose groups map to no role is refused, with no session", async ({ page }) => {
  await toProvider(page);
  await atProvider(page, OIDC_USERS.outsider);
  await expect(page).toHaveURL(/\/login\?error=/);
  await expect(page.getByTestId("login-error")).toContainText(
    "nina's groups (contractors) map to no role in UNTORN_ROLE_MAP",
  );
  expect(await sessionCookie(page)).toBeUndefined();
});

/**
 * A sign-in driven with fetch up to the provider's redirect back (the browser cannot be stopped there:
 * Playwright does not route requests reached by a redirect): the console's flow cookie and the callback
 * URL the provider sent, for the test to alter before a browser presents them.
 */
async function callbackFor(user: OidcUser): Promise<{ flow: string; callback: URL }> {
  const start = await fetch(`${url}/api/auth/oidc/login?next=/`, { redirect: "manual" });
  const flow = /untorn_oidc=([^;]+)/.exec(start.headers.get("set-cookie") ?? "")?.[1];
  expect(start.status).toBe(303);
  expect(flow).toBeTruthy();
  const jar = new Map<string, string>();
  let next = new URL(start.headers.get("location")!);
  let init: RequestInit = {};
  for (let hop = 0; hop < 12; hop++) {
    const res = await fetch(next, {
      ...init,
      redirect: "manual",
      headers: {
        ...(init.headers as Record<string, string>),
        cookie: [...jar].map(([k, v]) => `${k}=${v}`).join("; "),
      },
    });
    for (const c of res.headers.getSetCookie()) {
      const [pair] = c.split(";");
      const eq = pair!.indexOf("=");
      jar.set(pair!.slice(0, eq), pair!.slice(eq + 1));
    }
    const location = res.headers.get("location");
    if (location) {
      next = new URL(location, next);
      init = {};
      if (next.href.startsWith(`${url}/api/auth/oidc/callback`)) return { flow: flow!, callback: next };
      continue;
    }
    const html = await res.text();
    const action = /<form method="post" action="([^"]+)"/.exec(html)?.[1];
    if (!action)
      throw new Error(`the provider answered ${res.status} at ${next.href}: ${html.slice(0, 300)}`);
    next = new URL(action, next);
    init = {
      method: "POST",
      body: new URLSearchParams({ username: user.username, password: user.password }),
      headers: { "content-type": "application/x-www-form-urlencoded" },
    };
  }
  throw new Error("the provider never redirected back to the console");
}

/** The browser presents `callback` with the flow cookie `flow` (as if it had started the sign-in). */
async function present(page: Page, flow: string, callback: URL): Promise<void> {
  await page
    .context()
    .addCookies([{ name: "untorn_oidc", value: flow, domain: "127.0.0.1", path: "/api/auth/oidc" }]);
  await page.goto(callback.href);
}

test("the untouched callback signs in (the control for the two below)", async ({ page }) => {
  const { flow, callback } = await callbackFor(OIDC_USERS.operator);
  await present(page, flow, callback);
  await expect(page.getByTestId("user-menu")).toContainText("olga (operator)");
});

test("a callback with a wrong state is refused", async ({ page }) => {
  const { flow, callback } = await callbackFor(OIDC_USERS.operator);
  callback.searchParams.set("state", `${callback.searchParams.get("state")}x`);
  await present(page, flow, callback);
  await expect(page).toHaveURL(/\/login\?error=/);
  await expect(page.getByTestId("login-error")).toContainText(/Sign-in refused: .*state/);
  expect(await sessionCookie(page)).toBeUndefined();
});

test("a callback with a forged code is refused by the provider's token endpoint", async ({ page }) => {
  const { flow, callback } = await callbackFor(OIDC_USERS.operator);
  callback.searchParams.set("code", "forged-authorization-code");
  await present(page, flow, callback);
  await expect(page.getByTestId("login-error")).toContainText(/Sign-in refused: .*invalid_grant/);
  expect(await sessionCookie(page)).toBeUndefined();
});

test("an ID token whose nonce is not the one this browser sent is refused", async ({ page }) => {
  await toProvider(page);
  // The flow cookie, altered while the user is at the provider: its nonce no longer matches the token's.
  const flow = (await page.context().cookies(`${url}/api/auth/oidc/callback`)).find(
    (c) => c.name === "untorn_oidc",
  )!;
  const value = JSON.parse(Buffer.from(flow.value, "base64url").toString("utf8")) as { nonce: string };
  value.nonce = `${value.nonce}-other`;
  await page
    .context()
    .addCookies([{ ...flow, value: Buffer.from(JSON.stringify(value)).toString("base64url") }]);
  await atProvider(page, OIDC_USERS.operator);
  await expect(page.getByTestId("login-error")).toContainText(/Sign-in refused: .*nonce/);
  expect(await sessionCookie(page)).toBeUndefined();
});

test("a callback replayed in another browser (no sign-in started there) is refused", async ({
  page,
  browser,
}) => {
  let callback = "";
  page.on("request", (r) => {
    if (r.url().startsWith(`${url}/api/auth/oidc/callback`)) callback = r.url();
  });
  await toProvider(page);
  await atProvider(page, OIDC_USERS.operator);
  await expect(page.getByTestId("user-menu")).toContainText("olga (operator)");
  expect(callback).toContain("code=");

  const other = await browser.newContext();
  const attacker = await other.newPage();
  await attacker.goto(callback);
  await expect(attacker.getByTestId("login-error")).toContainText("no sign-in was started from this browser");
  expect((await other.cookies(url)).find((c) => c.name === "untorn_session")).toBeUndefined();
  await other.close();
});

test("the OIDC routes answer JSON errors for what they do not take", async () => {
  const post = await fetch(`${url}/api/auth/oidc/callback`, { method: "POST", headers: { origin: url } });
  expect(post.status).toBe(405);
  expect(post.headers.get("allow")).toBe("GET");
  expect((await post.json()).error).toMatch(/POST is not allowed here/);
  // Password sign-in is off in this mode.
  const login = await fetch(`${url}/api/auth/login`, {
    method: "POST",
    body: new URLSearchParams({ username: "admin", password: "whatever-password" }),
  });
  expect(login.status).toBe(404);
  expect((await login.json()).error).toMatch(/password sign-in is off \(UNTORN_AUTH=oidc\)/);
});
