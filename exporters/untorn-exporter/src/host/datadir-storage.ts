import { isAbsolute, join } from "node:path";
import type { HostPaths } from "../collector.js";
import { type BlockDevice, deviceByDevno, deviceBySource, wholeDisks } from "./block-device.js";
import { type BlockStat, parseBlockStat } from "./block-stat.js";
import {
  type Ext4Superblock,
  parseExt4Superblock,
  SUPERBLOCK_OFFSET,
  SUPERBLOCK_SIZE,
} from "./ext4-superblock.js";
import { errnoCode, type HostFs, readOptional, realpathUnder } from "./host-fs.js";
import { findMount, isUnder, type Mount, parseMountinfo } from "./mountinfo.js";
import { type QueueAttributes, readQueue } from "./queue.js";

/** What the host says about the storage under the server's datadir. */
export type DatadirStorage =
  | { visible: false; path: string }
  | {
      visible: true;
      /** The datadir's real path as the exporter sees it (below HostPaths.root). */
      path: string;
      mount: Mount;
      /** The mount point as the server sees it (HostPaths.root stripped). */
      mountPoint: string;
      /** Undefined for file systems without a block device (tmpfs, NFS, overlay, ZFS). */
      device?: BlockDevice;
      /** The device whose queue/ holds the limits: the device itself, or a partition's disk. */
      queueDevice?: string;
      disks: string[];
      /** device/model of the disks, trimmed, unique, in disk order. */
      models: string[];
      queue?: QueueAttributes;
      /** Byte offset of the datadir's partition on its disk (partitions only). */
      partitionStartBytes?: number;
      stat?: BlockStat;
      fsBlockSize?: number;
      ext4?: Ext4Superblock;
    };

const EXT_FS = new Set(["ext2", "ext3", "ext4"]);

/** Reads and parses <proc>/self/mountinfo; throws when it is unreadable or has no mount at all. */
export async function readMounts(fs: HostFs, proc: string, signal?: AbortSignal): Promise<Mount[]> {
  const path = `${proc}/self/mountinfo`;
  let text: string;
  try {
    text = await fs.readText(path, signal);
  } catch (err) {
    throw new Error(`cannot read ${path}: ${(err as Error).message}`);
  }
  const { mounts, skipped } = parseMountinfo(text);
  if (mounts.length === 0) {
    throw new Error(`${path} has no mountinfo lines (${skipped} malformed): is ${proc} a procfs?`);
  }
  return mounts;
}

function stripRoot(path: string, root: string): string {
  const r = root.replace(/\/+$/, "");
  if (r === "" || !isUnder(path, r)) return path;
  return path.slice(r.length) || "/";
}

/**
 * Follows the datadir to its mount, block device, whole disks, queue limits, I/O counters, statfs block
 * size and (ext2/3/4, when the device node is readable) superblock cluster size. Missing or unreadable
 * sysfs files leave their field undefined. Throws only when the datadir cannot be resolved for a reason
 * other than not existing, or when mountinfo is unusable.
 */
export async function probeDatadir(
  fs: HostFs,
  paths: HostPaths,
  datadir: string,
  signal?: AbortSignal,
): Promise<DatadirStorage> {
  if (!isAbsolute(datadir)) throw new Error(`the server's datadir '${datadir}' is not an absolute path`);
  const hostPath = join(paths.root, datadir);
  let real: string;
  try {
    real = await realpathUnder(fs, paths.root, datadir);
  } catch (err) {
    const code = errnoCode(err);
    if (code === "ENOENT" || code === "ENOTDIR") return { visible: false, path: hostPath };
    throw new Error(`cannot resolve the datadir ${hostPath}: ${(err as Error).message}`);
  }

  const mounts = await readMounts(fs, paths.proc, signal);
  const mountOf = (p: string, what: string): Mount => {
    const m = findMount(mounts, p);
    if (!m) throw new Error(`no mount in ${paths.proc}/self/mountinfo contains the ${what} ${p}`);
    return m;
  };
  const mount = mountOf(real, "datadir");
  signal?.throwIfAborted();

  const deviceOf = async (m: Mount) =>
    (await deviceByDevno(fs, paths.sys, m.major, m.minor)) ?? (await deviceBySource(fs, paths.sys, m.source));
  const device = await deviceOf(mount);
  const resolveBacking = async (file: string) =>
    deviceOf(mountOf(await realpathUnder(fs, paths.root, file), "file"));

  const [fsBlockSize, deviceFacts] = await Promise.all([
    fs.statfs(real).then(
      (s) => (s.bsize > 0 ? s.bsize : undefined),
      () => undefined,
    ),
    device ? probeDevice(fs, paths, device, mount, resolveBacking, signal) : undefined,
  ]);
  signal?.throwIfAborted();

  // statfs f_bsize is the file system block (ext4: the block, not the bigalloc cluster).
  const blockSize = fsBlockSize ?? deviceFacts?.ext4?.blockSize;
  return {
    visible: true,
    path: real,
    mount,
    mountPoint: stripRoot(mount.mountPoint, paths.root),
    ...(device ? { device } : {}),
    disks: [],
    models: [],
    ...deviceFacts,
    ...(blockSize !== undefined ? { fsBlockSize: blockSize } : {}),
  };
}

async function probeDevice(
  fs: HostFs,
  paths: HostPaths,
  device: BlockDevice,
  mount: Mount,
  resolveBacking: (file: string) => Promise<BlockDevice | undefined>,
  signal?: AbortSignal,
) {
  const { sys } = paths;
  const queueDevice = device.parent ?? device.name;
  const [disks, queue, statText, ext4, startText] = await Promise.all([
    wholeDisks(fs, sys, device, resolveBacking),
    readQueue(fs, `${sys}/block/${queueDevice}`, signal),
    readOptional(fs, `${sys}/class/block/${device.name}/stat`, signal),
    EXT_FS.has(mount.fsType) ? readSuperblock(fs, join(paths.dev, device.devName)) : undefined,
    // only partitions have a start file (in 512-byte sectors, whatever the logical block size)
    device.parent ? readOptional(fs, `${sys}/class/block/${device.name}/start`, signal) : undefined,
  ]);
  const startSectors = startText === undefined ? Number.NaN : Number(startText.trim());
  const models: string[] = [];
  for (const disk of disks) {
    const model = await readOptional(fs, `${sys}/class/block/${disk}/device/model`, signal);
    if (model && !models.includes(model)) models.push(model);
  }
  const stat = statText === undefined ? undefined : parseBlockStat(statText);
  return {
    queueDevice,
    disks,
    models,
    ...(queue ? { queue } : {}),
    ...(stat ? { stat } : {}),
    ...(ext4 ? { ext4 } : {}),
    ...(Number.isInteger(startSectors) && startSectors >= 0
      ? { partitionStartBytes: startSectors * 512 }
      : {}),
  };
}

/** The ext2/3/4 superblock of a device node; undefined when unreadable (not root) or not ext. */
export async function readSuperblock(fs: HostFs, devNode: string): Promise<Ext4Superblock | undefined> {
  try {
    return parseExt4Superblock(await fs.readBytes(devNode, SUPERBLOCK_OFFSET, SUPERBLOCK_SIZE));
  } catch {
    return undefined;
  }
}
