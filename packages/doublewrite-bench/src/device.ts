/** Block device counters of the datadir's device (/sys/dev/block/MAJ:MIN/stat), for per-run deltas. */
import { readFile, stat } from "node:fs/promises";

export interface DiskCounters {
  /** Completed write requests: after the queue split them at max_sectors_kb, so metered I/Os. */
  writes: number;
  writeBytes: number;
  /** Completed cache flush requests (Linux 5.5+), undefined before. */
  flushes: number | undefined;
}

/** "MAJ:MIN" of the device holding `path`, or undefined when it cannot be stat'ed (remote server). */
export async function deviceOf(path: string): Promise<string | undefined> {
  try {
    const dev = (await stat(path, { bigint: true })).dev;
    // Linux dev_t: major = bits 8-19 and 32-43, minor = bits 0-7 and 20-31 (glibc gnu_dev_major/minor).
    const major = ((dev >> 8n) & 0xfffn) | ((dev >> 32n) & ~0xfffn);
    const minor = (dev & 0xffn) | ((dev >> 12n) & ~0xffn);
    return `${major}:${minor}`;
  } catch {
    return undefined;
  }
}

/**
 * Parses a block stat line (Documentation/block/stat.rst): field 5 write I/Os, 7 write sectors (512
 * bytes whatever the device's block size), 16 flush requests (Linux 5.5+).
 */
export function parseDiskStat(text: string): DiskCounters {
  const f = text.trim().split(/\s+/).map(Number);
  if (f.length < 11 || f.some((x) => !Number.isFinite(x))) throw new Error(`not a block stat line: ${text}`);
  return { writes: f[4]!, writeBytes: f[6]! * 512, flushes: f.length >= 17 ? f[15] : undefined };
}

export async function readDiskCounters(majorMinor: string): Promise<DiskCounters | undefined> {
  try {
    return parseDiskStat(await readFile(`/sys/dev/block/${majorMinor}/stat`, "utf8"));
  } catch {
    return undefined;
  }
}
