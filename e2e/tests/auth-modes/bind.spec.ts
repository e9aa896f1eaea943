import { readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { expect, test } from "@playwright/test";
import { signIn } from "../../fixtures/auth.js";
import { spawnWebServer, startWebServer } from "../../setup/web-server.js";

/**
 * The production console (server.mjs, as `npm start` runs it) on its embedded defaults, with nobody's
 * password set: on a loopback address it starts and prints the first admin's generated password once;
 * on every interface it refuses to start while the store has no account, since the first visitor from
 * the network would meet a console nobody can sign in to but its log's reader (src/instrumentation.ts).
 */
const noAccount = { UNTORN_ADMIN_PASSWORD: "", UNTORN_VIEWER_TOKEN: "" };
const FIRST_ADMIN = /created the first admin account "admin" with password (\S+) \(shown once/;

let workDir: string;
test.beforeAll(async () => {
  workDir = await mkdtemp(join(tmpdir(), "untorn-e2e-bind-"));
});
test.afterAll(async () => {
  await rm(workDir, { recursive: true, force: true });
});

test.describe.configure({ mode: "serial" });

test("on 0.0.0.0 with no account and no UNTORN_ADMIN_PASSWORD, the server exits 1 naming the setting and the rule", async () => {
  test.setTimeout(240_000);
  const open = await spawnWebServer("all-interfaces", { ...noAccount, UNTORN_HOST: "0.0.0.0" }, workDir);
  // No clock involved: the process either exits or the test's own timeout fails it.
  expect(await open.process.exited).toBe(1);
  const log = readFileSync(open.process.logFile, "utf8");
  expect(log).toContain(
    "untorn: refusing to start, UNTORN_HOST=0.0.0.0: a non-loopback address needs an account to sign in with and the store has none; set UNTORN_ADMIN_PASSWORD (the first admin's password) or listen on 127.0.0.1",
  );
  // Refused before anything was created or served.
  expect(log).not.toMatch(FIRST_ADMIN);
  expect(log).not.toContain("console listening");
});

test("on 127.0.0.1 it starts and prints the first admin's password once; with that account, 0.0.0.0 starts too", async () => {
  test.setTimeout(240_000);
  const local = await startWebServer("loopback", noAccount, workDir);
  let password: string;
  try {
    const log = readFileSync(local.process.logFile, "utf8");
    expect(log).toContain("untorn: console listening on http://127.0.0.1:");
    password = FIRST_ADMIN.exec(log)?.[1] ?? "";
    expect(password).toMatch(/^\S{16,}$/);
    await signIn(local.url, "admin", password);
  } finally {
    await local.stop();
  }

  // The same store, now with an account: every interface is allowed, and the password is not printed again.
  const open = await startWebServer(
    "all-interfaces-with-account",
    { ...noAccount, UNTORN_HOST: "0.0.0.0", UNTORN_DATA_DIR: local.dataDir },
    workDir,
  );
  try {
    const log = readFileSync(open.process.logFile, "utf8");
    expect(log).toContain("untorn: console listening on http://0.0.0.0:");
    expect(log).not.toMatch(FIRST_ADMIN);
    await signIn(open.url, "admin", password);
  } finally {
    await open.stop();
  }
});
