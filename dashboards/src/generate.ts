/** Writes every generated file (dashboards JSON, rule files, provisioning, docs/metrics.md). */

import { mkdir, writeFile } from "node:fs/promises";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { renderAll } from "./render.js";

export const PACKAGE_DIR = join(dirname(fileURLToPath(import.meta.url)), "..");

export async function generate(root = PACKAGE_DIR): Promise<string[]> {
  const written: string[] = [];
  for (const [path, content] of renderAll()) {
    const file = join(root, path);
    await mkdir(dirname(file), { recursive: true });
    await writeFile(file, content);
    written.push(path);
  }
  return written;
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  for (const path of await generate()) console.log(`wrote ${path}`);
}
