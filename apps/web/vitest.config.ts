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
    test: { include: ["src/**/*.test.ts", "src/**/*.test.tsx"] },
  }),
);
