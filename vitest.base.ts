import { fileURLToPath } from "node:url";
import { defineConfig } from "vitest/config";

/**
 * The suite's layers (docs/testing.md): UNTORN_TEST_LAYER=unit runs every test file but `*.live.test.ts`
 * and refuses to start a process; =live runs the `*.live.test.ts` files only (`vitest run .live.test.`
 * in each package's `test:live`); unset, `vitest run` runs both.
 */
const layer = process.env.UNTORN_TEST_LAYER;
const LIVE = "**/*.live.test.{ts,tsx}";

/** Shared Vitest settings: resolve workspace packages to their TypeScript sources. */
export const base = defineConfig({
  resolve: { conditions: ["@untorn/source", "node", "default"] },
  ssr: { resolve: { conditions: ["@untorn/source", "node", "default"] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    exclude: ["**/node_modules/**", "**/dist/**", ...(layer === "unit" ? [LIVE] : [])],
    setupFiles:
      layer === "unit" ? [fileURLToPath(new URL("./scripts/test/fast-layer-guard.ts", import.meta.url))] : [],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
