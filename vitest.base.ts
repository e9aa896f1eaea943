import { defineConfig } from "vitest/config";

/** Shared Vitest settings: resolve workspace packages to their TypeScript sources. */
export const base = defineConfig({
  resolve: { conditions: ["@untorn/source", "node", "default"] },
  ssr: { resolve: { conditions: ["@untorn/source", "node", "default"] } },
  test: {
    include: ["src/**/*.test.ts", "test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
  },
});
