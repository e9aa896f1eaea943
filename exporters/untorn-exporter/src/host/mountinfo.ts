/** One line of /proc/<pid>/mountinfo (proc(5)), with octal escapes (\040 for a space) decoded. */
export interface Mount {
  mountId: number;
  parentId: number;
  major: number;
  minor: number;
  /** The directory of the file system that forms this mount's root ("/mysql" for a bind mount of a subdirectory). */
  root: string;
  mountPoint: string;
  /** Per-mount options (rw, noatime, ...). */
  options: string[];
  fsType: string;
  source: string;
  /** Per-superblock options (data=ordered, discard, nodatacow, ...). */
  superOptions: string[];
}

export interface ParsedMountinfo {
  mounts: Mount[];
  /** Non-empty lines that did not have the mountinfo shape. */
  skipped: number;
}

/** The kernel escapes space, tab, newline and backslash in paths as \ooo (fs/proc_namespace.c mangle()). */
export function unescapeMountField(s: string): string {
  return s.replace(/\\([0-7]{3})/g, (_, oct: string) => String.fromCharCode(Number.parseInt(oct, 8)));
}

function parseLine(line: string): Mount | undefined {
  const fields = line.split(" ");
  const sep = fields.indexOf("-", 6);
  if (sep < 0 || fields.length < sep + 4) return undefined;
  const [id, parent, devno, root, mountPoint, options] = fields;
  const dev = /^(\d+):(\d+)$/.exec(devno ?? "");
  if (!dev || !/^\d+$/.test(id ?? "") || !/^\d+$/.test(parent ?? "")) return undefined;
  if (!root?.startsWith("/") || !mountPoint?.startsWith("/") || options === undefined) return undefined;
  return {
    mountId: Number(id),
    parentId: Number(parent),
    major: Number(dev[1]),
    minor: Number(dev[2]),
    root: unescapeMountField(root),
    mountPoint: unescapeMountField(mountPoint),
    options: options.split(","),
    fsType: unescapeMountField(fields[sep + 1]!),
    source: unescapeMountField(fields[sep + 2]!),
    superOptions: fields[sep + 3]!.split(",").filter((o) => o !== ""),
  };
}

/** Parses mountinfo text; malformed lines are counted, not fatal (the caller decides what is broken). */
export function parseMountinfo(text: string): ParsedMountinfo {
  const mounts: Mount[] = [];
  let skipped = 0;
  for (const raw of text.split("\n")) {
    const line = raw.trimEnd();
    if (line === "") continue;
    const m = parseLine(line);
    if (m) mounts.push(m);
    else skipped++;
  }
  return { mounts, skipped };
}

/** True when path equals dir or lies below it, compared by whole path components. */
export function isUnder(path: string, dir: string): boolean {
  if (dir === "/") return path.startsWith("/");
  return path === dir || path.startsWith(dir.endsWith("/") ? dir : `${dir}/`);
}

/**
 * The mount that holds an absolute, symlink-free path: the longest mount point containing it; among
 * mounts on the same point the last listed is the one on top (as findmnt --target picks it).
 */
export function findMount(mounts: readonly Mount[], path: string): Mount | undefined {
  let best: Mount | undefined;
  for (const m of mounts) {
    if (!isUnder(path, m.mountPoint)) continue;
    if (!best || m.mountPoint.length >= best.mountPoint.length) best = m;
  }
  return best;
}

/**
 * Per-mount options followed by the superblock options not already listed: the options that apply.
 * The superblock's own rw/ro is left out: the mount's says whether this mount is writable.
 */
export function mountOptions(m: Mount): string {
  const seen = new Set(m.options);
  for (const o of m.superOptions) if (o !== "rw" && o !== "ro") seen.add(o);
  return [...seen].join(",");
}
