/** Runs Debian's promtool (package `prometheus`) for the rule and config checks of the test suite. */

import { execFile } from "node:child_process";
import { accessSync, constants } from "node:fs";
import { delimiter, join } from "node:path";

export const PROMTOOL_MISSING =
  "promtool not found on PATH: install the Debian package `prometheus` (apt-get install prometheus, or scripts/install-system-deps.sh)";

export function findPromtool(): string | undefined {
  // biome-ignore lint/style/noProcessEnv: PATH lookup of a build tool, not a setting
  for (const dir of (process.env["PATH"] ?? "").split(delimiter)) {
    const candidate = join(dir, "promtool");
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {}
  }
  return undefined;
}

export function requirePromtool(): string {
  const bin = findPromtool();
  if (!bin) throw new Error(PROMTOOL_MISSING);
  return bin;
}

export interface PromtoolResult {
  readonly code: number;
  readonly output: string;
}

/** Runs promtool with the arguments; resolves with its exit code and combined output (never rejects on failure). */
export function promtool(args: readonly string[], cwd: string, timeoutMs = 120_000): Promise<PromtoolResult> {
  const bin = requirePromtool();
  return new Promise((resolve) => {
    execFile(
      bin,
      [...args],
      { cwd, timeout: timeoutMs, maxBuffer: 16 * 1024 * 1024 },
      (err, stdout, stderr) => {
        const code = err ? (typeof err.code === "number" ? err.code : 1) : 0;
        resolve({
          code,
          output: `${stdout}${stderr}${err && typeof err.code !== "number" ? `\n${err.message}` : ""}`,
        });
      },
    );
  });
}
