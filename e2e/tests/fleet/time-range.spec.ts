import { expect, test } from "../../fixtures/test.js";

/** The fleet and instance pages' time range (`?range=`): presets, custom, URL state, the recording's limits. */
test.describe("time range", () => {
  test("a preset from the keyboard: in the URL, marked current, and the figures over it or why not", async ({
    fleetPage,
    page,
    target,
  }) => {
    await fleetPage.goto("sort=instance");
    const picker = page.getByRole("navigation", { name: "Time range" });
    const sixHours = picker.getByRole("link", { name: "6 hours" });
    await sixHours.focus();
    await page.keyboard.press("Enter");
    await expect(page).toHaveURL(/[?&]range=6h/);
    expect(fleetPage.searchParams().get("sort")).toBe("instance");
    await expect(sixHours).toHaveAttribute("aria-current", "true");
    await expect(fleetPage.rows().first()).toBeVisible();
    if (target === "recorded") {
      // The throwaway recording covers minutes, over a 30 s window.
      await expect(page.getByTestId("range-note")).toContainText(
        "6h is longer than the recording, which covers",
      );
      await expect(page.getByTestId("range-note")).toContainText("its recorded window of 30s");
    } else {
      await expect(page.getByTestId("fleet-meta")).toContainText("Window 6h ending");
      await expect(page.getByTestId("range-note")).toHaveCount(0);
    }
    // Sorting keeps the range.
    await fleetPage.sortBy("Cluster");
    await expect(page).toHaveURL(/sort=cluster/);
    expect(fleetPage.searchParams().get("range")).toBe("6h");
  });

  test("a custom range keeps the other parameters", async ({ fleetPage, page, target }) => {
    await fleetPage.goto("gate=unverified");
    const custom = page.getByLabel("Custom range");
    await custom.fill("2m");
    await custom.press("Enter");
    await expect(page).toHaveURL(/[?&]range=2m/);
    expect(fleetPage.searchParams().get("gate")).toBe("unverified");
    await expect(page.getByLabel("Custom range")).toHaveValue("2m");
    if (target === "recorded")
      // The throwaway recording covers about a minute: 2m is either longer than it or another window.
      await expect(page.getByTestId("range-note")).toContainText(
        /2m is longer than the recording, which covers \d+ seconds|the figures are over 30s, not 2m/,
      );
    else await expect(page.getByTestId("fleet-meta")).toContainText("Window 2m ending");
  });

  test("a bad range is named, not an error page, and the rest still applies", async ({ fleetPage, page }) => {
    await fleetPage.goto("range=forever&sort=instance");
    await expect(fleetPage.paramProblems).toContainText("range=forever");
    await expect(fleetPage.paramProblems).toContainText(
      "must be one of 15m, 1h, 6h, 24h, 7d or a PromQL duration",
    );
    await expect(fleetPage.rows().first()).toBeVisible();
    await fleetPage.goto("range=90d");
    await expect(fleetPage.paramProblems).toContainText("must be from 30s to 30d");
    await page.goto("/instances/db-on?range=90d");
    await expect(page.getByTestId("param-problems")).toContainText("range=90d");
  });

  test("the instance page: charts and profile over the range, the recording's limit said plainly", async ({
    instancePage,
    page,
    target,
  }) => {
    await instancePage.goto("db-on", "range=7d");
    const picker = instancePage.charts.getByRole("navigation", { name: "Time range" });
    if (target === "recorded") {
      await expect(instancePage.charts.getByTestId("range-note")).toContainText(
        "7d is longer than the recording's chart series",
      );
      await expect(picker.getByRole("link", { name: "whole recording" })).toBeVisible();
    } else {
      await expect(picker.getByRole("link", { name: "7 days" })).toHaveAttribute("aria-current", "true");
      await expect(page.getByText(/· window 7d ending/)).toBeVisible();
    }
  });

  test("the read API takes the same ranges", async ({ request, target }) => {
    const bad = await request.get("/api/v1/fleet?range=forever");
    expect(bad.status()).toBe(400);
    expect((await bad.json()).issues.map((i: { param: string }) => i.param)).toEqual(["range"]);
    const r = await request.get("/api/v1/fleet?range=6h");
    expect(r.status()).toBe(200);
    const body = await r.json();
    expect(body.query.range).toBe("6h");
    if (target === "recorded") {
      expect(body.window).toBe("30s");
      expect(body.rangeNote).toMatch(/^6h is longer than the recording/);
    } else {
      expect(body.window).toBe("6h");
      expect(body.rangeNote).toBeNull();
    }
    expect((await request.get("/api/v1/instances/db-on?range=bogus")).status()).toBe(400);
    expect((await request.get("/api/v1/instances/db-on?range=15m")).status()).toBe(200);
  });
});
