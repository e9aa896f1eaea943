import { type HostFs, readInteger, readOptional } from "./host-fs.js";

/** Atomic write limits from queue/atomic_write_*_bytes (Linux 6.11+, docs/reference/atomic-storage.md §8.5); 0 = no support. */
export interface AtomicWriteLimits {
  unitMin?: number;
  unitMax?: number;
  max?: number;
  boundary?: number;
}

export interface QueueAttributes {
  logicalBlockSize?: number;
  physicalBlockSize?: number;
  rotational?: number;
  /** 1 for "write back" (volatile cache), 0 for "write through". */
  writeCacheVolatile?: number;
  /** max_sectors_kb in bytes: the block layer splits larger requests. */
  maxIoBytes?: number;
  /** Undefined when the kernel has no atomic_write_* attributes: limits unknown, not zero. */
  atomic?: AtomicWriteLimits;
}

/**
 * Reads <sysBlockDir>/queue/*. Only whole disks, device-mapper, md and loop devices have a queue/
 * directory; a partition's limits are its disk's. Undefined when queue/ cannot be listed at all, so a
 * missing directory is never mistaken for a kernel without atomic_write_* attributes.
 */
export async function readQueue(
  fs: HostFs,
  sysBlockDir: string,
  signal?: AbortSignal,
): Promise<QueueAttributes | undefined> {
  const q = `${sysBlockDir}/queue`;
  let entries: Set<string>;
  try {
    entries = new Set(await fs.readdir(q));
  } catch {
    return undefined;
  }
  const int = (attr: string) => (entries.has(attr) ? readInteger(fs, `${q}/${attr}`, signal) : undefined);
  const [logical, physical, rotational, cache, unitMin, unitMax, max, boundary, maxSectorsKb] =
    await Promise.all([
      int("logical_block_size"),
      int("physical_block_size"),
      int("rotational"),
      entries.has("write_cache") ? readOptional(fs, `${q}/write_cache`, signal) : undefined,
      int("atomic_write_unit_min_bytes"),
      int("atomic_write_unit_max_bytes"),
      int("atomic_write_max_bytes"),
      int("atomic_write_boundary_bytes"),
      int("max_sectors_kb"),
    ]);
  const out: QueueAttributes = {};
  if (logical !== undefined) out.logicalBlockSize = logical;
  if (physical !== undefined) out.physicalBlockSize = physical;
  if (rotational !== undefined) out.rotational = rotational;
  if (maxSectorsKb !== undefined) out.maxIoBytes = maxSectorsKb * 1024;
  if (cache === "write back") out.writeCacheVolatile = 1;
  else if (cache === "write through") out.writeCacheVolatile = 0;
  // The four attributes arrived together in 6.11; any one of them means the kernel has the API.
  const atomicNames = [
    "atomic_write_unit_min_bytes",
    "atomic_write_unit_max_bytes",
    "atomic_write_max_bytes",
    "atomic_write_boundary_bytes",
  ];
  if (atomicNames.some((a) => entries.has(a))) {
    const atomic: AtomicWriteLimits = {};
    if (unitMin !== undefined) atomic.unitMin = unitMin;
    if (unitMax !== undefined) atomic.unitMax = unitMax;
    if (max !== undefined) atomic.max = max;
    if (boundary !== undefined) atomic.boundary = boundary;
    out.atomic = atomic;
  }
  return out;
}
