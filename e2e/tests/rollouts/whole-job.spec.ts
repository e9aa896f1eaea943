/**
 * The whole job on what `npm start` serves with no configuration: the committed lab recording
 * (lab/recordings/), on a console of this spec's own (its own store, so the rollout it creates holds
 * no instance another spec reads), the reconciler every 2 s. From the fleet to the critical finding
 * (doublewrite OFF on unverified storage), "Plan a rollout" to turn doublewrite back ON, create,
 * approve, the pre-wave gate decided from the recording, mark the step done, the read-back as the
 * recording shows it, the report; then the recorded rollout's verdict and its report. On recorded
 * data no page shows raw PromQL or "query not in the replay file".
 */
import { readFileSync } from "node:fs";
import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import { gunzipSync } from "node:zlib";
import type { Page } from "@playwright/test";
import { repoRoot } from "@untorn/testkit/process";
import { ADMIN_PASSWORD, ADMIN_USER, sessionState, signIn } from "../../fixtures/auth.js";
import { ReportPage, RolloutPage } from "../../fixtures/pages/rollout-pages.js";
import { test as base, expect } from "../../fixtures/test.js";
import { startWebServer, type WebServer } from "../../setup/web-server.js";

const dir = join(repoRoot(), "lab", "recordings");
const meta = (
  JSON.parse(gunzipSync(readFileSync(join(dir, "mariadb-10.11-fleet.json.gz"))).toString("utf8")) as {
    meta: { end: number };
  }
).meta;
const recorded = JSON.parse(readFileSync(join(dir, "mariadb-10.11-fleet.rollouts.json"), "utf8")) as {
  rollouts: { id: string; state: string; targets: string[] }[];
};
const completed = recorded.rollouts.find((r) => r.state === "completed")!;
const active = recorded.rollouts.find((r) => r.state === "active")!;
/** The recording's clock, as the editor's UTC field takes it. */
const clockNow = new Date(meta.end * 1000).toISOString().slice(0, 16);
const TARGET = "db-dw-off-iops300-16k";

const test = base.extend<object, { ownServer: WebServer }>({
  ownServer: [
    // biome-ignore lint/correctness/noEmptyPattern: Playwright fixtures take their dependencies by destructuring
    async ({}, use) => {
      const workDir = process.env.UNTORN_E2E_WORKDIR ?? (await mkdtemp(join("/tmp", "untorn-e2e-whole-")));
      const server = await startWebServer("whole-job", { UNTORN_RECONCILE_SECONDS: "2" }, workDir);
      await use(server);
      await server.stop();
    },
    { scope: "worker", timeout: 180_000 },
  ],
  baseURL: async ({ ownServer }, use) => use(ownServer.url),
  storageState: async ({ ownServer }, use) => {
    await use(sessionState(ownServer.url, await signIn(ownServer.url, ADMIN_USER, ADMIN_PASSWORD)));
  },
});

test.describe.configure({ mode: "serial" });

/** Neither raw PromQL nor a replay miss reaches the page. */
async function noRawPromql(page: Page): Promise<void> {
  const text = await page.locator("main").innerText();
  expect(text).not.toMatch(/not in the replay file|by \(instance|untorn_[a-z_]+\{|rate\(/);
}

/** Reloads `page` until `locator` is visible (the reconciler moves the rollout on its own). */
async function reloadUntil(page: Page, visible: () => ReturnType<Page["locator"]>, timeoutMs = 90_000) {
  await expect(async () => {
    await page.reload();
    await expect(visible()).toBeVisible({ timeout: 2000 });
  }).toPass({ timeout: timeoutMs, intervals: [1000, 2000, 3000] });
}

test("from the fleet to the critical finding, a plan to turn doublewrite back ON, create, approve, mark done, the report", async ({
  page,
}) => {
  test.setTimeout(300_000);
  // The fleet, recorded data; the instance running doublewrite OFF on an unverified emulated volume.
  await page.goto("/");
  await expect(page.getByText(/^Recorded data/).first()).toBeVisible();
  await page.getByRole("link", { name: TARGET, exact: true }).first().click();
  await expect(page).toHaveURL(new RegExp(`/instances/${TARGET}`));
  const finding = page.locator('[data-rule="doublewrite-off-unverified-storage"]').first();
  await expect(finding).toBeVisible();
  await expect(finding).toContainText(/critical/i);

  // "Plan a rollout" on the finding: doublewrite back ON, judged before/after (a standalone server).
  await page
    .getByRole("link", { name: /^Plan a rollout: / })
    .and(page.locator('[href*="kind=doublewrite-on"]'))
    .click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Plan a rollout");
  await expect(page).toHaveURL(/kind=doublewrite-on/);
  await expect(page.getByTestId("replay-note")).toContainText("compose demo");
  await expect(page.getByRole("heading", { name: "Waves" }).locator("..")).toContainText(
    `Wave 0 (canary): ${TARGET}; judged before/after`,
  );
  const dry = page.getByRole("table", { name: "Dry run" }).locator(`tr[data-instance="${TARGET}"]`);
  await expect(dry).toContainText("OFF → ON");
  await expect(dry).toContainText("restart");
  // The dry run's time to a verdict: nothing to estimate for doublewrite back ON, said in words.
  await expect(
    page.getByRole("region", { name: "Time to a verdict" }).locator('li[data-wave="0"]'),
  ).toContainText("Wave 0: the advisor puts no figure on the effect here");
  await noRawPromql(page);

  // Create, with a backup attested on the recording's clock.
  await page.getByLabel("Backup taken at (UTC)").fill(clockNow);
  await page.getByRole("button", { name: /^Create/ }).click();
  await expect(page).toHaveURL(/\/rollouts\/[0-9a-f-]{36}$/, { timeout: 60_000 });
  const id = page.url().split("/").at(-1)!;
  const rp = new RolloutPage(page);
  await expect(rp.status).toHaveAttribute("data-status", "active");
  // The backup is attested: what happens next is the approval, not another backup.
  const next = page.getByTestId("rollout-next");
  await expect(next).toContainText("Approve wave 0");
  await expect(next).not.toContainText(/backup/i);
  // Before the pre-wave gate the step cannot be marked done, and says when it can.
  await expect(page.getByRole("button", { name: `Mark step done on ${TARGET}` })).toHaveCount(0);
  await expect(page.getByTestId(`step-waits-${TARGET}`)).toBeVisible();
  await expect(page.getByTestId("recorded-limit")).toContainText("compose demo");
  // Created at the recording's end, like every rollout made on it: the wall-clock save tells them apart,
  // here and on the list.
  const saved = new Date().toISOString().slice(0, 10);
  await expect(page.getByTestId("saved-at")).toContainText(`(saved ${saved}`);
  await page.goto("/rollouts");
  await expect(page.locator(`tr[data-rollout="${id}"]`).getByTestId("saved-at")).toContainText(saved);
  await page.goto(`/rollouts/${id}`);

  // Approve: the reconciler decides the pre-wave gate from the recording, and the wave applies.
  await page.getByRole("button", { name: "Approve wave 0" }).click();
  await reloadUntil(page, () => page.getByRole("button", { name: `Mark step done on ${TARGET}` }));
  await expect(rp.gate(0, "pre-wave").first()).toHaveAttribute("data-outcome", "pass");
  await noRawPromql(page);

  // Mark the step done.
  await page.getByRole("button", { name: `Mark step done on ${TARGET}` }).click();
  await expect(rp.step(TARGET)).toContainText(/marked done/, { timeout: 30_000 });
  // The recording cannot show a change made after its end: the step waits for a read-back that
  // matches, and the page says so in a sentence, with where to go instead.
  await expect(rp.step(TARGET)).toContainText("done, waiting for the read-back");
  await expect(page.getByTestId("recorded-limit")).toContainText("no read-back can show it");
  await page.waitForTimeout(6000);
  await page.reload();
  await expect(page.getByTestId("reconciler-problem")).toHaveCount(0);
  await noRawPromql(page);

  // Its report: in progress, what remains named, nothing raw.
  const report = new ReportPage(page);
  await report.goto(id);
  await expect(report.report.getByTestId("report-verdict")).toContainText("Verdict:");
  await expect(report.report).toContainText(TARGET);
  await expect(report.report).not.toContainText("0% to 0%");
  await noRawPromql(page);
});

test("the rollouts list offers a new rollout; a plan on an instance another rollout holds links to it", async ({
  page,
}) => {
  await page.goto("/rollouts");
  await page.getByTestId("new-rollout").click();
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Plan a rollout");
  // The recorded second rollout (pending) holds the shop's control replica.
  const held = active.targets[0]!;
  await page.goto(`/rollouts/new?kind=doublewrite-off&target=${held}`);
  const blocked = page.getByTestId("exclusions").locator('li[data-reason="another-rollout-active"]');
  await expect(blocked).toBeVisible();
  await blocked.getByTestId("blocking-rollout").first().click();
  await expect(page).toHaveURL(new RegExp(`/rollouts/${active.id}$`));
  await noRawPromql(page);
});

test("the recorded rollout's verdict and its report", async ({ page }) => {
  const rp = new RolloutPage(page);
  await rp.goto(completed.id);
  await expect(rp.status).toHaveAttribute("data-status", "completed");
  await expect(page.locator("main")).not.toContainText("0% to 0%");
  const report = new ReportPage(page);
  await report.goto(completed.id);
  await expect(report.report.getByTestId("report-verdict")).toContainText("Verdict:");
  await expect(report.report).toContainText("What remains");
  await expect(report.report).toContainText("Replication catch-up");
  await noRawPromql(page);
});
