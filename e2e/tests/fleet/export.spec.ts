import { expect, test } from "../../fixtures/test.js";

/** CSV downloads of the fleet (its filters, sort and range) and of the recommendations (their filters). */
test.describe("CSV export", () => {
  test("the fleet page's Download CSV carries its filters and sort, and the file has those rows", async ({
    fleetPage,
    page,
    request,
  }) => {
    await fleetPage.goto("cluster=orders&sort=instance&dir=desc");
    const link = page.getByRole("link", { name: "Download CSV" });
    await expect(link).toHaveAttribute("href", "/api/v1/fleet.csv?cluster=orders&sort=instance&dir=desc");
    await link.focus();
    const [download] = await Promise.all([page.waitForEvent("download"), page.keyboard.press("Enter")]);
    expect(download.suggestedFilename()).toMatch(/^untorn-fleet-.+\.csv$/);
    const r = await request.get("/api/v1/fleet.csv?cluster=orders&sort=instance&dir=desc");
    expect(r.status()).toBe(200);
    expect(r.headers()["content-type"]).toBe("text/csv; charset=utf-8");
    expect(r.headers()["content-disposition"]).toMatch(/^attachment; filename="untorn-fleet-.+\.csv"$/);
    const lines = (await r.text()).trimEnd().split("\r\n");
    expect(lines[0]?.startsWith("rank,instance,cluster,role,")).toBe(true);
    expect(lines.slice(1).map((l) => l.split(",")[1])).toEqual(["db-on", "db-off"]);
    // The link follows the controls at once.
    await fleetPage.filter("Cluster").selectOption("");
    await expect(link).toHaveAttribute("href", "/api/v1/fleet.csv?sort=instance&dir=desc");
  });

  test("the recommendations' CSV: one line per finding, filtered like the page", async ({
    page,
    request,
  }) => {
    await page.goto("/recommendations?severity=critical");
    const link = page.getByTestId("recommendations-csv");
    await expect(link).toHaveAttribute("href", "/api/v1/recommendations.csv?severity=critical");
    const r = await request.get("/api/v1/recommendations.csv?severity=critical");
    expect(r.status()).toBe(200);
    expect(r.headers()["content-type"]).toBe("text/csv; charset=utf-8");
    const lines = (await r.text()).trimEnd().split("\r\n");
    expect(lines[0]).toBe(
      "rule,rule_title,instance,cluster,severity,waits_for_gate,actionable,confidence,throughput_gain_low,throughput_gain_high,write_bytes_per_txn_cut_low,write_bytes_per_txn_cut_high",
    );
    expect(lines.length).toBeGreaterThan(1);
    for (const l of lines.slice(1)) expect(l.split(",")[4]).toBe("critical");
    const all = (await (await request.get("/api/v1/recommendations.csv")).text()).trimEnd().split("\r\n");
    expect(all.length).toBeGreaterThan(lines.length);
  });

  test("a bad parameter is a 400 naming it, and no credential is a 401", async ({ request, baseURL }) => {
    const bad = await request.get("/api/v1/fleet.csv?range=forever");
    expect(bad.status()).toBe(400);
    expect((await bad.json()).issues[0].param).toBe("range");
    expect((await request.get("/api/v1/recommendations.csv?severity=fatal")).status()).toBe(400);
    // Without the fixtures' session or token (fetch from the test process).
    expect((await fetch(`${baseURL}/api/v1/fleet.csv`)).status).toBe(401);
    expect((await fetch(`${baseURL}/api/v1/recommendations.csv`)).status).toBe(401);
  });
});
