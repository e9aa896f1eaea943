import { readFile } from "node:fs/promises";
import { expect, test } from "../../fixtures/rollouts.js";

test("the report page prints the change report and downloads it as Markdown and JSON", async ({
  reportPage,
  seeded,
  page,
}) => {
  await reportPage.goto(seeded.judged.id);
  const r = reportPage.report;
  await expect(r.getByRole("heading", { level: 1 })).toHaveText(
    "Change report: Doublewrite off on the orders canary",
  );
  await expect(r.getByTestId("report-verdict")).toContainText("Verdict:");
  for (const h of [
    "Hypothesis",
    "Plan",
    "Gates",
    "Effect per wave and metric",
    "Timeline",
    "What remains",
    "Revert plan",
  ])
    await expect(r.getByRole("heading", { level: 2, name: h, exact: true })).toBeVisible();
  await expect(r).toContainText("write_bytes_per_transaction");
  // Printing hides the header and the download links.
  await page.emulateMedia({ media: "print" });
  await expect(page.locator(".app-header")).toBeHidden();
  await expect(r.getByRole("link", { name: "Download Markdown" })).toBeHidden();
  await page.emulateMedia({ media: "screen" });

  const [md] = await Promise.all([
    page.waitForEvent("download"),
    r.getByRole("link", { name: "Download Markdown" }).click(),
  ]);
  expect(md.suggestedFilename()).toBe(`rollout-${seeded.judged.id}-report.md`);
  const text = await readFile((await md.path())!, "utf8");
  expect(text).toMatch(/^# Change report: Doublewrite off on the orders canary\n/);
  expect(text).toContain("## Effect per wave and metric");

  const [json] = await Promise.all([
    page.waitForEvent("download"),
    r.getByRole("link", { name: "Download JSON" }).click(),
  ]);
  expect(json.suggestedFilename()).toBe(`rollout-${seeded.judged.id}-report.json`);
  const body = JSON.parse(await readFile((await json.path())!, "utf8"));
  expect(body).toMatchObject({ schemaVersion: 1, id: seeded.judged.id, status: seeded.judged.status });
  expect(body.effects.length).toBeGreaterThan(0);
});
