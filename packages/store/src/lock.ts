/**
 * Lock file for a PGlite data directory. PGlite has no cross-process lock, and two processes
 * running PostgreSQL over the same files corrupt them, so a second opener must be refused.
 * The file holds the holder's PID, host and kernel start time; a holder that is gone (crash,
 * SIGKILL) or whose PID now belongs to another process is stale and the lock is taken over.
 */
import { randomBytes } from "node:crypto";
import fs from "node:fs";
import os from "node:os";
import path from "node:path";
import { StoreLockedError, StoreOpenError } from "./errors.js";

export const LOCK_FILE = "untorn.lock";

export interface LockHolder {
  pid: number;
  hostname: string;
  /** /proc/<pid>/stat starttime (clock ticks since boot); tells a reused PID from the holder. */
  startTime: string | null;
  createdAt: string;
}

export interface DirLock {
  readonly path: string;
  release(): void;
}

/** Kernel start time of a process, or null where /proc is unavailable. */
export function processStartTime(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    // Fields after the parenthesised command name (which may hold spaces); starttime is field 22.
    const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
    return fields[19] ?? null;
  } catch {
    return null;
  }
}

/** Process state letter from /proc/<pid>/stat (field 3: R, S, D, Z zombie, X dead), or null. */
export function processState(pid: number): string | null {
  try {
    const stat = fs.readFileSync(`/proc/${pid}/stat`, "utf8");
    return stat.slice(stat.lastIndexOf(")") + 2).split(" ")[0] ?? null;
  } catch {
    return null;
  }
}

export type HolderStatus = "alive" | "dead" | "other-host";

export function holderStatus(holder: LockHolder): HolderStatus {
  if (holder.hostname !== os.hostname()) return "other-host";
  try {
    process.kill(holder.pid, 0);
  } catch (e) {
    // EPERM: the process exists but belongs to another user.
    if ((e as NodeJS.ErrnoException).code === "EPERM") return "alive";
    return "dead";
  }
  // Killed but not yet reaped by its parent: signal 0 still succeeds on a zombie, yet it holds nothing.
  const state = processState(holder.pid);
  if (state === "Z" || state === "X") return "dead";
  if (holder.startTime !== null) {
    const now = processStartTime(holder.pid);
    if (now !== null && now !== holder.startTime) return "dead";
  }
  return "alive";
}

function parseHolder(text: string): LockHolder | null {
  try {
    const v = JSON.parse(text) as Partial<LockHolder>;
    if (typeof v.pid !== "number" || !Number.isInteger(v.pid) || v.pid <= 0) return null;
    if (typeof v.hostname !== "string") return null;
    return {
      pid: v.pid,
      hostname: v.hostname,
      startTime: typeof v.startTime === "string" ? v.startTime : null,
      createdAt: typeof v.createdAt === "string" ? v.createdAt : "unknown",
    };
  } catch {
    return null;
  }
}

function readOrNull(file: string): string | null {
  try {
    return fs.readFileSync(file, "utf8");
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "ENOENT") return null;
    throw e;
  }
}

const releasers = new Set<() => void>();
let exitHookInstalled = false;
function onExit(): void {
  for (const release of releasers) release();
}

/**
 * Takes `<dir>/untorn.lock` or throws StoreLockedError. The file appears atomically with its
 * full content (written to a temporary name, then hard-linked), so a reader never sees it half-written.
 */
export function acquireDirLock(dir: string): DirLock {
  const lockPath = path.join(dir, LOCK_FILE);
  const me: LockHolder = {
    pid: process.pid,
    hostname: os.hostname(),
    startTime: processStartTime(process.pid),
    createdAt: new Date().toISOString(),
  };
  const content = `${JSON.stringify(me)}\n`;
  const tmp = `${lockPath}.${process.pid}.${randomBytes(4).toString("hex")}`;
  try {
    fs.writeFileSync(tmp, content, { mode: 0o644, flush: true });
  } catch (e) {
    throw new StoreOpenError(dir, `cannot write the lock file in ${dir}: ${(e as Error).message}`, {
      cause: e,
    });
  }
  try {
    for (let attempt = 0; attempt < 5; attempt++) {
      try {
        fs.linkSync(tmp, lockPath);
        return registered(lockPath, content);
      } catch (e) {
        if ((e as NodeJS.ErrnoException).code !== "EEXIST") {
          throw new StoreOpenError(dir, `cannot create ${lockPath}: ${(e as Error).message}`, { cause: e });
        }
      }
      const seen = readOrNull(lockPath);
      if (seen === null) continue;
      const holder = parseHolder(seen);
      if (holder) {
        const status = holderStatus(holder);
        if (status !== "dead") throw lockedError(dir, lockPath, holder, status);
      }
      // Stale or unreadable: remove it only if nobody replaced it meanwhile, then retry the link.
      if (readOrNull(lockPath) === seen) fs.rmSync(lockPath, { force: true });
    }
    throw new StoreOpenError(dir, `cannot take ${lockPath}: other processes keep replacing it`);
  } finally {
    fs.rmSync(tmp, { force: true });
  }
}

function lockedError(dir: string, lockPath: string, h: LockHolder, status: HolderStatus): StoreLockedError {
  const who =
    h.pid === process.pid && status === "alive"
      ? `this process (${h.pid}) already has it open; close that store first`
      : status === "other-host"
        ? `process ${h.pid} on host ${h.hostname} (since ${h.createdAt}); if that host no longer uses it, delete ${lockPath}`
        : `process ${h.pid} (since ${h.createdAt}); stop that process (another Untorn web app or CLI) or give this one its own data directory. If process ${h.pid} is not Untorn, delete ${lockPath}`;
  return new StoreLockedError(dir, h.pid, lockPath, `data directory ${dir} is locked by ${who}`);
}

function registered(lockPath: string, content: string): DirLock {
  let released = false;
  const release = () => {
    if (released) return;
    released = true;
    releasers.delete(release);
    // Never delete a lock someone else holds (e.g. ours was deleted by hand and another process took it).
    if (readOrNull(lockPath) === content) fs.rmSync(lockPath, { force: true });
  };
  releasers.add(release);
  if (!exitHookInstalled) {
    process.on("exit", onExit);
    exitHookInstalled = true;
  }
  return { path: lockPath, release };
}
