import { defineConfig } from "vitest/config";
import { base } from "../../vitest.base.ts";

// Vitest also hands resolve.conditions to the worker as `node --conditions`, where the base's
// "import" applies to require() too: pg's require("pg-pool") then loads pg-pool's ESM build and
// crashes ("Class extends value [object Module]"). Node and Vite add import/require themselves.
const conditions = ["@untorn/source", "node", "default"];

export default defineConfig({
  ...base,
  resolve: { ...base.resolve, conditions },
  ssr: { ...base.ssr, resolve: { ...base.ssr?.resolve, conditions } },
  // PostgreSQL and the PGlite template are for the live layer (the fast layer's tests open no store).
  test: {
    ...base.test,
    globalSetup: process.env.UNTORN_TEST_LAYER === "unit" ? [] : ["./src/testing/global-setup.ts"],
  },
});
