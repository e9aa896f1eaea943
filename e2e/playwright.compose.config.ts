import { defineConfig } from "@playwright/test";
import base from "./playwright.config.js";

/**
 * The live docker-compose demo (`npm run test:compose`: scripts/compose-test.sh builds and starts the
 * stack, then runs this config against its published console). No global setup: the stack is the
 * fixture. One worker: the spec changes a server of the stack and waits for the console's reconciler.
 */
export default defineConfig({
  ...base,
  globalSetup: undefined,
  testDir: "tests",
  testMatch: ["compose/**"],
  workers: 1,
  fullyParallel: false,
  // Up to 35 minutes of waiting for history, then the step, the read-back and a bake of at most 15.
  timeout: 75 * 60_000,
  projects: [{ name: "compose" }],
});
