import { defineConfig } from "@playwright/test";
import base from "./playwright.config.js";

/**
 * The auth-proxy and OIDC sign-in modes, and the bad-input probes (tests/hardening): each spec starts its own console with what it signs in through
 * (a real OIDC provider process, a real reverse proxy), so no fleet stack is needed and there is no
 * global setup. One worker per file: a file's tests share its console.
 */
export default defineConfig({
  ...base,
  globalSetup: undefined,
  testDir: "tests",
  testMatch: ["auth-modes/**", "hardening/**"],
  fullyParallel: false,
  projects: [{ name: "auth-modes" }],
});
