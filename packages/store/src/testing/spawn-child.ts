/** Runs src/testing/child.ts in a separate node process, for tests that need a second process or a kill -9. */
import { type ChildProcess, spawn } from "node:child_process";
import { fileURLToPath } from "node:url";

const CHILD = fileURLToPath(new URL("./child.ts", import.meta.url));

/** Children still running; killChildren() in afterEach / afterAll. */
const children = new Set<ChildProcess>();

export function killChildren(): void {
  for (const c of children) c.kill("SIGKILL");
  children.clear();
}

/** Starts src/testing/child.ts in its own node process; resolves lines as they arrive. */
export function child(args: string[], options: { uid?: number; gid?: number } = {}) {
  const proc = spawn(process.execPath, ["--import", "tsx", CHILD, ...args], {
    stdio: ["ignore", "pipe", "pipe"],
    cwd: fileURLToPath(new URL("../..", import.meta.url)),
    ...options,
  });
  children.add(proc);
  proc.on("exit", () => children.delete(proc));
  const lines: string[] = [];
  let stderr = "";
  let buf = "";
  proc.stdout!.on("data", (d: Buffer) => {
    buf += d.toString();
    const parts = buf.split("\n");
    buf = parts.pop()!;
    lines.push(...parts);
  });
  proc.stderr!.on("data", (d: Buffer) => {
    stderr += d.toString();
  });
  const exited = new Promise<number | null>((resolve) => proc.on("exit", (code) => resolve(code)));
  const waitFor = async (pred: (lines: string[]) => boolean, what: string) => {
    const deadline = Date.now() + 30_000;
    while (!pred(lines)) {
      if (proc.exitCode !== null || Date.now() > deadline) {
        throw new Error(`child never printed ${what}; stdout: ${lines.join("\n")}; stderr: ${stderr}`);
      }
      await new Promise((r) => setTimeout(r, 20));
    }
  };
  return { proc, lines, exited, waitFor };
}
