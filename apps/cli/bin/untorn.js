#!/usr/bin/env node
// Installed as the `untorn` command: npm links it at install time (`npm ci` puts it in the root
// node_modules/.bin, so `npx untorn` works from the checkout), before dist/ exists. It runs the built
// CLI when there is one (`npm run build -w @untorn/cli`), else the TypeScript sources through tsx.
import { spawnSync } from "node:child_process";
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
if (existsSync(main)) {
  await import(main);
} else {
  const sources = fileURLToPath(new URL("../src/main.ts", import.meta.url));
  let tsx;
  try {
    tsx = import.meta.resolve("tsx");
  } catch {
    process.stderr.write(`untorn: ${main} is missing: build it first (npm run build -w @untorn/cli)\n`);
    process.exit(1);
  }
  const r = spawnSync(
    process.execPath,
    ["--conditions=@untorn/source", "--import", tsx, sources, ...process.argv.slice(2)],
    { stdio: "inherit" },
  );
  if (r.error) throw r.error;
  process.exitCode = r.status ?? 1;
}
