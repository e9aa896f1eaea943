import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

/** An `untorn` process started from source (tsx), its output collected as it comes. */
export interface CliProcess {
  readonly proc: ChildProcess;
  /** Everything written to stdout so far. */
  out(): string;
  /** Everything written to stderr so far. */
  err(): string;
  /** The exit code once the process has closed its streams (null when killed by a signal). */
  readonly closed: Promise<number | null>;
}

/**
 * Starts the CLI from its TypeScript source as a real child process: for tests of what only a process
 * has (stdin pipes, signals, a watch loop). Everything else calls `run(argv, io)` in-process.
 */
export function spawnCli(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): CliProcess {
  const proc = spawn(
    process.execPath,
    [
      "--conditions=@untorn/source",
      "--import",
      "tsx",
      fileURLToPath(new URL("../main.ts", import.meta.url)),
      ...argv,
    ],
    { stdio: ["pipe", "pipe", "pipe"], env },
  );
  let out = "";
  let err = "";
  proc.stdout?.on("data", (d: Buffer) => {
    out += d.toString();
  });
  proc.stderr?.on("data", (d: Buffer) => {
    err += d.toString();
  });
  const closed = new Promise<number | null>((resolve) => proc.on("close", (code) => resolve(code)));
  return { proc, out: () => out, err: () => err, closed };
}
