import { readFileSync } from "node:fs";
import { join } from "node:path";
import { repoRoot } from "@untorn/testkit/process";
import { expect, test } from "../../fixtures/test.js";

// What `npm start` serves with no configuration: the committed lab recording (lab/recordings/) and the
// lab's declared facts beside it, found from the app's working directory as in production.
const declared = JSON.parse(
  readFileSync(join(repoRoot(), "lab", "recordings", "mariadb-10.11-fleet.metadata.json"), "utf8"),
) as { instances: Record<string, { cluster: string }> };
const names = Object.keys(declared.instances);
const clusters = [...new Set(Object.values(declared.instances).map((d) => d.cluster))].sort();

test.describe("the recorded demo fleet on embedded defaults", () => {
  test.use({ target: "demo" });

  test("lists every lab instance as recorded data, with the declared facts named", async ({
    fleetPage,
    page,
  }) => {
    await fleetPage.goto();
    await expect(page.getByText(/^Recorded data/).first()).toBeVisible();
    await expect(fleetPage.count).toHaveText(`${names.length} instances`);
    await expect(page.getByTestId("fleet-meta")).toContainText(
      `declared facts for ${names.length} instances from mariadb-10.11-fleet.metadata.json`,
    );
    await expect(fleetPage.card("Instances")).toContainText(String(names.length));
  });

  test("filters by the lab's clusters", async ({ fleetPage }) => {
    await fleetPage.goto();
    const options = (await fleetPage.filter("Cluster").locator("option").allTextContents()).slice(1);
    expect(options.sort()).toEqual(clusters);
    const ebs = names.filter((n) => declared.instances[n]!.cluster === "ebs-sim");
    await fleetPage.filter("Cluster").selectOption("ebs-sim");
    await expect(fleetPage.rows()).toHaveCount(ebs.length);
    expect((await fleetPage.instanceNames()).sort()).toEqual(ebs.sort());
  });

  test("shows the positive path: verified gates on storage declared for the demo", async ({
    fleetPage,
    instancePage,
    page,
  }) => {
    await fleetPage.goto();
    // db-shop-replica-2: gate verified by the declaration, doublewrite still on.
    await expect(fleetPage.card("Could safely drop doublewrite").locator("dd")).toHaveText(/^1(?!\d)/);
    // Both shop replicas' gates rest on declarations made for the demo: the table says so, and no
    // other row carries the tag.
    for (const name of ["db-shop-replica-1", "db-shop-replica-2"])
      await expect(fleetPage.row(name).getByTestId("demo-only")).toHaveText("demo only");
    await expect(page.getByTestId("demo-only")).toHaveCount(2);
    await instancePage.goto("db-shop-replica-1");
    await expect(page.getByTestId("demo-only").first()).toBeVisible();
    await expect(
      page.getByText(/other, 16 KiB \(declared for a demo only\): Declared for the demo/),
    ).toBeVisible();
  });

  test("flags doublewrite OFF on the unverified emulated volume as critical", async ({ instancePage }) => {
    await instancePage.goto("db-dw-off-iops300-16k");
    const finding = instancePage.finding("doublewrite-off-unverified-storage");
    await expect(finding).toBeVisible();
    await expect(finding).toContainText(/critical/i);
  });
});
