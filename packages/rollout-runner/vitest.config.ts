import { defineConfig } from "vitest/config";
import { base } from "../../vitest.base.ts";

// As in packages/store: pg's require("pg-pool") must not get the "import" condition.
const conditions = ["@untorn/source", "node", "default"];

export default defineConfig({
  ...base,
  resolve: { ...base.resolve, conditions },
  ssr: { ...base.ssr, resolve: { ...base.ssr?.resolve, conditions } },
});
