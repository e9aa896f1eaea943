import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import fc from "fast-check";
import { ADMIN_PASSWORD, ADMIN_USER, signIn } from "../../fixtures/auth.js";
import { INSTANCE } from "../../setup/auth-modes.js";
import { startWebServer, type WebServer, webDir } from "../../setup/web-server.js";

/**
 * What an attacker's probe (issue 27) sent the production console (server.mjs over the lab recording)
 * and got an HTTP 500 for: odd methods, malformed Server Action bodies, an unknown user id; and pages
 * that answered 200 for a role too weak or an instance the fleet does not have. Every answer here is
 * a clean 4xx, and the console's real forms (Chromium) still work through the same checks.
 */
let web: WebServer;
let workDir: string;
let admin: string;
let viewer: string;
const VIEWER = "hardening-viewer";
const VIEWER_PASSWORD = "hardening-viewer-0123";

/** Server Action ids of the build, by exported name (Next's server reference manifest). */
function actionIds(): Record<string, string> {
  const manifest = JSON.parse(
    readFileSync(join(webDir(), ".next", "server", "server-reference-manifest.json"), "utf8"),
  ) as { node: Record<string, { exportedName: string }> };
  return Object.fromEntries(Object.entries(manifest.node).map(([id, a]) => [a.exportedName, id]));
}
let ids: Record<string, string>;

test.describe.configure({ mode: "serial" });
test.beforeAll(async ({ browser }) => {
  test.setTimeout(240_000);
  workDir = await mkdtemp(join(tmpdir(), "untorn-e2e-hardening-"));
  web = await startWebServer("hardening", { UNTORN_RECONCILE_SECONDS: "0" }, workDir);
  ids = actionIds();
  admin = await signIn(web.url, ADMIN_USER, ADMIN_PASSWORD);
  // The viewer is made through the users page in Chromium: React's own encoding of a Server Action
  // passes the console's checks.
  const ctx = await browser.newContext({ baseURL: web.url });
  await ctx.addCookies([{ name: "untorn_session", value: admin, url: web.url }]);
  const page = await ctx.newPage();
  await page.goto("/admin/users");
  const form = page.getByRole("region", { name: "New user" });
  await form.getByLabel("Username").fill(VIEWER);
  await form.getByLabel(/^Password/).fill(VIEWER_PASSWORD);
  await form.getByLabel("Role").selectOption("viewer");
  await form.getByRole("button", { name: "Create user" }).click();
  await expect(form.getByRole("status")).toHaveText(`Created ${VIEWER} (viewer).`);
  await ctx.close();
  viewer = await signIn(web.url, VIEWER, VIEWER_PASSWORD);
});
test.afterAll(async () => {
  await web?.stop();
  if (workDir && !process.env.UNTORN_E2E_KEEP) await rm(workDir, { recursive: true, force: true });
});

const session = (cookie: string) => ({ cookie: `untorn_session=${cookie}`, origin: web.url });

/** A body as the test sends it: text, or a multipart form of string fields. */
type Body = { kind: "text"; type: string; text: string } | { kind: "form"; fields: [string, string][] };

/** POSTs `body` to a page as a Server Action call (with `action` as Next-Action, when given). */
async function postAction(action: string | null, body: Body, path = "/admin/users") {
  const headers: Record<string, string> = { ...session(admin), accept: "text/x-component" };
  if (action !== null) headers["next-action"] = action;
  let payload: string | FormData;
  if (body.kind === "text") {
    headers["content-type"] = body.type;
    payload = body.text;
  } else {
    payload = new FormData();
    for (const [k, v] of body.fields) payload.append(k, v);
  }
  const res = await fetch(`${web.url}${path}`, {
    method: "POST",
    headers,
    body: payload,
    redirect: "manual",
  });
  return { status: res.status, text: await res.text() };
}

const deep = (n: number) => `${"[".repeat(n)}${"]".repeat(n)}`;

test("odd methods answer 405 or 400, never 500", async () => {
  for (const method of ["TRACE", "TRACK", "PROPFIND", "PUT", "PATCH", "DELETE", "OPTIONS", "MKCOL"]) {
    for (const path of ["/", "/admin/users", `/instances/${INSTANCE}`]) {
      const res = await fetch(`${web.url}${path}`, { method, headers: session(admin) }).catch(() => null);
      // undici refuses to send TRACE and TRACK itself: those go over a raw socket below.
      if (res === null) continue;
      expect(res.status, `${method} ${path}`).toBe(405);
      expect(res.headers.get("allow")).toBe("GET, HEAD, POST");
    }
  }
  for (const method of ["TRACE", "TRACK", "CONNECT"]) {
    const status = await rawStatus(`${method} / HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
    expect([400, 405], method).toContain(status);
  }
  // The API's own route handlers keep their JSON 405 with the route's methods.
  const api = await fetch(`${web.url}/api/v1/fleet`, { method: "DELETE", headers: session(admin) });
  expect(api.status).toBe(405);
  expect(api.headers.get("allow")).toBe("GET");
});

/** The status line's code of a request written as raw bytes (methods fetch will not send). */
async function rawStatus(request: string): Promise<number> {
  const { connect } = await import("node:net");
  const url = new URL(web.url);
  return new Promise((resolve, reject) => {
    const socket = connect(Number(url.port), url.hostname, () => socket.write(request));
    let data = "";
    socket.on("data", (d) => {
      data += d.toString("latin1");
    });
    socket.on("error", reject);
    socket.on("close", () => resolve(Number(/^HTTP\/1\.1 (\d{3})/.exec(data)?.[1] ?? 0)));
  });
}

test("the issue's malformed Server Action bodies answer 400", async () => {
  const updateUser = ids.updateUser!;
  const table: [string, string | null, Body][] = [
    ["first argument not JSON", updateUser, { kind: "form", fields: [["0", "not json"]] }],
    ["nesting 5,000 deep", updateUser, { kind: "form", fields: [["0", deep(5000)]] }],
    [
      "text/plain garbage",
      updateUser,
      { kind: "text", type: "text/plain;charset=UTF-8", text: "\u0000\u00ff{[garbage" },
    ],
    [
      "text/plain JSON nesting 5,000 deep",
      updateUser,
      { kind: "text", type: "text/plain", text: deep(5000) },
    ],
    ["a $@5 reference", updateUser, { kind: "form", fields: [["0", '["$@5","$K1"]']] }],
    ["a $@5 reference as text/plain", updateUser, { kind: "text", type: "text/plain", text: '["$@5"]' }],
    ["empty []", updateUser, { kind: "form", fields: [["0", "[]"]] }],
    ["empty [] as text/plain", updateUser, { kind: "text", type: "text/plain", text: "[]" }],
    ["an object for the arguments", updateUser, { kind: "form", fields: [["0", "{}"]] }],
    [
      "a field no argument owns",
      updateUser,
      {
        kind: "form",
        fields: [
          ["0", '[{},"$K1"]'],
          ["7_id", "x"],
        ],
      },
    ],
    [
      "a broken multipart",
      updateUser,
      { kind: "text", type: "multipart/form-data; boundary=zz", text: "--zz\r\ngarbage" },
    ],
    [
      "a form posted without JavaScript and without the state",
      null,
      {
        kind: "form",
        fields: [
          [`$ACTION_ID_${updateUser}`, ""],
          ["id", "x"],
        ],
      },
    ],
    [
      "a form posted without JavaScript, its bound state not JSON",
      null,
      {
        kind: "form",
        fields: [
          ["$ACTION_REF_1", ""],
          ["$ACTION_1:0", "{not json"],
        ],
      },
    ],
  ];
  for (const [what, action, body] of table) {
    const res = await postAction(action, body);
    expect(res.status, `${what}: ${res.text.slice(0, 200)}`).toBeGreaterThanOrEqual(400);
    expect(res.status, what).toBeLessThan(500);
  }
  // An action id this build does not have: Next's own 4xx.
  const unknown = await postAction("ab".repeat(21), { kind: "form", fields: [["0", '[{},"$K1"]']] });
  expect(unknown.status).toBeGreaterThanOrEqual(400);
  expect(unknown.status).toBeLessThan(500);
});

test("fuzzed Server Action bodies never answer 5xx", async () => {
  test.setTimeout(240_000);
  const names = Object.keys(ids).sort();
  const reference = fc
    .tuple(fc.constantFrom("@", "F", "Q", "W", "K", "B", "T", "h", "S", "n", "l", "Z", "i", ""), fc.nat(99))
    .map(([tag, n]) => `$${tag}${n}`);
  const json = fc.jsonValue({ maxDepth: 4 }).map((v) => JSON.stringify(v));
  const root = fc.oneof(
    fc.string({ maxLength: 200 }),
    json,
    fc.integer({ min: 33, max: 6000 }).map(deep),
    fc.tuple(json, reference).map(([a, r]) => `[${a},${JSON.stringify(r)}]`),
    fc.array(reference, { maxLength: 3 }).map((r) => JSON.stringify(r)),
  );
  const body: fc.Arbitrary<Body> = fc.oneof(
    fc.record({
      kind: fc.constant("text" as const),
      type: fc.constant("text/plain;charset=UTF-8"),
      text: root,
    }),
    root.map((r): Body => ({ kind: "form", fields: [["0", r]] })),
    fc
      .tuple(
        root,
        fc.array(fc.tuple(fc.string({ maxLength: 12 }), fc.string({ maxLength: 40 })), { maxLength: 4 }),
      )
      .map(([r, extra]): Body => ({ kind: "form", fields: [["0", r], ...extra] })),
    fc
      .string({ maxLength: 300 })
      .map((text): Body => ({ kind: "text", type: "multipart/form-data; boundary=fz", text })),
  );
  await fc.assert(
    fc.asyncProperty(fc.constantFrom(...names), body, async (name, b) => {
      const res = await postAction(ids[name]!, b);
      expect(
        res.status,
        `${name}: ${JSON.stringify(b).slice(0, 300)} → ${res.text.slice(0, 200)}`,
      ).toBeLessThan(500);
    }),
    { numRuns: 150 },
  );
  // The console still serves (no request above broke it).
  expect((await fetch(`${web.url}/api/v1/health`, { headers: session(admin) })).status).toBe(200);
});

test("updateUser with an id that names no user answers the form's error, not a 500", async () => {
  const res = await postAction(ids.updateUser!, {
    kind: "form",
    // As React's client orders them: the form's fields, then the arguments.
    fields: [
      ["_1_id", "00000000-0000-4000-8000-00000000dead"],
      ["_1_role", "viewer"],
      ["0", '[{"status":"idle","message":"","fieldErrors":{}},"$K1"]'],
    ],
  });
  expect(res.status).toBe(200);
  expect(res.text).toContain("No such user: reload the page.");
});

test("the audit API refuses a NUL in a filter with 400", async () => {
  const res = await fetch(`${web.url}/api/v1/audit?actor=%00`, { headers: session(admin) });
  expect(res.status).toBe(400);
  expect(((await res.json()) as { error: string }).error).toContain("control characters");
});

test("a page the role may not open answers 403; the role that may gets 200", async () => {
  for (const path of ["/admin/users", "/admin/audit", "/rollouts/new"]) {
    const refused = await fetch(`${web.url}${path}`, { headers: session(viewer), redirect: "manual" });
    expect(refused.status, path).toBe(403);
    const needed = path === "/rollouts/new" ? "operator" : "admin";
    expect(await refused.text()).toContain(`This page needs the ${needed} role; ask an admin.`);
    const allowed = await fetch(`${web.url}${path}`, { headers: session(admin), redirect: "manual" });
    expect(allowed.status, path).toBe(200);
  }
});

test("an instance the fleet does not have answers 404; one it has 200", async () => {
  for (const cookie of [viewer, admin]) {
    const missing = await fetch(`${web.url}/instances/no-such-instance%3A9104`, { headers: session(cookie) });
    expect(missing.status).toBe(404);
    expect(await missing.text()).toContain("No instance “no-such-instance:9104” in the fleet");
    const bad = await fetch(`${web.url}/instances/%2500%00`, { headers: session(cookie) });
    expect([400, 404]).toContain(bad.status);
    const found = await fetch(`${web.url}/instances/${INSTANCE}`, { headers: session(cookie) });
    expect(found.status).toBe(200);
  }
  // Signed out, it is the sign-in redirect: nobody learns which instances exist.
  const anonymous = await fetch(`${web.url}/instances/no-such-instance`, { redirect: "manual" });
  expect(anonymous.status).toBe(307);
});
