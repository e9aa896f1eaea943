import type { FilterName } from "../../fixtures/pages/fleet-page.js";
import { expect, test } from "../../fixtures/test.js";

test.describe("fleet table", () => {
  test("lists every instance with its verdict, gate, doublewrite pages per flushed page and expected gain", async ({
    fleetPage,
    instances,
  }) => {
    await fleetPage.goto();
    await expect(fleetPage.rows()).toHaveCount(instances.length);
    expect((await fleetPage.instanceNames()).sort()).toEqual(instances);
    for (const col of [
      "Server",
      "Role",
      "Doublewrite",
      "Safety gate",
      "Verdict",
      "DW pages/flushed",
      "DW share",
      "Expected gain",
    ])
      await expect(fleetPage.columnHeader(col)).toBeVisible();
    const on = fleetPage.row("db-on");
    await expect(on).toContainText("MariaDB");
    await expect(on).toContainText("ON");
    await expect(on).toContainText("orders");
    await expect(fleetPage.row("db-off")).toContainText("OFF");
    await expect(fleetPage.card("Write-bound")).toBeVisible();
    await expect(fleetPage.card("Could safely drop doublewrite")).toBeVisible();
    await expect(fleetPage.card("Estimated write I/O saved")).toContainText("/s");
  });

  test("draws each instance's doublewrite pages/s over the page's range, its first, last and peak in words", async ({
    fleetPage,
    page,
  }) => {
    await fleetPage.goto();
    await expect(fleetPage.columnHeader("DW pages/s")).toHaveAttribute("title", /^Doublewrite pages\/s /);
    const words = /^Doublewrite pages\/s over .+: first .+ pages\/s, last .+ pages\/s, peak .+ pages\/s$/;
    const line = fleetPage.row("db-on").getByRole("img", { name: words });
    await expect(line).toBeVisible();
    // A drawn line (the series the instance page charts, drawn on the server), not an empty box.
    await expect(line.locator("path")).toHaveAttribute("d", /^M[\d.]+,[\d.]+L/);
    // Another range asks for its own lines, named with that range.
    await fleetPage.goto("range=15m");
    await expect(fleetPage.row("db-on").getByRole("img", { name: words })).toBeVisible();
    // Every row has a line or says why not; on this fleet none says the source failed.
    await expect(page.locator("[data-trend-state=unavailable]")).toHaveCount(0);
  });

  test("draws device busy or doublewrite's share instead, chosen in the Trend picker and kept in the URL", async ({
    fleetPage,
    page,
  }) => {
    await fleetPage.goto();
    await fleetPage.filter("Trend").selectOption({ label: "Device busy" });
    await expect.poll(() => fleetPage.searchParams().get("trend")).toBe("busy");
    await expect(fleetPage.columnHeader("Device busy")).toHaveAttribute(
      "title",
      /^Device utilisation .* 100%/,
    );
    const busy = /^Device utilisation over .+: first [\d.]+%, last [\d.]+%, peak [\d.]+%$/;
    await expect(fleetPage.row("db-on").getByRole("img", { name: busy })).toBeVisible();
    // Doublewrite's share, on the basis the row's DW share column gives: the device's, or InnoDB's own
    // where the device is shared (†: on a busy CI machine it is).
    await fleetPage.goto("trend=dw-share");
    await expect(fleetPage.filter("Trend")).toHaveValue("dw-share");
    await expect(fleetPage.columnHeader("Share trend")).toBeVisible();
    const share =
      /^Doublewrite share of (device writes|write bytes) over .+: first [\d.]+%, last [\d.]+%, peak [\d.]+%$/;
    const noData = (instance: string) => fleetPage.row(instance).getByText("no data", { exact: true });
    if (test.info().project.name === "recorded") {
      // The recording's window holds the load: db-on wrote, so its share is a line.
      await expect(fleetPage.row("db-on").getByRole("img", { name: share })).toBeVisible();
    } else {
      // The live console's 30 s window is long past the setup's load: InnoDB wrote nothing, so its share
      // of InnoDB's bytes is 0 ÷ 0, which the catalog leaves out (a missing point, never a made-up 0%).
      await expect(
        fleetPage.row("db-on").getByRole("img", { name: share }).or(noData("db-on")),
      ).toBeVisible();
    }
    // Doublewrite off writes no doublewrite page: a measured 0%, or "no data" where InnoDB wrote nothing.
    const off = fleetPage.row("db-off");
    await expect(
      off.getByRole("img", { name: /^Doublewrite share .* peak 0%$/ }).or(noData("db-off")),
    ).toBeVisible();
    await expect(page.locator("[data-trend-state]")).toHaveCount(0);
    // Reset clears the filters, not the figure chosen.
    await fleetPage.filter("Verdict").selectOption({ index: 1 });
    await fleetPage.reset.click();
    await expect(fleetPage.filter("Trend")).toHaveValue("dw-share");
  });

  test("sorts by a column, both ways, and keeps the order in the URL", async ({
    fleetPage,
    page,
    instances,
  }) => {
    await fleetPage.goto();
    await fleetPage.sortBy("Instance");
    await expect(fleetPage.columnHeader("Instance")).toHaveAttribute("aria-sort", "ascending");
    await expect.poll(() => fleetPage.searchParams().get("sort")).toBe("instance");
    expect(await fleetPage.instanceNames()).toEqual(instances);
    await fleetPage.sortBy("Instance");
    await expect(fleetPage.columnHeader("Instance")).toHaveAttribute("aria-sort", "descending");
    await expect.poll(() => fleetPage.searchParams().get("dir")).toBe("desc");
    expect(await fleetPage.instanceNames()).toEqual([...instances].reverse());
    await page.reload();
    await expect(fleetPage.columnHeader("Instance")).toHaveAttribute("aria-sort", "descending");
    expect(await fleetPage.instanceNames()).toEqual([...instances].reverse());
  });

  test("filters by cluster, verdict and gate and searches, all in the URL", async ({ fleetPage, page }) => {
    await fleetPage.goto();
    await fleetPage.filter("Cluster").selectOption("orders");
    await expect.poll(() => fleetPage.searchParams().get("cluster")).toBe("orders");
    await expect(fleetPage.rows()).toHaveCount(2);
    expect((await fleetPage.instanceNames()).sort()).toEqual(["db-off", "db-on"]);
    await expect(fleetPage.count).toHaveText("Showing 2 of 3 instances");

    await fleetPage.search.fill("off");
    await expect.poll(() => fleetPage.searchParams().get("q")).toBe("off");
    await expect(fleetPage.rows()).toHaveCount(1);
    await page.reload();
    await expect(fleetPage.search).toHaveValue("off");
    await expect(fleetPage.filter("Cluster")).toHaveValue("orders");
    expect(await fleetPage.instanceNames()).toEqual(["db-off"]);

    await fleetPage.reset.click();
    await expect(fleetPage.rows()).toHaveCount(3);
    await expect.poll(() => page.url()).not.toContain("?");

    await fleetPage.filter("Flavor").selectOption("mysql");
    await expect(fleetPage.rows()).toHaveCount(0);
    await expect(page.getByText("No instance matches these filters.")).toBeVisible();
    await page.getByRole("button", { name: "Clear filters" }).click();
    await expect(fleetPage.rows()).toHaveCount(3);
  });

  test("a filter by flavor, verdict or gate keeps exactly the matching rows", async ({ fleetPage }) => {
    await fleetPage.goto();
    const all = await fleetPage.rows().allInnerTexts();
    expect(all.length).toBeGreaterThan(0);
    // Badge texts, case-sensitive: "Write-bound" is not a substring of "Likely write-bound".
    const filters: [FilterName, string, string][] = [
      ["Flavor", "mariadb", "MariaDB"],
      ["Verdict", "write-bound", "Write-bound"],
      ["Verdict", "likely", "Likely write-bound"],
      ["Verdict", "not-write-bound", "Not write-bound"],
      ["Safety gate", "verified", "Verified"],
      ["Safety gate", "unverified", "Unverified"],
      ["Safety gate", "unsafe", "Unsafe"],
    ];
    let exercised = 0;
    for (const [label, value, badge] of filters) {
      const expected = all.filter((t) => t.includes(badge)).length;
      if (expected === 0) continue;
      exercised++;
      const param = label === "Safety gate" ? "gate" : label.toLowerCase();
      await fleetPage.goto(`${param}=${value}`);
      await expect(fleetPage.filter(label)).toHaveValue(value);
      await expect(fleetPage.rows(), `${param}=${value}`).toHaveCount(expected);
      for (const row of await fleetPage.rows().all()) await expect(row).toContainText(badge);
    }
    // The fleet has MariaDB servers, a verdict and a gate for each: at least three filters ran.
    expect(exercised).toBeGreaterThanOrEqual(3);
  });

  test("fits a 1,280 px laptop screen without sideways scrolling, and a wide screen", async ({
    fleetPage,
    page,
  }) => {
    for (const width of [1280, 2560]) {
      await page.setViewportSize({ width, height: 800 });
      await fleetPage.goto();
      const overflow = await page
        .getByTestId("fleet-table")
        .evaluate((el) => el.scrollWidth - el.clientWidth);
      expect(overflow, `sideways overflow at ${width} px`).toBeLessThanOrEqual(0);
      expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(width);
    }
  });

  test("is labelled with where the numbers come from", async ({ fleetPage, page, target }) => {
    await fleetPage.goto();
    const meta = page.getByTestId("fleet-meta");
    if (target === "recorded") {
      await expect(page.getByText(/^Recorded data/)).toBeVisible();
      await expect(meta).toContainText("recorded data");
    } else {
      await expect(page.getByText(/^Live ·/)).toBeVisible();
      await expect(meta).not.toContainText("recorded data");
    }
  });
});
