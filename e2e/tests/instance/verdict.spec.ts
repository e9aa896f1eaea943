import { GRAFANA } from "../../fixtures/targets.js";
import { expect, test } from "../../fixtures/test.js";

test.describe("instance page", () => {
  test("shows the verdict with its evidence chain", async ({ instancePage }) => {
    await instancePage.goto("db-on");
    await expect(
      instancePage.verdict.getByText(/^(Write-bound|Likely write-bound|Not write-bound|Unknown)$/),
    ).toBeVisible();
    await expect(instancePage.verdict.getByTestId("verdict-confidence")).toHaveText(/^\d+(\.\d)?%$/);
    const rows = instancePage.evidence.locator("tbody tr");
    await expect(rows).toHaveCount(10);
    for (const signal of [
      "Free-page waits",
      "Redo log waits",
      "Device utilisation",
      "Device write latency",
      "Checkpoint age near capacity",
    ])
      await expect(instancePage.evidence.getByRole("rowheader", { name: signal })).toBeVisible();
    // Every evidence row says whether the signal was strong, partial, clear, missing or not applicable.
    for (const row of await rows.all()) await expect(row).toContainText(/strong|partial|clear|missing|n\/a/);
    await expect(instancePage.verdict.getByTestId("verdict-summary")).not.toBeEmpty();
  });

  test("shows the safety gate, findings with docs links, facts and the profile", async ({
    instancePage,
    page,
  }) => {
    await instancePage.goto("db-off");
    await expect(instancePage.gate.getByTestId("gate-summary")).not.toBeEmpty();
    // Doublewrite OFF on storage nobody verified: the critical finding says so.
    const critical = instancePage.finding("doublewrite-off-unverified-storage");
    await expect(critical).toBeVisible();
    await expect(critical.getByText("critical")).toBeVisible();
    await critical.getByRole("link", { name: "Rule documentation" }).click();
    await expect(page).toHaveURL(/\/docs\/rules\/doublewrite-off-unverified-storage$/);
    await expect(page.getByRole("heading", { level: 1 })).toBeVisible();
    await page.goBack();
    await expect(page.getByRole("region", { name: "Configuration and storage" })).toContainText(
      "innodb_doublewrite",
    );
    await expect(page.getByRole("region", { name: "Doublewrite profile" })).toContainText(
      "Doublewrite pages per flushed page",
    );
  });

  test("follows a verdict's why and a gate check's source to their reference sections", async ({
    instancePage,
    page,
  }) => {
    await instancePage.goto("db-on");
    const freePageWaits = instancePage.evidence.getByRole("row", { name: /Free-page waits/ });
    await freePageWaits.getByRole("link", { name: "docs/reference/status-counters.md §4" }).click();
    await expect(page).toHaveURL(/\/docs\/reference\/status-counters#s4$/);
    await expect(page.locator('[id="s4"]')).toBeAttached();
    await expect(page.getByRole("heading", { level: 1 })).toHaveText(/^4 Status counters/);
    await page.goBack();
    await instancePage.gate.getByText(/^All checks/).click();
    const checks = instancePage.gate.getByRole("table", { name: "Safety gate checks" });
    await checks
      .getByRole("link", { name: /^docs\/reference\/atomic-storage\.md §8\.\d$/ })
      .first()
      .click();
    await expect(page).toHaveURL(/\/docs\/reference\/atomic-storage#s8\.\d$/);
    const section = new URL(page.url()).hash.slice(1);
    await expect(page.locator(`[id="${section}"]`)).toBeAttached();
    await expect(
      page.getByRole("heading", { level: 2, name: new RegExp(`^${section.slice(1)} `) }),
    ).toBeVisible();
  });

  test("charts the write path and changes range through the URL", async ({ instancePage, page, target }) => {
    await instancePage.goto("db-on");
    for (const id of [
      "write-path",
      "fsync-latency",
      "device-write-iops",
      "device-utilisation",
      "transactions",
      "fsyncs",
    ])
      await expect(instancePage.chart(id)).toBeVisible();
    await expect(instancePage.chart("write-path").locator("canvas")).toBeVisible();
    await expect(instancePage.chart("transactions").locator("canvas")).toBeVisible();
    const picker = page.getByRole("navigation", { name: "Time range" });
    // The shortest range live; on the recording (minutes long) the whole of it.
    const first = picker.getByRole("link", { name: target === "live" ? "15 minutes" : "whole recording" });
    await first.click();
    await expect(page).toHaveURL(/[?&]range=/);
    await expect(first).toHaveAttribute("aria-current", "true");
    await expect(instancePage.chart("write-path").locator("canvas")).toBeVisible();
  });

  test("links the Grafana instance dashboard when GRAFANA_URL is set, and says how otherwise", async ({
    instancePage,
    page,
    target,
  }) => {
    await instancePage.goto("db-idle");
    const link = page.getByRole("link", { name: "Open in Grafana" });
    if (target === "recorded") {
      // GRAFANA_URL is set for the recorded console (global setup); the range is the recording's hour.
      const href = new URL((await link.getAttribute("href"))!);
      expect(`${href.origin}${href.pathname}`).toBe(`${GRAFANA}/d/untorn-instance/untorn-instance`);
      expect(href.searchParams.get("var-instance")).toBe("db-idle");
      expect(Number(href.searchParams.get("to")) - Number(href.searchParams.get("from"))).toBe(3_600_000);
    } else {
      await expect(link).toHaveCount(0);
      await expect(page.getByText("Grafana link: set GRAFANA_URL")).toBeVisible();
    }
  });

  test("an unknown instance gets a clear message", async ({ instancePage, page }) => {
    await page.goto(`/instances/${encodeURIComponent("no-such-db:3306")}`);
    await expect(page.getByRole("main").getByRole("alert")).toContainText(
      "No instance “no-such-db:3306” in the fleet",
    );
    // Decoded exactly once: a literal "%41" in a label stays "%41".
    await page.goto(`/instances/${encodeURIComponent("odd%41")}`);
    await expect(page.getByRole("main").getByRole("alert")).toContainText(
      "No instance “odd%41” in the fleet",
    );
    expect(instancePage).toBeTruthy();
  });
});
