/**
 * Set up before every test file of the fast layer (UNTORN_TEST_LAYER=unit): a test there starts no
 * process, so each way of starting one throws, naming the rule. A test that needs mariadbd, Prometheus,
 * a server or Chromium belongs in a file named `*.live.test.ts` (docs/testing.md).
 */
import { appendFileSync } from "node:fs";
import { createRequire, syncBuiltinESMExports } from "node:module";
import { expect } from "vitest";

const childProcess = createRequire(import.meta.url)("node:child_process") as Record<string, unknown>;
for (const name of ["spawn", "spawnSync", "exec", "execSync", "execFile", "execFileSync", "fork"]) {
  childProcess[name] = () => {
    if (process.env.UNTORN_GUARD_LOG) {
      appendFileSync(process.env.UNTORN_GUARD_LOG, `${expect.getState().testPath}\n`);
    }
    throw new Error(
      `child_process.${name}() in the fast layer: a test that starts a process belongs in a file named *.live.test.ts (docs/testing.md)`,
    );
  };
}
syncBuiltinESMExports();
