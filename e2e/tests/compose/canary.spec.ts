/**
 * The live docker-compose demo, a canary carried to its proof (`npm run test:compose` runs this after
 * scripts/compose-test.sh has built and started the stack): in Chromium, signed in as the demo's admin,
 * plan doublewrite OFF on mariadb-replica1 (its storage declared for the demo only, in
 * compose/web/metadata.json), wait until the plan's time to a verdict says the bake can decide, create
 * with a backup attested, approve wave 0, carry out the step as a DBA would (an option file and a restart
 * of the container), mark it done, and wait for the console's own reconciler to read it back, bake it
 * against the control (mariadb-replica2) and decide; then the report, labelled demo-only.
 *
 * The stack is the fixture: compose-test.sh passes its console's URL, the admin password of its .env and
 * the canary's container id.
 */
import { execFileSync } from "node:child_process";
import { expect, type Locator, type Page, test } from "@playwright/test";
import { ADMIN_USER, sessionState, signIn } from "../../fixtures/auth.js";
import { ReportPage, RolloutPage } from "../../fixtures/pages/rollout-pages.js";

const CANARY = "mariadb-replica1";
const CONTROL = "mariadb-replica2";

function required(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run this spec through \`npm run test:compose\``);
  return v;
}

const webUrl = () => required("UNTORN_COMPOSE_WEB_URL");

test.use({ baseURL: process.env.UNTORN_COMPOSE_WEB_URL ?? "http://127.0.0.1:1" });
test.use({
  storageState: async ({ baseURL }, use) => {
    const url = baseURL ?? webUrl();
    await use(sessionState(url, await signIn(url, ADMIN_USER, required("UNTORN_COMPOSE_ADMIN_PASSWORD"))));
  },
});

/** Reloads `page` until `ready` passes (the console's reconciler moves the rollout on its own). */
async function reloadUntil(page: Page, what: string, ready: () => Promise<void>, timeoutMs: number) {
  const until = Date.now() + timeoutMs;
  for (;;) {
    try {
      await ready();
      return;
    } catch (e) {
      if (Date.now() > until) throw new Error(`${what}: not reached in ${timeoutMs / 1000} s: ${String(e)}`);
    }
    await page.waitForTimeout(5000);
    await page.reload();
  }
}

/** What a DBA does for the step on MariaDB 10.11: an option file, then a restart of the server. */
function doublewriteOffByRestart(container: string): void {
  const docker = (...args: string[]) =>
    execFileSync("docker", args, { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"], timeout: 120_000 });
  docker(
    "exec",
    "-u",
    "root",
    container,
    "sh",
    "-c",
    'printf "[mariadbd]\\ninnodb_doublewrite = OFF\\n" > /etc/mysql/mariadb.conf.d/95-rollout.cnf',
  );
  docker("restart", container);
}

const text = (l: Locator) => l.innerText().catch(() => "(not on the page)");

test("a doublewrite-OFF canary on the demo's replica set, from the plan to a decided bake and its report", async ({
  page,
}) => {
  const container = required("UNTORN_COMPOSE_CANARY_CONTAINER");
  const backupAt = new Date(Date.now() - 3600_000).toISOString().slice(0, 16);
  const rp = new RolloutPage(page);

  // The plan: the canary, its control from the replica set, the gate verified on a demo-only
  // declaration, and a bake that can decide on the history Prometheus holds so far.
  const plan = `/rollouts/new?kind=doublewrite-off&target=${CANARY}&warmupMinutes=1&bakeMinutes=15`;
  await page.goto(plan);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Plan a rollout");
  await expect(page.getByRole("heading", { name: "Waves" }).locator("..")).toContainText(
    `Wave 0 (canary): ${CANARY}; control: ${CONTROL}`,
  );
  const dry = page.getByRole("table", { name: "Dry run" }).locator(`tr[data-instance="${CANARY}"]`);
  await expect(dry).toContainText("ON → OFF");
  await expect(dry.getByTestId("demo-only")).toBeVisible();
  const estimate = page.getByTestId("bake-estimates").locator('li[data-wave="0"]');
  await reloadUntil(
    page,
    "the plan's time to a verdict says the bake decides",
    async () => expect(estimate).toHaveAttribute("data-outcome", "decides", { timeout: 2000 }),
    // A stack started minutes ago (or a canary just restarted) needs steady history first.
    35 * 60_000,
  ).catch(async (e) => {
    throw new Error(`${String(e)}; the estimate reads: ${await text(estimate)}`);
  });

  // Create, with a backup attested an hour ago.
  await page.getByLabel("Backup taken at (UTC)").fill(backupAt);
  await page.getByRole("button", { name: /^Create/ }).click();
  await expect(page).toHaveURL(/\/rollouts\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  const id = page.url().split("/").at(-1)!;
  await expect(rp.status).toHaveAttribute("data-status", "active");
  await expect(page.getByTestId("demo-only-banner")).toContainText(CANARY);

  // Approve: the pre-wave gate (backup, lag, the safety gate) passes and the wave applies.
  await page.getByRole("button", { name: "Approve wave 0" }).click();
  const markDone = page.getByRole("button", { name: `Mark step done on ${CANARY}` });
  await reloadUntil(
    page,
    "the wave applying",
    async () => expect(markDone).toBeVisible({ timeout: 2000 }),
    5 * 60_000,
  );
  await expect(rp.gate(0, "pre-wave").first()).toHaveAttribute("data-outcome", "pass");

  // The step, carried out on the canary's container; then marked done.
  doublewriteOffByRestart(container);
  await markDone.click();
  await expect(rp.step(CANARY)).toContainText(/marked done/, { timeout: 30_000 });

  // The reconciler reads the change back, waits out the warm-up, and bakes against the control until
  // the judgement is decided (at most the plan's 15 minutes).
  const bake = rp.gate(0, "bake").first();
  await reloadUntil(
    page,
    "the bake decided",
    async () => expect(bake).toHaveAttribute("data-outcome", /^(pass|fail)$/, { timeout: 2000 }),
    25 * 60_000,
  ).catch(async (e) => {
    throw new Error(`${String(e)}; the page reads: ${(await text(page.locator("main"))).slice(0, 3000)}`);
  });
  await expect(rp.gate(0, "step").first()).toHaveAttribute("data-outcome", "pass");
  await expect(bake, await text(bake)).toHaveAttribute("data-outcome", "pass");
  await expect(bake).toContainText("write_bytes_per_transaction");

  // The report: the verdict against the control, labelled demo-only, no raw or overflowing number.
  const report = new ReportPage(page);
  await report.goto(id);
  await expect(report.report.getByTestId("report-verdict")).toContainText("Verdict:");
  await expect(report.report).toContainText(CONTROL);
  await expect(page.getByTestId("demo-only-banner")).toContainText(CANARY);
  await expect(report.report).not.toContainText(/e\+\d|NaN|Infinity/);
});
