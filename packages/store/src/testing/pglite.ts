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
 * seconds of CPU per directory.
 */
export function migratedDataDir(): TempDir {
  const tmp = tempDir();
  const dir = path.join(tmp.path, "data");
  fs.cpSync(inject("pgliteTemplate"), dir, { recursive: true });
  return { path: dir, remove: tmp.remove };
}

declare module "vitest" {
  export interface ProvidedContext {
    pgliteTemplate: string;
  }
}
