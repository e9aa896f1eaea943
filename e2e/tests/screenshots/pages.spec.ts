import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { expect, test } from "../../fixtures/rollouts.js";

// The main pages over the recorded fleet, light and dark. Kept as test artifacts; with
// UNTORN_E2E_SCREENSHOTS=docs (npm run screenshots -w @untorn/e2e, over the newest lab recording) they
// also replace docs/screenshots/.
const DOCS = join(import.meta.dirname, "..", "..", "..", "docs", "screenshots");

for (const scheme of ["light", "dark"] as const) {
  test.describe(`${scheme} screenshots`, () => {
    test.use({ colorScheme: scheme, viewport: { width: 1440, height: 900 } });

    test(`fleet, instance and recommendations pages (${scheme})`, async ({
      fleetPage,
      instancePage,
      recommendationsPage,
      page,
    }, info) => {
      const save = async (name: string, fullPage: boolean) => {
        const file = `${name}${scheme === "dark" ? "-dark" : ""}.png`;
        const shot = await page.screenshot({ path: info.outputPath(file), fullPage, animations: "disabled" });
        if (process.env.UNTORN_E2E_SCREENSHOTS === "docs") {
          mkdirSync(DOCS, { recursive: true });
          await page.screenshot({ path: join(DOCS, file), fullPage, animations: "disabled" });
        }
        await info.attach(file, { body: shot, contentType: "image/png" });
      };
      await fleetPage.goto();
      await expect(fleetPage.rows().first()).toBeVisible();
      await save("fleet", false);
      // The top-ranked instance: the one with the most to gain.
      const top = (await fleetPage.instanceNames())[0]!;
      await instancePage.goto(top);
      await expect(instancePage.chart("write-path").locator("canvas")).toBeVisible();
      await save("instance", false);
      await instancePage.charts.scrollIntoViewIfNeeded();
      await page.evaluate(() => document.getElementById("findings-title")?.scrollIntoView());
      await save("instance-findings", false);
      await recommendationsPage.goto();
      await save("recommendations", false);
    });

    test(`rollout and change report pages (${scheme})`, async ({
      rolloutPage,
      reportPage,
      seeded,
      page,
    }, info) => {
      const save = async (name: string) => {
        const file = `${name}${scheme === "dark" ? "-dark" : ""}.png`;
        const shot = await page.screenshot({ path: info.outputPath(file), animations: "disabled" });
        if (process.env.UNTORN_E2E_SCREENSHOTS === "docs") {
          mkdirSync(DOCS, { recursive: true });
          await page.screenshot({ path: join(DOCS, file), animations: "disabled" });
        }
        await info.attach(file, { body: shot, contentType: "image/png" });
      };
      // The judged rollout: its canary wave's comparison against the control.
      await rolloutPage.goto(seeded.judged.id);
      await rolloutPage.wave(0).scrollIntoViewIfNeeded();
      await page.evaluate(() => document.getElementById("waves-title")?.scrollIntoView());
      await save("rollout");
      await reportPage.goto(seeded.judged.id);
      await save("rollout-report");
    });
  });
}
