import { spawn, spawnSync } from "node:child_process";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { StoreLockedError } from "./errors.js";
import { acquireDirLock, LOCK_FILE, type LockHolder, processStartTime, processState } from "./lock.js";
import { type TempDir, tempDir } from "./testing/pglite.js";

const dirs: TempDir[] = [];
const children: ReturnType<typeof spawn>[] = [];
afterEach(() => {
  for (const c of children.splice(0)) c.kill("SIGKILL");
  for (const d of dirs.splice(0)) d.remove();
});

function dir(): string {
  const d = tempDir("untorn-lock-");
  dirs.push(d);
  return d.path;
}

function writeHolder(d: string, h: Partial<LockHolder>): void {
  const holder: LockHolder = {
    pid: 1,
    hostname: os.hostname(),
    startTime: null,
    createdAt: "2026-01-01T00:00:00.000Z",
    ...h,
  };
  fs.writeFileSync(path.join(d, LOCK_FILE), JSON.stringify(holder));
}

function readHolder(d: string): LockHolder {
  return JSON.parse(fs.readFileSync(path.join(d, LOCK_FILE), "utf8")) as LockHolder;
}

/** PID of a process that has exited (and, on an idle machine, not been reused yet). */
function deadPid(): number {
  const r = spawnSync(process.execPath, ["-e", "process.stdout.write(String(process.pid))"], {
    encoding: "utf8",
  });
  return Number(r.stdout);
}

function sleeper(): number {
  const c = spawn("sleep", ["30"], { stdio: "ignore" });
  children.push(c);
  return c.pid!;
}

describe("data directory lock", () => {
  it("records this process and refuses a second holder in the same process until released", () => {
    const d = dir();
    const lock = acquireDirLock(d);
    expect(readHolder(d)).toMatchObject({
      pid: process.pid,
      hostname: os.hostname(),
      startTime: processStartTime(process.pid),
    });
    expect(() => acquireDirLock(d)).toThrow(/locked by this process/);
    lock.release();
    expect(fs.existsSync(path.join(d, LOCK_FILE))).toBe(false);
    acquireDirLock(d).release();
    expect(fs.readdirSync(d)).toEqual([]);
  });

  it("refuses a live holder, naming its PID", () => {
    const d = dir();
    const pid = sleeper();
    writeHolder(d, { pid, startTime: processStartTime(pid) });
    let error: unknown;
    try {
      acquireDirLock(d);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(StoreLockedError);
    expect(error).toMatchObject({ pid, lockPath: path.join(d, LOCK_FILE) });
    expect((error as Error).message).toContain(`locked by process ${pid} (since 2026-01-01T00:00:00.000Z)`);
    expect(readHolder(d).pid).toBe(pid);
  });

  it("takes over the lock of a dead process", () => {
    const d = dir();
    writeHolder(d, { pid: deadPid() });
    const lock = acquireDirLock(d);
    expect(readHolder(d).pid).toBe(process.pid);
    lock.release();
  });

  it("takes over the lock of a killed process its parent has not reaped (a zombie)", async () => {
    const d = dir();
    // The shell starts a short child, then becomes `sleep 30`, which never waits for it.
    const parent = spawn("sh", ["-c", "sleep 0.1 & echo $!; exec sleep 30"], {
      stdio: ["ignore", "pipe", "ignore"],
    });
    children.push(parent);
    const pid = Number(
      await new Promise<string>((resolve) => parent.stdout!.once("data", (b) => resolve(String(b)))),
    );
    for (let i = 0; i < 100 && processState(pid) !== "Z"; i++) await new Promise((r) => setTimeout(r, 50));
    expect(processState(pid)).toBe("Z");
    writeHolder(d, { pid, startTime: processStartTime(pid) });
    const lock = acquireDirLock(d);
    expect(readHolder(d).pid).toBe(process.pid);
    lock.release();
  });

  it("takes over when the PID now belongs to another process (start time differs)", () => {
    const d = dir();
    const pid = sleeper();
    expect(processStartTime(pid)).toMatch(/^\d+$/);
    writeHolder(d, { pid, startTime: "1" });
    const lock = acquireDirLock(d);
    expect(readHolder(d).pid).toBe(process.pid);
    lock.release();
  });

  it("refuses a lock taken on another host, since its process can't be checked", () => {
    const d = dir();
    writeHolder(d, { pid: 4242, hostname: "db-tools-7" });
    expect(() => acquireDirLock(d)).toThrow(/locked by process 4242 on host db-tools-7/);
  });

  it("takes over an unreadable lock file", () => {
    const d = dir();
    fs.writeFileSync(path.join(d, LOCK_FILE), "\u0000\u0000garbage");
    const lock = acquireDirLock(d);
    expect(readHolder(d).pid).toBe(process.pid);
    lock.release();
  });

  it("release never deletes a lock that another process holds now", () => {
    const d = dir();
    const lock = acquireDirLock(d);
    writeHolder(d, { pid: 777 });
    lock.release();
    expect(readHolder(d).pid).toBe(777);
  });

  it("reads kernel start times, null for a missing process", () => {
    expect(processStartTime(process.pid)).toMatch(/^\d+$/);
    expect(processStartTime(deadPid())).toBeNull();
  });
});
