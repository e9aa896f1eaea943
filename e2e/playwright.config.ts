import { defineConfig } from "@playwright/test";
import type { TargetOptions } from "./fixtures/test.js";

/** Debian's Chromium: `playwright install` is never run (no browser downloads). */
const CHROMIUM = process.env.UNTORN_CHROMIUM ?? "/usr/bin/chromium";

export default defineConfig<TargetOptions>({
  testDir: "tests",
  globalSetup: "./setup/global-setup.ts",
  timeout: 60_000,
  expect: { timeout: 10_000 },
  workers: 2,
  fullyParallel: true,
  forbidOnly: true,
  reporter: [["list"]],
  outputDir: "test-results",
  use: {
    browserName: "chromium",
    headless: true,
    viewport: { width: 1440, height: 900 },
    launchOptions: {
      executablePath: CHROMIUM,
      args: [
        "--no-sandbox",
        "--disable-gpu",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--no-first-run",
      ],
    },
    trace: "retain-on-failure",
    screenshot: "only-on-failure",
  },
  projects: [
    // The console over the recording of the throwaway fleet (recorded-data mode).
    {
      name: "recorded",
      use: { target: "recorded" },
      testIgnore: [
        "status/**",
        "demo/**",
        "auth-modes/**",
        "hardening/**",
        "compose/**",
        "rollouts/whole-job.spec.ts",
      ],
    },
    // The same specs against the live fleet through its Prometheus.
    { name: "live", use: { target: "live" }, testMatch: ["fleet/**", "instance/**", "api/**"] },
    // Prometheus down, failing after a good read, and no data at all: each spec picks its server.
    { name: "status", testMatch: ["status/**"] },
    // What `npm start` serves on its embedded defaults: the committed lab recording.
    // tests/rollouts/whole-job.spec.ts starts a console of its own on the same embedded defaults.
    { name: "demo", use: { target: "demo" }, testMatch: ["demo/**", "rollouts/whole-job.spec.ts"] },
    // tests/auth-modes/** and tests/hardening/** run from playwright.auth-modes.config.ts (their own
    // consoles, no fleet stack); tests/compose/** from playwright.compose.config.ts, against the live
    // docker-compose demo (`npm run test:compose`).
  ],
});
