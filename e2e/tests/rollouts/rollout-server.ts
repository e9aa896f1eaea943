/**
 * The rollout specs' own console: the recorded throwaway fleet with a data directory of its own (a
 * rollout holds its instances, so these specs must not share a store with the others), seeded with a
 * cluster of two replicas and a primary, and an operator and a viewer account. The reconciler runs
 * every 2 s. Serial within a file.
 */
import { randomBytes } from "node:crypto";
import { mkdir } from "node:fs/promises";
import { join } from "node:path";
import type { BrowserContext, Page } from "@playwright/test";
import { openStore } from "@untorn/store/store";
import { ADMIN_PASSWORD, ADMIN_USER, signIn } from "../../fixtures/auth.js";
import { test as base, expect } from "../../fixtures/test.js";
import { startWebServer, type WebServer } from "../../setup/web-server.js";

/** orders: db-on (the canary candidate) and db-off replicas, db-idle the primary. */
const TOPOLOGY = [
  { instance: "db-on", cluster: "orders", role: "replica" },
  { instance: "db-off", cluster: "orders", role: "replica" },
  { instance: "db-idle", cluster: "orders", role: "primary" },
] as const;

export const PASSWORD = "rollout-e2e-password-0123";

export interface Accounts {
  readonly operator: string;
  readonly viewer: string;
}

async function createAccount(baseURL: string, page: Page, role: "operator" | "viewer"): Promise<string> {
  const name = `${role}-${randomBytes(3).toString("hex")}`;
  await page.goto(`${baseURL}/admin/users`);
  const form = page.getByTestId("new-user");
  await form.getByLabel("Username").fill(name);
  await form.getByLabel(/^Password/).fill(PASSWORD);
  await form.getByLabel("Role").selectOption(role);
  await form.getByRole("button", { name: "Create user" }).click();
  // A Server Action that hashes a password (scrypt) on a loaded machine: more than the default 10 s.
  await expect(form.getByRole("status")).toHaveText(`Created ${name} (${role}).`, { timeout: 30_000 });
  return name;
}

export const test = base.extend<object, { rolloutServer: WebServer; accounts: Accounts }>({
  rolloutServer: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
    async ({}, use, info) => {
      const replay = process.env.UNTORN_E2E_REPLAY_FILE;
      const workDir = process.env.UNTORN_E2E_WORKDIR;
      if (!replay || !workDir) throw new Error("no UNTORN_E2E_REPLAY_FILE: did global setup run?");
      const name = `rollouts-${info.workerIndex}-${randomBytes(3).toString("hex")}`;
      const dataDir = join(workDir, `data-${name}`);
      await mkdir(dataDir, { recursive: true });
      const store = await openStore({ dataDir });
      try {
        for (const t of TOPOLOGY) await store.upsertInstanceMetadata({ ...t, actor: "e2e setup" });
      } finally {
        await store.close();
      }
      const server = await startWebServer(
        name,
        { UNTORN_REPLAY: replay, UNTORN_RECONCILE_SECONDS: "2" },
        workDir,
      );
      await use(server);
      await server.stop();
    },
    { scope: "worker", timeout: 120_000 },
  ],
  accounts: [
    async ({ rolloutServer, browser }, use) => {
      const ctx = await browser.newContext();
      await ctx.addCookies([
        {
          name: "untorn_session",
          value: await signIn(rolloutServer.url, ADMIN_USER, ADMIN_PASSWORD),
          url: rolloutServer.url,
        },
      ]);
      const page = await ctx.newPage();
      const operator = await createAccount(rolloutServer.url, page, "operator");
      const viewer = await createAccount(rolloutServer.url, page, "viewer");
      await ctx.close();
      await use({ operator, viewer });
    },
    { scope: "worker", timeout: 120_000 },
  ],
  baseURL: async ({ rolloutServer }, use) => use(rolloutServer.url),
});

export { expect };

/** Makes `context`'s session `user`'s. */
export async function signInAs(context: BrowserContext, baseURL: string, user: string): Promise<void> {
  await context.clearCookies();
  await context.addCookies([
    { name: "untorn_session", value: await signIn(baseURL, user, PASSWORD), url: baseURL },
  ]);
}

/** As an operator on the instance page: db-on's volume declared torn-write safe (as EBS would be). */
export async function declareVerifiedStorage(page: Page): Promise<void> {
  await page.goto("/instances/db-on");
  const form = page.getByRole("region", { name: "Fleet metadata" });
  await form.getByLabel("Torn-write protection by").selectOption("aws-ebs");
  await form.getByLabel("Atomic up to").selectOption("16384");
  await form.getByLabel("Verified how").fill("declared for the rollout e2e");
  await form.getByRole("button", { name: "Save metadata" }).click();
  await expect(form.getByTestId("metadata-status")).toContainText("Saved");
}

/** An hour before now, as the editor's UTC field takes it (before the recording's end). */
export const anHourAgo = () => new Date(Date.now() - 3600_000).toISOString().slice(0, 16);

/**
 * The change the acting specs roll out: innodb_flush_method = fsync on db-on. It needs no safety gate,
 * and on this machine's disks (ext4 without bigalloc) no declared fact verifies db-on's gate, so
 * doublewrite OFF is planned only to see its exclusion (plan-and-act.spec.ts).
 */
export const EDITOR = "/rollouts/new?kind=flush-method&method=fsync&target=db-on";

/** Creates a rollout of EDITOR's change through the editor; returns its page's path. */
export async function createRollout(page: Page, opts: { backup?: boolean } = {}): Promise<string> {
  await page.goto(EDITOR);
  await expect(page.getByRole("checkbox", { name: /db-on/ })).toBeChecked();
  if (opts.backup) await page.getByLabel("Backup taken at (UTC)").fill(anHourAgo());
  await page.getByRole("button", { name: "Create rollout" }).click();
  await expect(page).toHaveURL(/\/rollouts\/[0-9a-f-]{36}$/);
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "active");
  return new URL(page.url()).pathname;
}

/** Aborts the rollout shown (frees db-on for the next spec). */
export async function abort(page: Page, why = "e2e clean-up"): Promise<void> {
  await page.getByLabel("Why abort (kept in the audit)").fill(why);
  await page.getByRole("button", { name: "Abort" }).click();
  await expect(page.getByTestId("rollout-status")).toHaveAttribute("data-status", "aborted");
}
