import { readdirSync } from "node:fs";
import { join } from "node:path";
import type { Page } from "@playwright/test";
import { repoRoot } from "@untorn/testkit/process";
import { layoutProblems } from "../../fixtures/layout.js";
import { expect, test } from "../../fixtures/test.js";

/**
 * Every page of the console on its embedded defaults (the committed lab recording) and every rendered
 * doc, at a phone's and a desktop's width (the sign-in page: tests/auth/sign-in.spec.ts): no page is wider
 * than the viewport, no header or cell is cut, no id repeats, no form control lacks a label. Then every link and
 * image on every page and every rendered doc answers 200 (or leaves the console on purpose).
 */
const WIDTHS = [390, 1440] as const;

const docPages = (): string[] => {
  const docs = join(repoRoot(), "docs");
  return readdirSync(docs, { recursive: true, encoding: "utf8" })
    .filter((f) => f.endsWith(".md"))
    .map((f) => `/docs/${f.replace(/\.md$/, "").replace(/\/README$/, "")}`);
};

async function pages(page: Page): Promise<string[]> {
  await page.goto("/");
  const instance = await page.locator("a[data-instance-link]").first().getAttribute("href");
  await page.goto("/rollouts");
  const rollout = await page
    .locator('a[href^="/rollouts/"]:not([href="/rollouts/new"])')
    .first()
    .getAttribute("href");
  return [
    "/",
    "/?only=waiting-for-gate",
    instance!,
    "/recommendations",
    "/rollouts",
    "/rollouts/new",
    ...(rollout ? [rollout, `${rollout}/report`] : []),
    "/docs",
    "/docs/web",
    "/account",
    "/admin/users",
    "/admin/audit",
  ];
}

test.describe("layout and links on every page", () => {
  test.use({ target: "demo" });
  test.setTimeout(600_000);

  for (const width of WIDTHS)
    test(`no horizontal overflow, cut cell, repeated id or unlabelled control at ${width} px`, async ({
      page,
    }) => {
      await page.setViewportSize({ width, height: 900 });
      const problems: string[] = [];
      for (const url of await pages(page)) {
        await page.goto(url);
        await page.waitForLoadState("networkidle");
        for (const p of await layoutProblems(page)) problems.push(`${url}: ${p}`);
      }
      for (const url of docPages()) {
        await page.goto(url);
        for (const p of await layoutProblems(page)) problems.push(`${url}: ${p}`);
      }
      await page.goto("/");
      await expect(page.getByRole("button", { name: /theme/i }).first()).toBeInViewport();
      await expect(page.getByRole("button", { name: /sign out/i })).toBeInViewport();
      expect(problems).toEqual([]);
    });

  test("every link and image on every page and rendered doc answers 200", async ({ page, baseURL }) => {
    const origin = new URL(baseURL!).origin;
    const seen = new Map<string, number>();
    const dead: string[] = [];
    for (const url of [...(await pages(page)), ...docPages()]) {
      const res = await page.goto(url);
      if (res?.status() !== 200) dead.push(`${url}: page answered ${res?.status()}`);
      const targets = await page.evaluate(() => [
        ...Array.from(document.querySelectorAll<HTMLAnchorElement>("a[href]")).map((a) => a.href),
        ...Array.from(document.querySelectorAll<HTMLImageElement>("img[src]")).map((i) => i.src),
      ]);
      for (const t of targets) {
        const u = new URL(t);
        // Leaving the console on purpose (upstream manuals, Grafana) is not checked here.
        if (u.origin !== origin || u.pathname === "/api/auth/logout") continue;
        const key = `${u.pathname}${u.search}`;
        if (!seen.has(key)) seen.set(key, (await page.request.get(key, { maxRedirects: 0 })).status());
        const status = seen.get(key)!;
        if (status !== 200) dead.push(`${url}: ${key} answered ${status}`);
      }
    }
    expect(seen.size).toBeGreaterThan(50);
    expect(dead).toEqual([]);
  });
});
