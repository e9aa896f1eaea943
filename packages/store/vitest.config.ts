import { defineConfig } from "vitest/config";
import { base } from "../../vitest.base.ts";

// The base resolves to the sources without the "import" condition on purpose: Vitest hands the conditions
// to the worker as `node --conditions`, where "import" would apply to require() too and pg's
// require("pg-pool") would load pg-pool's ESM build and crash ("Class extends value [object Module]").
export default defineConfig({
  ...base,
  // PostgreSQL and the PGlite template are for the live layer (the fast layer's tests open no store).
  test: {
    ...base.test,
    globalSetup: process.env.UNTORN_TEST_LAYER === "unit" ? [] : ["./src/testing/global-setup.ts"],
  },
});
