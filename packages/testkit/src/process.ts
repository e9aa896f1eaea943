import { type ChildProcess, spawn } from "node:child_process";
import { accessSync, constants, existsSync, openSync, readFileSync } from "node:fs";
import { mkdtemp, rm } from "node:fs/promises";
import { createServer } from "node:net";
import { tmpdir } from "node:os";
import { delimiter, dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

/** A binary the tests need is not installed: the message names the Debian package. */
export class MissingBinaryError extends Error {
  constructor(
    readonly binary: string,
    readonly debianPackage: string,
  ) {
    super(
      `${binary} not found on PATH or in /usr/sbin: install the Debian package '${debianPackage}' (apt-get install ${debianPackage}, or scripts/install-system-deps.sh)`,
    );
    this.name = "MissingBinaryError";
  }
}

/** Absolute path of `binary`, or a MissingBinaryError naming the Debian package that ships it. */
export function requireBinary(binary: string, debianPackage: string): string {
  const dirs = [...(process.env["PATH"] ?? "").split(delimiter), "/usr/sbin", "/sbin", "/usr/bin"];
  for (const dir of dirs) {
    if (!dir) continue;
    const candidate = join(dir, binary);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  throw new MissingBinaryError(binary, debianPackage);
}

/** A TCP port on 127.0.0.1 that was free a moment ago. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.unref();
    srv.on("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const addr = srv.address();
      srv.close(() => (typeof addr === "object" && addr ? resolve(addr.port) : reject(new Error("no port"))));
    });
  });
}

export function makeTempDir(prefix: string): Promise<string> {
  return mkdtemp(join(tmpdir(), `untorn-${prefix}-`));
}

export async function removeDir(dir: string): Promise<void> {
  await rm(dir, { recursive: true, force: true, maxRetries: 3 });
}

/** Polls `check` until it returns a truthy value or the time runs out. */
export async function waitFor<T>(
  what: string,
  check: () => Promise<T | undefined | false> | T | undefined | false,
  {
    timeoutMs = 15_000,
    intervalMs = 50,
    detail,
  }: { timeoutMs?: number; intervalMs?: number; detail?: () => string } = {},
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let lastError: unknown;
  for (;;) {
    try {
      const value = await check();
      if (value) return value;
    } catch (err) {
      lastError = err;
    }
    if (Date.now() > deadline) {
      const extra = detail ? `\n${detail()}` : "";
      const cause = lastError instanceof Error ? ` (last error: ${lastError.message})` : "";
      throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${cause}${extra}`);
    }
    await new Promise((r) => setTimeout(r, intervalMs));
  }
}

const live = new Set<ChildProcess>();
let exitHookInstalled = false;

function killAll(): void {
  for (const child of live) {
    if (child.pid && child.exitCode === null) {
      try {
        process.kill(child.pid, "SIGKILL");
      } catch {
        // already gone
      }
    }
  }
}

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when a test run dies without calling stop(): never leave servers behind. "exit" covers a
  // normal end and process.exit(); a signal ends the process without it, so those are caught too, and
  // re-raised once the children are gone unless someone else (a test runner) handles the signal.
  process.on("exit", killAll);
  for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) {
    process.once(signal, () => {
      killAll();
      if (process.listenerCount(signal) === 0) process.kill(process.pid, signal);
    });
  }
}

export interface ManagedProcess {
  readonly pid: number;
  readonly logFile: string;
  readonly child: ChildProcess;
  /** Resolves with the exit code (or signal) once the process has exited. */
  readonly exited: Promise<number | string>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the process is gone. */
  stop(graceMs?: number): Promise<void>;
  /** The last lines of the process's log, for error messages. */
  tail(lines?: number): string;
}

export interface SpawnOptions {
  logFile: string;
  cwd?: string;
  env?: NodeJS.ProcessEnv;
}

/** Starts a process with stdout and stderr appended to `logFile`, tracked for cleanup by PID. */
export function spawnManaged(command: string, args: readonly string[], opts: SpawnOptions): ManagedProcess {
  installExitHook();
  const fd = openSync(opts.logFile, "a");
  const child = spawn(command, args, {
    cwd: opts.cwd,
    env: opts.env ?? process.env,
    stdio: ["ignore", fd, fd],
    detached: false,
  });
  if (child.pid === undefined) throw new Error(`could not start ${command}`);
  live.add(child);
  const exited = new Promise<number | string>((resolve) => {
    child.once("exit", (code, signal) => {
      live.delete(child);
      resolve(code ?? signal ?? "unknown");
    });
    child.once("error", (err) => {
      live.delete(child);
      resolve(`error: ${err.message}`);
    });
  });
  const tail = (lines = 30): string => {
    try {
      return readFileSync(opts.logFile, "utf8").split("\n").slice(-lines).join("\n");
    } catch {
      return "";
    }
  };
  const pid = child.pid;
  return {
    pid,
    logFile: opts.logFile,
    child,
    exited,
    tail,
    async stop(graceMs = 10_000) {
      if (child.exitCode !== null || child.signalCode !== null) return;
      try {
        process.kill(pid, "SIGTERM");
      } catch {
        return;
      }
      const timer = setTimeout(() => {
        try {
          process.kill(pid, "SIGKILL");
        } catch {
          // gone
        }
      }, graceMs);
      await exited;
      clearTimeout(timer);
    },
  };
}

/** The monorepo root (the folder with turbo.json), found from this file's location. */
export function repoRoot(): string {
  let dir = dirname(fileURLToPath(import.meta.url));
  for (;;) {
    if (existsSync(join(dir, "turbo.json"))) return dir;
    const parent = dirname(dir);
    if (parent === dir) throw new Error("cannot find the Untorn repo root (turbo.json) above testkit");
    dir = parent;
  }
}
