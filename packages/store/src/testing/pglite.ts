/** Temporary PGlite data directories for tests, copied from one store the global setup migrated. */
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { inject } from "vitest";

export interface TempDir {
  path: string;
  remove(): void;
}

export function tempDir(prefix = "untorn-store-"): TempDir {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), prefix));
  return { path: dir, remove: () => fs.rmSync(dir, { recursive: true, force: true }) };
}

/**
 * A ready, migrated store directory (a copy of the template): skips PGlite's initdb, which costs
 * seconds of CPU per directory. Outside this package's test run (no template provided) an empty
 * directory, which opening the store initialises and migrates.
 */
export function migratedDataDir(): TempDir {
  const tmp = tempDir();
  const dir = path.join(tmp.path, "data");
  const template = inject("pgliteTemplate") as string | undefined;
  if (template) fs.cpSync(template, dir, { recursive: true });
  return { path: dir, remove: tmp.remove };
}

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}
