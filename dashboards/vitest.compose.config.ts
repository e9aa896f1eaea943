import { defineConfig } from "vitest/config";
import { base } from "../vitest.base.ts";

/** `npm run test:compose`'s assertions against the running demo (scripts/compose-test.sh starts it). */
export default defineConfig({
  ...base,
  test: { ...base.test, include: ["test/compose/**/*.e2e.ts"], testTimeout: 240_000, hookTimeout: 60_000 },
});
