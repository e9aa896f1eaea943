import { expect, test } from "../../fixtures/test.js";

test.describe("bad URL parameters", () => {
  test("are named in a message, and the good ones still apply", async ({ fleetPage }) => {
    await fleetPage.goto(
      "sort=bogus&verdict=sideways&cluster=orders&colour=red&gate=verified&gate=unsafe&page=0",
    );
    await expect(fleetPage.paramProblems).toContainText("Some URL parameters were ignored");
    await expect(fleetPage.paramProblems).toContainText("sort=bogus");
    await expect(fleetPage.paramProblems).toContainText("must be one of rank, instance");
    await expect(fleetPage.paramProblems).toContainText("verdict=sideways");
    await expect(fleetPage.paramProblems).toContainText("colour=red: unknown parameter");
    await expect(fleetPage.paramProblems).toContainText("given more than once");
    await expect(fleetPage.paramProblems).toContainText("page=0: must be a whole number from 1 to 100000");
    await expect(fleetPage.filter("Cluster")).toHaveValue("orders");
    await expect(fleetPage.rows()).toHaveCount(2);
  });

  test("on an instance page: a bad range and a bad path segment", async ({ instancePage, page }) => {
    await instancePage.goto("db-on", "range=forever");
    await expect(page.getByTestId("param-problems")).toContainText("range=forever");
    await expect(instancePage.verdict).toBeVisible();
    await page.goto("/instances/db%01on");
    await expect(page.getByRole("main").getByRole("alert")).toContainText(
      "must not contain control characters",
    );
  });
});
