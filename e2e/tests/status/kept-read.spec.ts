/**
 * The kept fleet read across a restart of the production server (server.mjs): a console is started,
 * reads the fleet and keeps the read in its data directory, is stopped, and started again over the same
 * data directory. Each spec starts its own consoles.
 */
import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { expect, type Page, test } from "@playwright/test";
import { ADMIN_PASSWORD, ADMIN_USER, signIn, VIEWER_TOKEN } from "../../fixtures/auth.js";
import { FleetPage } from "../../fixtures/pages/fleet-page.js";
import { WINDOW } from "../../setup/live-stack.js";
import { startToggleProxy } from "../../setup/toggle-proxy.js";
import { startWebServer } from "../../setup/web-server.js";

interface FleetBody {
  status: {
    state: string;
    error: string | null;
    kept?: { readAt: string; origin: "replay" | "live"; refreshing: boolean };
  };
  at: string;
  total: number;
  instances: { instance: string; stale: boolean }[];
  timing: { fetchedAt: string };
}

async function fleet(url: string): Promise<FleetBody> {
  const r = await fetch(`${url}/api/v1/fleet`, { headers: { authorization: `Bearer ${VIEWER_TOKEN}` } });
  expect(r.status).toBe(200);
  return (await r.json()) as FleetBody;
}

const workDir = () => {
  const d = process.env.UNTORN_E2E_WORKDIR;
  if (!d) throw new Error("no UNTORN_E2E_WORKDIR: did global setup run?");
  return d;
};
const logOf = (name: string) => join(workDir(), `web-${name}.log`);

/** Waits until the console's log (both starts append to it) has `count` lines containing `text`. */
async function logged(name: string, text: string, count = 1): Promise<void> {
  await expect
    .poll(() => readFileSync(logOf(name), "utf8").split(text).length - 1, { timeout: 120_000 })
    .toBeGreaterThanOrEqual(count);
}

async function openFleet(page: Page, url: string): Promise<FleetPage> {
  const value = await signIn(url, ADMIN_USER, ADMIN_PASSWORD);
  await page.context().addCookies([{ name: "untorn_session", value, url }]);
  await page.goto(`${url}/`);
  const fleetPage = new FleetPage(page);
  await expect(fleetPage.heading).toBeVisible();
  return fleetPage;
}

test("a replay file: the second start serves the fleet from the read the first one kept", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const replay = process.env.UNTORN_E2E_REPLAY_FILE;
  if (!replay) throw new Error("no UNTORN_E2E_REPLAY_FILE: did global setup run?");
  const name = `kept-replay-${randomBytes(3).toString("hex")}`;
  const env = { UNTORN_REPLAY: replay };

  const first = await startWebServer(name, env, workDir());
  let before: FleetBody;
  try {
    before = await fleet(first.url);
    expect(before.status.state).toBe("ok");
    expect(before.status.kept).toBeUndefined();
    await logged(name, "untorn: kept the fleet read");
  } finally {
    await first.stop();
  }

  const second = await startWebServer(name, env, workDir());
  try {
    const after = await fleet(second.url);
    expect(after.status).toMatchObject({
      state: "ok",
      error: null,
      kept: { origin: "replay", refreshing: false, readAt: before.timing.fetchedAt },
    });
    expect(after.at).toBe(before.at);
    expect(after.instances).toEqual(before.instances);
    await logged(name, "untorn: the fleet comes from the kept read of");
    // Nothing's metadata changed between the starts: every instance's kept advice is taken as it is.
    await logged(name, "kept advice reused, 0 advised again");

    const fleetPage = await openFleet(page, second.url);
    await expect(page.getByTestId("kept-read")).toContainText("Read from the kept read of");
    await expect(page.getByTestId("kept-read")).toContainText("it is not read again");
    await expect(page.getByRole("main").getByRole("alert")).toHaveCount(0);
    await expect(fleetPage.rows().first()).toBeVisible();
    await expect(fleetPage.table.locator("tr.stale")).toHaveCount(0);
  } finally {
    await second.stop();
  }
});

test("a live source: the second start shows the last read while a fresh read runs, then the fresh one", async ({
  page,
}) => {
  test.setTimeout(300_000);
  const prometheus = process.env.UNTORN_E2E_PROMETHEUS;
  if (!prometheus) throw new Error("no UNTORN_E2E_PROMETHEUS: did global setup run?");
  // A proxy of this spec's own: holding its requests keeps the second start's fresh read running.
  const proxy = await startToggleProxy(prometheus);
  const name = `kept-live-${randomBytes(3).toString("hex")}`;
  const env = {
    PROMETHEUS_URL: proxy.url,
    UNTORN_WINDOW: WINDOW,
    UNTORN_CACHE_SECONDS: "900",
    // Held requests must not time out while the spec looks at the page.
    UNTORN_PROM_TIMEOUT_MS: "240000",
  };
  try {
    const first = await startWebServer(name, env, workDir());
    let before: FleetBody;
    try {
      before = await fleet(first.url);
      expect(before.status.state).toBe("ok");
      expect(before.total).toBeGreaterThan(0);
      await logged(name, "untorn: kept the fleet read");
    } finally {
      await first.stop();
    }

    await fetch(`${proxy.url}/__untorn/hold`, { method: "POST" });
    const second = await startWebServer(name, env, workDir());
    try {
      const kept = await fleet(second.url);
      expect(kept.status).toMatchObject({
        state: "stale",
        error: null,
        kept: { origin: "live", refreshing: true, readAt: before.timing.fetchedAt },
      });
      expect(kept.instances.map((r) => r.instance)).toEqual(before.instances.map((r) => r.instance));
      expect(kept.instances.every((r) => r.stale)).toBe(true);
      await logged(name, "from the kept read");

      const fleetPage = await openFleet(page, second.url);
      const banner = page.getByTestId("kept-read");
      await expect(banner).toContainText(/Last read, as of \d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC \(.+ ago\)/);
      await expect(banner).toContainText(`A fresh read of Prometheus at ${proxy.url} is running`);
      await expect(page.getByRole("main").getByRole("alert")).toHaveCount(0);
      await expect(fleetPage.rows().first()).toContainText("stale");

      await fetch(`${proxy.url}/__untorn/up`, { method: "POST" });
      await expect
        .poll(
          async () => {
            const { state, error, kept } = (await fleet(second.url)).status;
            return { state, error, kept: kept ?? null };
          },
          { timeout: 120_000 },
        )
        .toEqual({ state: "ok", error: null, kept: null });
      const fresh = await fleet(second.url);
      expect(Date.parse(fresh.timing.fetchedAt)).toBeGreaterThan(Date.parse(before.timing.fetchedAt));
      expect(fresh.instances.some((r) => r.stale)).toBe(false);
      await page.reload();
      await expect(fleetPage.heading).toBeVisible();
      await expect(page.getByTestId("kept-read")).toHaveCount(0);
      await expect(fleetPage.table.locator("tr.stale")).toHaveCount(0);
    } finally {
      await second.stop();
    }
  } finally {
    await fetch(`${proxy.url}/__untorn/up`, { method: "POST" }).catch(() => undefined);
    await proxy.stop();
  }
});
