import { constants } from "node:fs";
import { open, readdir, readFile, readlink, realpath, statfs } from "node:fs/promises";

/**
 * The file system calls the host collectors make, so tests can answer them from a fixture tree
 * (fixture-fs.ts). Every method rejects with a Node errno error (code ENOENT, EACCES, ...) on failure.
 */
export interface HostFs {
  readText(path: string, signal?: AbortSignal): Promise<string>;
  realpath(path: string): Promise<string>;
  /** The target of a symbolic link as stored; rejects with EINVAL when path is not a link. */
  readlink(path: string): Promise<string>;
  readdir(path: string): Promise<string[]>;
  /** statfs(2) of the file system holding path; bsize is f_bsize in bytes. */
  statfs(path: string): Promise<{ bsize: number }>;
  /** Up to length bytes at offset (fewer at end of file). */
  readBytes(path: string, offset: number, length: number): Promise<Buffer>;
}

export const nodeHostFs: HostFs = {
  readText: (path, signal) => readFile(path, { encoding: "utf8", signal }),
  realpath: (path) => realpath(path),
  readlink: (path) => readlink(path),
  readdir: (path) => readdir(path),
  statfs: async (path) => ({ bsize: Number((await statfs(path)).bsize) }),
  async readBytes(path, offset, length) {
    // O_NONBLOCK: never wait on a device node that blocks on open (tape, FIFO); read-only, no side effects.
    const fh = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
    try {
      const buf = Buffer.alloc(length);
      const { bytesRead } = await fh.read(buf, 0, length, offset);
      return buf.subarray(0, bytesRead);
    } finally {
      await fh.close();
    }
  },
};

export function errnoCode(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | null)?.code;
  return typeof code === "string" ? code : undefined;
}

/** Trimmed file content, or undefined when the file is missing or unreadable. */
export async function readOptional(
  fs: HostFs,
  path: string,
  signal?: AbortSignal,
): Promise<string | undefined> {
  try {
    return (await fs.readText(path, signal)).trim();
  } catch (err) {
    if (signal?.aborted) throw err;
    return undefined;
  }
}

/** A non-negative integer file (sysfs attributes), or undefined when missing, unreadable or not a number. */
export async function readInteger(
  fs: HostFs,
  path: string,
  signal?: AbortSignal,
): Promise<number | undefined> {
  const text = await readOptional(fs, path, signal);
  return text !== undefined && /^\d+$/.test(text) ? Number(text) : undefined;
}

/** Directory entries, or [] when the directory is missing or unreadable. */
export async function readdirOptional(fs: HostFs, path: string): Promise<string[]> {
  try {
    return await fs.readdir(path);
  } catch {
    return [];
  }
}

/** Symlinks followed before giving up, as the kernel's MAXSYMLINKS. */
const MAX_SYMLINKS = 40;

/**
 * The real path of an absolute path as the host sees it, below root (HostPaths.root): like realpath(3)
 * inside a chroot, so an absolute link such as /var/lib/mysql -> /data/mysql resolves to <root>/data/mysql
 * rather than to /data/mysql in the exporter's own namespace. With root "/" it is plain realpath.
 */
export async function realpathUnder(fs: HostFs, root: string, path: string): Promise<string> {
  if (root === "/" || root === "") return fs.realpath(path);
  const rootDir = root.replace(/\/+$/, "");
  const pending = path.split("/").filter((p) => p !== "");
  const done: string[] = [];
  let links = 0;
  while (pending.length > 0) {
    const part = pending.shift()!;
    if (part === ".") continue;
    if (part === "..") {
      done.pop();
      continue;
    }
    const here = [rootDir, ...done, part].join("/");
    let target: string | undefined;
    try {
      target = await fs.readlink(here);
    } catch (err) {
      if (errnoCode(err) !== "EINVAL") throw err;
    }
    if (target === undefined) {
      done.push(part);
      continue;
    }
    if (++links > MAX_SYMLINKS)
      throw Object.assign(new Error(`ELOOP: too many symlinks in ${path}`), { code: "ELOOP" });
    if (target.startsWith("/")) done.length = 0;
    pending.unshift(...target.split("/").filter((p) => p !== ""));
  }
  const resolved = [rootDir, ...done].join("/") || "/";
  await fs.realpath(resolved); // every component exists and is searchable
  return resolved;
}
