import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { waitFor } from "./process.js";

const processModule = fileURLToPath(new URL("../dist/process.js", import.meta.url));

const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

describe("a test process that dies by a signal", () => {
  it.each(["SIGTERM", "SIGINT"] as const)(
    "takes the servers it started with it (%s)",
    async (signal) => {
      const dir = await mkdtemp(join(tmpdir(), "untorn-testkit-signal-"));
      try {
        // A stand-in for a vitest worker: starts a long-running "server" through spawnManaged, never
        // stops it, and waits to be killed.
        const script = `
          import { spawnManaged } from ${JSON.stringify(processModule)};
          import { writeFileSync } from "node:fs";
          const p = spawnManaged("sleep", ["300"], { logFile: ${JSON.stringify(join(dir, "sleep.log"))} });
          writeFileSync(${JSON.stringify(join(dir, "pid"))}, String(p.pid));
          setInterval(() => {}, 1000);
        `;
        const runner = spawn(process.execPath, ["--input-type=module", "-e", script], { stdio: "ignore" });
        const pid = Number(
          await waitFor(
            "the child's pid file",
            async () => (await readFile(join(dir, "pid"), "utf8")) || null,
            {
              timeoutMs: 10_000,
            },
          ),
        );
        expect(alive(pid)).toBe(true);
        const ended = new Promise<NodeJS.Signals | null>((r) => runner.once("exit", (_code, sig) => r(sig)));
        runner.kill(signal);
        // The runner still dies of the signal (re-raised after the cleanup)...
        expect(await ended).toBe(signal);
        // ...and its server is gone with it.
        await waitFor(`sleep ${pid} to be gone`, async () => !alive(pid), { timeoutMs: 5000 });
      } finally {
        await rm(dir, { recursive: true, force: true });
      }
    },
    20_000,
  );
});
