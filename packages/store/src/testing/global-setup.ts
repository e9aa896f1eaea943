import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import type { TestProject } from "vitest/node";
import { openStore } from "../store.js";
import { adminClient } from "./postgres.js";

/** Fails the run up front, with how to fix it, when PostgreSQL is down; builds the PGlite template. */
export default async function setup(project: TestProject): Promise<() => void> {
  const admin = await adminClient();
  await admin.end();
  const root = fs.mkdtempSync(path.join(os.tmpdir(), "untorn-store-template-"));
  const dir = path.join(root, "data");
  const store = await openStore({ dataDir: dir });
  await store.close();
  project.provide("pgliteTemplate", dir);
  return () => fs.rmSync(root, { recursive: true, force: true });
}
