import { expect, test } from "../../fixtures/test.js";

test.describe("fleet metadata", () => {
  test("edits cluster, notes and a declared storage fact; the advice uses them", async ({
    instancePage,
    page,
  }) => {
    await instancePage.goto("db-idle");
    const form = instancePage.metadata;
    await expect(form.getByLabel("Cluster")).toHaveValue("analytics");
    const note = `canary candidate ${Date.now()}`;
    await form.getByLabel("Cluster").fill("analytics-eu");
    await form.getByLabel("Notes").fill(note);
    await form.getByLabel("Provider I/O limits").selectOption("false");
    await form.getByRole("button", { name: "Save metadata" }).click();
    await expect(form.getByTestId("metadata-status")).toContainText("Saved");
    // The page header and the facts the advisor used reflect it at once.
    await expect(page.getByText(/cluster analytics-eu/)).toBeVisible();
    await expect(page.getByRole("region", { name: "Configuration and storage" })).toContainText(
      "none (local device)",
    );
    await page.reload();
    await expect(form.getByLabel("Notes")).toHaveValue(note);
    await page.goto("/?cluster=analytics-eu");
    await expect(page.getByRole("table", { name: "Fleet instances" }).locator("tbody tr")).toHaveCount(1);
    // Put it back for the other specs.
    await instancePage.goto("db-idle");
    await instancePage.metadata.getByLabel("Cluster").fill("analytics");
    await instancePage.metadata.getByLabel("Provider I/O limits").selectOption("");
    await instancePage.metadata.getByRole("button", { name: "Save metadata" }).click();
    await expect(instancePage.metadata.getByTestId("metadata-status")).toContainText("Saved");
  });

  test("names a bad field instead of saving", async ({ instancePage }) => {
    await instancePage.goto("db-on");
    const form = instancePage.metadata;
    await form.getByLabel("IOPS limit").fill("-3");
    await form.getByRole("button", { name: "Save metadata" }).click();
    await expect(form.getByTestId("metadata-status")).toHaveText("Some fields need fixing.");
    await expect(form.getByLabel("IOPS limit")).toHaveAttribute("aria-invalid", "true");
    await expect(form.getByText("IOPS must be a number above 0")).toBeVisible();
  });
});
