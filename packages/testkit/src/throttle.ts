import { execFile, execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import { mkdir, readFile, rmdir, truncate, writeFile } from "node:fs/promises";
import { basename, join } from "node:path";
import { promisify } from "node:util";
import { MissingBinaryError, makeTempDir, removeDir, requireBinary } from "./process.js";

const run = promisify(execFile);

/**
 * An IOPS-limited volume, emulated as in docs/reference/iops-metering.md §11: a sparse image file on a loop device,
 * ext4 with 16 KiB bigalloc clusters, mounted in a temp dir, and a cgroup v1 blkio group that caps the
 * IOPS of the processes started in it on that loop device.
 */
export interface ThrottleOptions {
  /** Write IOPS cap; 0 or absent = no cap (setLimits can add one later). */
  writeIops?: number;
  /** Read IOPS cap; 0 or absent = no cap. */
  readIops?: number;
  /**
   * Write bandwidth cap in bytes/s (blkio.throttle.write_bps_device); 0 or absent = no cap. Unlike an
   * IOPS cap that counts a large request as one, it charges doublewrite's extra copy of every page in
   * full (docs/reference/iops-metering.md, "emulated IOPS-limited volumes").
   */
  writeBytesPerSecond?: number;
  /**
   * The loop device's max_sectors_kb: the largest request the device takes, larger ones are split. The
   * cap charges every piece, so 16 meters every 16 KiB (one I/O per InnoDB page) and 256 counts requests up
   * to 256 KiB as one, like AWS EBS SSD volumes (docs/reference/iops-metering.md §11). Default 16.
   */
  meterKiB?: number;
  /** Size of the sparse image file in MiB. Default 4096. */
  sizeMiB?: number;
  /** ext4 bigalloc cluster size in bytes. Default 16384 (one InnoDB page). */
  clusterBytes?: number;
  /** Directory for the image file and the mount point. Default a fresh temp dir. */
  parentDir?: string;
  /**
   * "loop" (default): a sparse image file on a loop device. "zram": a fresh zram device (RAM, `sizeMiB`
   * of it), a whole disk with nothing between the file system and the disk, which a datadir needs for
   * the advisor's safety gate to read verified (a loop device is a remapping layer, docs/reference/atomic-storage.md §8.7).
   * Check `zramAvailable()` first.
   */
  backing?: "loop" | "zram";
}

export interface ThrottleLimits {
  writeIops: number;
  readIops: number;
  writeBytesPerSecond: number;
}

export interface ThrottledVolume {
  /** The image file behind the loop device; "" for zram. */
  readonly image: string;
  /** e.g. /dev/loop3 */
  readonly device: string;
  /** "MAJ:MIN" of the loop device, as blkio and /sys/dev/block name it. */
  readonly majorMinor: string;
  readonly mountPoint: string;
  /** The blkio cgroup directory. */
  readonly cgroup: string;
  readonly meterKiB: number;
  readonly limits: Readonly<ThrottleLimits>;
  /**
   * Prefix that starts a command inside the cgroup: the shell writes its own PID to cgroup.procs and
   * execs the command, so the command keeps that PID and every thread it creates (io_uring `iou-wrk`
   * workers included) is in the cgroup from the start (docs/reference/iops-metering.md §11).
   */
  readonly spawnPrefix: readonly string[];
  /** Changes the caps; 0 lifts one. */
  setLimits(limits: Partial<ThrottleLimits>): Promise<void>;
  /** PIDs in the cgroup now. */
  pids(): Promise<number[]>;
  /** Unmounts, detaches and removes the cgroup and the image; collects errors and throws them at the end. */
  destroy(): Promise<void>;
}

const BLKIO_FILE = "blkio.throttle.write_iops_device";

/** Mount point of the cgroup v1 blkio hierarchy, or undefined (cgroup v2 only, or not mounted). */
export function blkioRoot(mounts = readFileSync("/proc/mounts", "utf8")): string | undefined {
  for (const line of mounts.split("\n")) {
    const [, dir, type, options] = line.split(" ");
    if (type === "cgroup" && options?.split(",").includes("blkio") && dir) return dir;
  }
  return undefined;
}

let availability: Promise<string | undefined> | undefined;

/**
 * Why this machine cannot emulate an IOPS-limited volume, or undefined when it can. Checks root, the
 * tools, a cgroup v1 blkio hierarchy with throttling (a cgroup is created and removed) and a loop device
 * (a 1 MiB image is attached and detached). The answer is cached.
 */
export function throttleAvailable(): Promise<string | undefined> {
  availability ??= probe();
  return availability;
}

async function probe(): Promise<string | undefined> {
  if (process.platform !== "linux") return `needs Linux (this is ${process.platform})`;
  if (process.getuid?.() !== 0) return "needs root (losetup, mount and cgroup writes)";
  try {
    for (const [bin, pkg] of [
      ["losetup", "mount"],
      ["mount", "mount"],
      ["umount", "mount"],
      ["mkfs.ext4", "e2fsprogs"],
    ] as const) {
      requireBinary(bin, pkg);
    }
  } catch (err) {
    if (err instanceof MissingBinaryError) return err.message;
    throw err;
  }
  let root: string | undefined;
  try {
    root = blkioRoot();
  } catch (err) {
    return `cannot read /proc/mounts: ${(err as Error).message}`;
  }
  if (!root) {
    return "no cgroup v1 blkio hierarchy is mounted (a cgroup v2-only system; the emulation uses blkio.throttle.*)";
  }
  if (!existsSync(join(root, BLKIO_FILE))) {
    return `${root} has no ${BLKIO_FILE} (kernel built without CONFIG_BLK_DEV_THROTTLING)`;
  }
  const probeGroup = join(root, `untorn-probe-${process.pid}-${Date.now()}`);
  try {
    await mkdir(probeGroup);
  } catch (err) {
    return `cannot create a blkio cgroup in ${root}: ${(err as Error).message}`;
  }
  try {
    if (!existsSync(join(probeGroup, BLKIO_FILE))) return `a new blkio cgroup has no ${BLKIO_FILE}`;
  } finally {
    await rmdir(probeGroup).catch(() => undefined);
  }
  if (!existsSync("/dev/loop-control")) return "no /dev/loop-control (the loop module is not loaded)";
  const dir = await makeTempDir("throttle-probe");
  try {
    const image = join(dir, "probe.img");
    await writeFile(image, "");
    await truncate(image, 1 << 20);
    let device: string;
    try {
      device = (await run("losetup", ["--find", "--show", image])).stdout.trim();
    } catch (err) {
      return `cannot attach a loop device: ${firstLine(err)}`;
    }
    await run("losetup", ["--detach", device]).catch(() => undefined);
  } finally {
    await removeDir(dir);
  }
  return undefined;
}

const ZRAM_CONTROL = "/sys/class/zram-control";

/** Why a zram-backed volume cannot be made here (on top of `throttleAvailable()`), or undefined. */
export async function zramAvailable(): Promise<string | undefined> {
  const reason = await throttleAvailable();
  if (reason) return reason;
  if (!existsSync(join(ZRAM_CONTROL, "hot_add")))
    return `no ${ZRAM_CONTROL}/hot_add (the zram module is not loaded)`;
  return undefined;
}

async function removeZram(id: string): Promise<void> {
  await writeFile(`/sys/block/zram${id}/reset`, "1");
  await writeFile(join(ZRAM_CONTROL, "hot_remove"), id);
}

function firstLine(err: unknown): string {
  const e = err as { stderr?: string; message?: string };
  return (e.stderr?.trim() || e.message || String(err)).split("\n")[0]!;
}

const live = new Set<{ cleanupSync(): void }>();
let exitHookInstalled = false;

function installExitHook(): void {
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  // Last resort when a run dies without destroy(): never leave a mount, a loop device or a cgroup behind.
  process.on("exit", () => {
    for (const v of live) v.cleanupSync();
  });
}

/** Creates the volume; on any failure the steps already done are undone before the error is thrown. */
export async function createThrottledVolume(opts: ThrottleOptions = {}): Promise<ThrottledVolume> {
  const backing = opts.backing ?? "loop";
  const reason = backing === "zram" ? await zramAvailable() : await throttleAvailable();
  if (reason) throw new Error(`cannot emulate an IOPS-limited volume: ${reason}`);
  const { meterKiB, sizeMiB, clusterBytes } = checkedOptions(opts);

  const undo: UndoStep[] = [];
  const ownDir = opts.parentDir === undefined;
  const dir = opts.parentDir ?? (await makeTempDir("throttle"));
  if (ownDir) undo.push({ what: `remove ${dir}`, fn: () => removeDir(dir) });
  const root = blkioRoot()!;
  const stem = `untorn-throttle-${process.pid}-${Date.now()}`;
  const image = backing === "zram" ? "" : join(dir, `${stem}.img`);
  const mountPoint = join(dir, "mnt");
  const cgroup = join(root, `untorn-${stem.slice("untorn-throttle-".length)}`);
  const made: MadeDevice = { device: "", zramId: "", majorMinor: "", sysQueue: "", originalMaxSectors: "" };

  const rollback = () => undoAll(undo);
  const handle = { cleanupSync: () => cleanupSync({ root, cgroup, mountPoint, image, ownDir, dir }, made) };

  installExitHook();
  live.add(handle);
  undo.push({ what: "forget", fn: async () => void live.delete(handle) });
  try {
    await attachDevice(made, backing, image, sizeMiB, undo);
    await meterRequests(made, meterKiB, undo);
    await mountExt4(made.device, clusterBytes, mountPoint, undo);
    await mkdir(cgroup);
    undo.push({ what: `remove cgroup ${cgroup}`, fn: () => removeCgroup(cgroup, root) });
  } catch (err) {
    const errors = await rollback();
    const extra = errors.length ? ` (cleanup also failed: ${errors.map((e) => e.message).join("; ")})` : "";
    throw new Error(`creating the throttled volume failed: ${firstLine(err)}${extra}`);
  }

  const limits: ThrottleLimits = { writeIops: 0, readIops: 0, writeBytesPerSecond: 0 };
  const setLimits = limitSetter(cgroup, made.majorMinor, limits);
  try {
    await setLimits({
      writeIops: opts.writeIops ?? 0,
      readIops: opts.readIops ?? 0,
      writeBytesPerSecond: opts.writeBytesPerSecond ?? 0,
    });
  } catch (err) {
    await rollback();
    throw err;
  }

  let destroyed: Promise<void> | undefined;
  return {
    image,
    device: made.device,
    majorMinor: made.majorMinor,
    mountPoint,
    cgroup,
    meterKiB,
    limits,
    spawnPrefix: ["/bin/sh", "-c", 'echo $$ > "$0" && exec "$@"', join(cgroup, "cgroup.procs")],
    setLimits,
    pids: () => readPids(cgroup),
    destroy() {
      destroyed ??= rollback().then((errors) => {
        if (errors.length)
          throw new Error(`throttled volume teardown: ${errors.map((e) => e.message).join("; ")}`);
      });
      return destroyed;
    },
  };
}

/** A step of the creation to undo, on failure or in destroy(), newest first. */
interface UndoStep {
  readonly what: string;
  readonly fn: () => Promise<void>;
}

/** What the creation has made so far, filled in as it goes: the exit hook undoes what is there. */
interface MadeDevice {
  device: string;
  zramId: string;
  /** "MAJ:MIN" of the device. */
  majorMinor: string;
  /** The device's max_sectors_kb file, and its value before the meter was set. */
  sysQueue: string;
  originalMaxSectors: string;
}

/** The options' sizes with their defaults; throws on a meter or a cap that is not a whole number. */
function checkedOptions(opts: ThrottleOptions): { meterKiB: number; sizeMiB: number; clusterBytes: number } {
  const meterKiB = opts.meterKiB ?? 16;
  const sizeMiB = opts.sizeMiB ?? 4096;
  const clusterBytes = opts.clusterBytes ?? 16384;
  if (!Number.isInteger(meterKiB) || meterKiB < 4) throw new Error(`meterKiB must be an integer ≥ 4`);
  for (const [k, v] of Object.entries({
    writeIops: opts.writeIops,
    readIops: opts.readIops,
    writeBytesPerSecond: opts.writeBytesPerSecond,
  })) {
    if (v !== undefined && (!Number.isInteger(v) || v < 0)) throw new Error(`${k} must be an integer ≥ 0`);
  }
  return { meterKiB, sizeMiB, clusterBytes };
}

/** Runs every undo step, newest first, and empties the list; answers the steps that failed. */
async function undoAll(undo: UndoStep[]): Promise<Error[]> {
  const errors: Error[] = [];
  for (const step of undo.reverse()) {
    try {
      await step.fn();
    } catch (err) {
      errors.push(new Error(`${step.what}: ${firstLine(err)}`));
    }
  }
  undo.length = 0;
  return errors;
}

/** The exit hook's undo, synchronous and best effort: of what `made` says was made. */
function cleanupSync(
  paths: {
    readonly root: string;
    readonly cgroup: string;
    readonly mountPoint: string;
    readonly image: string;
    readonly ownDir: boolean;
    readonly dir: string;
  },
  made: Readonly<MadeDevice>,
): void {
  const { root, cgroup, mountPoint, image, ownDir, dir } = paths;
  const { device, zramId, sysQueue, originalMaxSectors } = made;
  const sh = (cmd: string, args: string[]) => {
    try {
      execFileSync(cmd, args, { stdio: "ignore" });
    } catch {
      // best effort at exit
    }
  };
  movePidsSync(cgroup, root);
  sh("rmdir", [cgroup]);
  sh("umount", ["-l", mountPoint]);
  if (sysQueue && originalMaxSectors) sh("sh", ["-c", `echo ${originalMaxSectors} > ${sysQueue}`]);
  if (zramId) {
    sh("sh", ["-c", `echo 1 > /sys/block/zram${zramId}/reset; echo ${zramId} > ${ZRAM_CONTROL}/hot_remove`]);
  } else if (device) sh("losetup", ["--detach", device]);
  sh("rm", ["-rf", ...(image ? [image] : []), ...(ownDir ? [dir] : [])]);
}

/** A fresh zram device of `sizeMiB`, or the sparse image of that size on a loop device. */
async function attachDevice(
  made: MadeDevice,
  backing: "loop" | "zram",
  image: string,
  sizeMiB: number,
  undo: UndoStep[],
): Promise<void> {
  if (backing === "zram") {
    // hot_add creates a new device and answers its number: never one another process uses.
    const id = (await readFile(join(ZRAM_CONTROL, "hot_add"), "utf8")).trim();
    made.zramId = id;
    const device = `/dev/zram${id}`;
    made.device = device;
    undo.push({ what: `remove ${device}`, fn: () => removeZram(id) });
    await writeFile(`/sys/block/zram${id}/disksize`, `${sizeMiB}M`);
  } else {
    await writeFile(image, "");
    undo.push({ what: `remove ${image}`, fn: () => removeDir(image) });
    await truncate(image, sizeMiB * 1024 * 1024);

    const device = (await run("losetup", ["--find", "--show", image])).stdout.trim();
    made.device = device;
    undo.push({ what: `detach ${device}`, fn: () => detach(device) });
  }
}

/** Sets the device's largest request to `meterKiB` (max_sectors_kb), which the cap then meters. */
async function meterRequests(made: MadeDevice, meterKiB: number, undo: UndoStep[]): Promise<void> {
  const { device } = made;
  const name = basename(device);
  made.majorMinor = (await readFile(`/sys/block/${name}/dev`, "utf8")).trim();
  const sysQueue = `/sys/block/${name}/queue/max_sectors_kb`;
  made.sysQueue = sysQueue;
  const originalMaxSectors = (await readFile(sysQueue, "utf8")).trim();
  made.originalMaxSectors = originalMaxSectors;
  const maxHw = Number((await readFile(`/sys/block/${name}/queue/max_hw_sectors_kb`, "utf8")).trim());
  if (meterKiB > maxHw)
    throw new Error(`meterKiB ${meterKiB} is above ${device}'s max_hw_sectors_kb ${maxHw}`);
  // Loop devices are reused: put the original limit back before detaching.
  undo.push({ what: `restore ${sysQueue}`, fn: () => writeFile(sysQueue, originalMaxSectors) });
  await writeFile(sysQueue, String(meterKiB));
}

/** ext4 with bigalloc clusters of `clusterBytes` on the device, mounted at `mountPoint`. */
async function mountExt4(
  device: string,
  clusterBytes: number,
  mountPoint: string,
  undo: UndoStep[],
): Promise<void> {
  await run("mkfs.ext4", ["-F", "-q", "-O", "bigalloc", "-C", String(clusterBytes), device]);
  await mkdir(mountPoint, { recursive: true });
  undo.push({ what: `remove ${mountPoint}`, fn: () => removeDir(mountPoint) });
  await run("mount", ["-t", "ext4", device, mountPoint]);
  undo.push({ what: `unmount ${mountPoint}`, fn: () => unmount(mountPoint) });
}

/** ThrottledVolume.setLimits on the cgroup's blkio files, keeping `limits` current. */
function limitSetter(
  cgroup: string,
  majorMinor: string,
  limits: ThrottleLimits,
): (next: Partial<ThrottleLimits>) => Promise<void> {
  return async (next) => {
    for (const [k, file] of [
      ["writeIops", "blkio.throttle.write_iops_device"],
      ["readIops", "blkio.throttle.read_iops_device"],
      ["writeBytesPerSecond", "blkio.throttle.write_bps_device"],
    ] as const) {
      const v = next[k];
      if (v === undefined) continue;
      if (!Number.isInteger(v) || v < 0) throw new Error(`${k} must be an integer ≥ 0`);
      // "MAJ:MIN 0" removes the rule.
      await writeFile(join(cgroup, file), `${majorMinor} ${v}`);
      limits[k] = v;
    }
  };
}

async function readPids(cgroup: string): Promise<number[]> {
  const text = await readFile(join(cgroup, "cgroup.procs"), "utf8").catch(() => "");
  return text.split("\n").filter(Boolean).map(Number);
}

function movePidsSync(cgroup: string, root: string): void {
  let text = "";
  try {
    text = readFileSync(join(cgroup, "cgroup.procs"), "utf8");
  } catch {
    return;
  }
  for (const pid of text.split("\n").filter(Boolean)) {
    try {
      execFileSync("sh", ["-c", `echo ${Number(pid)} > ${join(root, "cgroup.procs")}`], { stdio: "ignore" });
    } catch {
      // gone
    }
  }
}

/** A cgroup with processes cannot be removed: they go back to the root group first (none are killed). */
async function removeCgroup(cgroup: string, root: string): Promise<void> {
  const pids = await readPids(cgroup);
  for (const pid of pids) {
    await writeFile(join(root, "cgroup.procs"), String(pid)).catch(() => undefined);
  }
  await rmdir(cgroup);
  if (pids.length) {
    throw new Error(`processes ${pids.join(", ")} were still in ${cgroup}; moved to the root group`);
  }
}

async function unmount(mountPoint: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await run("umount", [mountPoint]);
      return;
    } catch (err) {
      if (attempt >= 10) {
        // Something still holds a file open: detach lazily so the loop device is released when it closes.
        await run("umount", ["-l", mountPoint]);
        throw new Error(`${mountPoint} was busy (${firstLine(err)}); unmounted lazily`);
      }
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}

async function detach(device: string): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await run("losetup", ["--detach", device]);
      return;
    } catch (err) {
      if (attempt >= 10) throw err;
      await new Promise((r) => setTimeout(r, 200));
    }
  }
}
