// Builds dist/main.js: the exporter and everything it imports (the workspace packages from their
// TypeScript sources through the @untorn/source condition, and the npm dependencies) in one ES module.
// No other package needs building first, so `npm run build -w untorn-exporter` works on a fresh clone,
// and one file loads faster and holds less memory than a tree of modules (BENCHMARKS.md).
// Types are checked by `npm run typecheck` (tsc), not here.
import { rmSync } from "node:fs";
import { build } from "esbuild";

rmSync(new URL("./dist", import.meta.url), { recursive: true, force: true });
await build({
  entryPoints: [new URL("./src/main.ts", import.meta.url).pathname],
  outfile: new URL("./dist/main.js", import.meta.url).pathname,
  bundle: true,
  platform: "node",
  target: "node20",
  format: "esm",
  conditions: ["@untorn/source"],
  // mysql2 and its dependencies are CommonJS and call require(): give the ES module one.
  banner: {
    js: "import { createRequire as __untornRequire } from 'node:module'; const require = __untornRequire(import.meta.url);",
  },
  legalComments: "none",
  logLevel: "warning",
});
