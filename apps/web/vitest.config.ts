import { fileURLToPath } from "node:url";
import { defineConfig, mergeConfig } from "vitest/config";
import { base } from "../../vitest.base.ts";

export default mergeConfig(
  base,
  defineConfig({
    resolve: {
      alias: {
        // Next.js makes server-only throw in client bundles; under Vitest everything is server code.
        "server-only": fileURLToPath(new URL("./src/testing/empty.ts", import.meta.url)),
        "@/": fileURLToPath(new URL("./src/", import.meta.url)),
      },
    },
    // Many of these tests open an embedded PGlite store (a WebAssembly PostgreSQL) or decode the shipped
    // recording in-process: seconds each on a quiet machine, three times that on a shared one.
    test: { include: ["src/**/*.test.ts", "src/**/*.test.tsx"], testTimeout: 90_000, hookTimeout: 180_000 },
  }),
);
