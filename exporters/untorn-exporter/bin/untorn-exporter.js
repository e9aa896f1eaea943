#!/usr/bin/env -S node --max-semi-space-size=1
// Installed as the `untorn-exporter` command (npm links it at install time, before dist/ exists).
import { existsSync } from "node:fs";
import { fileURLToPath } from "node:url";

const main = fileURLToPath(new URL("../dist/main.js", import.meta.url));
if (!existsSync(main)) {
  process.stderr.write(
    `untorn-exporter: ${main} is missing: build it first (npm run build -w untorn-exporter)\n`,
  );
  process.exit(1);
}
await import(main);
