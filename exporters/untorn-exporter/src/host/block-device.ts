import { basename, dirname } from "node:path";
import { type HostFs, readdirOptional, readOptional } from "./host-fs.js";

/** A block device as sysfs describes it. */
export interface BlockDevice {
  /** sysfs name: vda1, dm-0, nvme0n1, loop0 ("/" in kernel names appears as "!", e.g. cciss!c0d0). */
  name: string;
  /** "MAJ:MIN". */
  devno: string;
  /** Path below /dev (uevent DEVNAME), e.g. "vda1", "dm-0", "cciss/c0d0". */
  devName: string;
  /** For a partition, the whole disk it belongs to (its sysfs parent directory). */
  parent?: string;
  /** device-mapper name (LVM: <vg>-<lv>). */
  dmName?: string;
  /** Devices this one is stacked on (device-mapper, md): the entries of slaves/. */
  slaves: string[];
  /** Loop devices: loop/backing_file as the kernel reports it (" (deleted)" suffix removed). */
  backingFile?: string;
}

async function describe(fs: HostFs, sysPath: string): Promise<BlockDevice> {
  const name = basename(sysPath);
  const [devno, uevent, partition, dmName, slaves, backing] = await Promise.all([
    readOptional(fs, `${sysPath}/dev`),
    readOptional(fs, `${sysPath}/uevent`),
    readOptional(fs, `${sysPath}/partition`),
    readOptional(fs, `${sysPath}/dm/name`),
    readdirOptional(fs, `${sysPath}/slaves`),
    readOptional(fs, `${sysPath}/loop/backing_file`),
  ]);
  const devName = /^DEVNAME=(.+)$/m.exec(uevent ?? "")?.[1] ?? name.replaceAll("!", "/");
  const dev: BlockDevice = { name, devno: devno ?? "", devName, slaves: slaves.sort() };
  // A partition's sysfs directory sits inside its disk's: .../block/sda/sda1.
  if (partition !== undefined) dev.parent = basename(dirname(sysPath));
  if (dmName) dev.dmName = dmName;
  if (backing) dev.backingFile = backing.replace(/ \(deleted\)$/, "");
  return dev;
}

/** The device behind MAJ:MIN via the /sys/dev/block/MAJ:MIN symlink; undefined when there is none. */
export async function deviceByDevno(
  fs: HostFs,
  sys: string,
  major: number,
  minor: number,
): Promise<BlockDevice | undefined> {
  try {
    return await describe(fs, await fs.realpath(`${sys}/dev/block/${major}:${minor}`));
  } catch {
    return undefined;
  }
}

/** The device with this sysfs name via /sys/class/block/<name>; undefined when there is none. */
export async function deviceByName(fs: HostFs, sys: string, name: string): Promise<BlockDevice | undefined> {
  if (name === "" || name.includes("/") || name === "." || name === "..") return undefined;
  try {
    return await describe(fs, await fs.realpath(`${sys}/class/block/${name}`));
  } catch {
    return undefined;
  }
}

/**
 * The device a mount source names, for file systems whose mountinfo MAJ:MIN is not a block device
 * (btrfs reports an anonymous 0:N): /dev/<name> or /dev/mapper/<dm name>.
 */
export async function deviceBySource(
  fs: HostFs,
  sys: string,
  source: string,
): Promise<BlockDevice | undefined> {
  const mapper = /^\/dev\/mapper\/(.+)$/.exec(source);
  if (mapper) {
    for (const entry of await readdirOptional(fs, `${sys}/class/block`)) {
      if (!entry.startsWith("dm-")) continue;
      if ((await readOptional(fs, `${sys}/class/block/${entry}/dm/name`)) === mapper[1]) {
        return deviceByName(fs, sys, entry);
      }
    }
    return undefined;
  }
  const plain = /^\/dev\/(.+)$/.exec(source);
  return plain ? deviceByName(fs, sys, plain[1]!.replaceAll("/", "!")) : undefined;
}

/** Resolves a loop device's backing file to the device holding it (needs the mount table). */
export type BackingResolver = (file: string) => Promise<BlockDevice | undefined>;

const MAX_DEPTH = 8;

/**
 * The whole disks under a device, sorted: slaves/ recursively (device-mapper, md), a partition's parent
 * disk, a loop device's backing file's disks when resolveBacking finds them; otherwise the device itself.
 */
export async function wholeDisks(
  fs: HostFs,
  sys: string,
  dev: BlockDevice,
  resolveBacking?: BackingResolver,
): Promise<string[]> {
  const out = new Set<string>();
  const seen = new Set<string>();
  const walk = async (d: BlockDevice, depth: number): Promise<void> => {
    if (seen.has(d.name) || depth > MAX_DEPTH) return;
    seen.add(d.name);
    if (d.slaves.length > 0) {
      let found = false;
      for (const s of d.slaves) {
        const child = await deviceByName(fs, sys, s);
        if (child) {
          found = true;
          await walk(child, depth + 1);
        }
      }
      if (found) return;
    }
    if (d.parent) {
      out.add(d.parent);
      return;
    }
    if (d.backingFile && resolveBacking) {
      const backing = await resolveBacking(d.backingFile).catch(() => undefined);
      if (backing && !seen.has(backing.name)) {
        await walk(backing, depth + 1);
        return;
      }
    }
    out.add(d.name);
  };
  await walk(dev, 0);
  return [...out].sort();
}
