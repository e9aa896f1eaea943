import { execFile } from "node:child_process";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { basename, dirname } from "node:path";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { startMariaDb } from "./mariadb.js";
import { blkioRoot, createThrottledVolume, throttleAvailable, zramAvailable } from "./throttle.js";

const run = promisify(execFile);

const unavailable = await throttleAvailable();
if (unavailable) console.warn(`SKIPPING throttled volume tests: ${unavailable}`);
const skipNote = unavailable ? ` (SKIPPED: ${unavailable})` : "";

describe("blkioRoot", () => {
  it("finds the cgroup v1 blkio mount and nothing on a cgroup v2-only system", () => {
    const v1 = [
      "cgroup /sys/fs/cgroup/cpu cgroup rw,relatime,cpu 0 0",
      "cgroup /sys/fs/cgroup/blkio cgroup rw,nosuid,relatime,blkio 0 0",
      "cgroup2 /sys/fs/cgroup/unified cgroup2 rw,relatime 0 0",
    ].join("\n");
    expect(blkioRoot(v1)).toBe("/sys/fs/cgroup/blkio");
    expect(blkioRoot("cgroup2 /sys/fs/cgroup cgroup2 rw,nosuid 0 0\n")).toBeUndefined();
  });
});

const diskWrites = (device: string): number =>
  Number(
    readFileSync(`/sys/block/${basename(device)}/stat`, "utf8")
      .trim()
      .split(/\s+/)[4],
  );

// Only this process's: other test runs on the machine may create volumes meanwhile.
const ownCgroups = (): string[] =>
  readdirSync(blkioRoot()!).filter((n) => n.startsWith(`untorn-${process.pid}-`));
const ownLoopImages = async (): Promise<string[]> =>
  (await run("losetup", ["--list", "--noheadings", "--output", "BACK-FILE"])).stdout
    .split("\n")
    .filter((l) => l.includes(`untorn-throttle-${process.pid}-`));

describe.skipIf(Boolean(unavailable))(`throttled volume${skipNote}`, () => {
  it("caps write bandwidth", async () => {
    const v = await createThrottledVolume({
      writeBytesPerSecond: 4 * 1024 * 1024,
      meterKiB: 256,
      sizeMiB: 256,
    });
    try {
      expect(readFileSync(`${v.cgroup}/blkio.throttle.write_bps_device`, "utf8")).toContain(
        `${v.majorMinor} ${4 * 1024 * 1024}`,
      );
      expect(v.limits).toMatchObject({ writeIops: 0, writeBytesPerSecond: 4 * 1024 * 1024 });
      const started = Date.now();
      // 16 MiB of O_DIRECT writes at 4 MiB/s, started inside the cgroup.
      await run(v.spawnPrefix[0]!, [
        ...v.spawnPrefix.slice(1),
        "dd",
        "if=/dev/zero",
        `of=${v.mountPoint}/f`,
        "bs=1M",
        "count=16",
        "oflag=direct",
      ]);
      // 4 s at the cap; the throttle allows a short burst.
      expect((Date.now() - started) / 1000).toBeGreaterThan(2);
      await v.setLimits({ writeBytesPerSecond: 0 });
      expect(readFileSync(`${v.cgroup}/blkio.throttle.write_bps_device`, "utf8")).not.toContain(v.majorMinor);
    } finally {
      await v.destroy();
    }
  });

  it("meters every 16 KiB against the write cap and tears everything down", async () => {
    const v = await createThrottledVolume({ writeIops: 100, meterKiB: 16, sizeMiB: 256 });
    try {
      expect(readFileSync(`/sys/block/${basename(v.device)}/queue/max_sectors_kb`, "utf8").trim()).toBe("16");
      const fs = (await run("tune2fs", ["-l", v.device])).stdout;
      expect(fs).toMatch(/Cluster size:\s+16384/);
      expect(readFileSync("/proc/mounts", "utf8")).toContain(` ${v.mountPoint} ext4 `);
      expect(readFileSync(`${v.cgroup}/blkio.throttle.write_iops_device`, "utf8")).toContain(
        `${v.majorMinor} 100`,
      );

      const before = diskWrites(v.device);
      const started = Date.now();
      // 20 O_DIRECT writes of 256 KiB = 320 pieces of 16 KiB, started inside the cgroup.
      await run(v.spawnPrefix[0]!, [
        ...v.spawnPrefix.slice(1),
        "dd",
        "if=/dev/zero",
        `of=${v.mountPoint}/f`,
        "bs=256k",
        "count=20",
        "oflag=direct",
      ]);
      const seconds = (Date.now() - started) / 1000;
      expect(diskWrites(v.device) - before).toBeGreaterThanOrEqual(320);
      // 320 charged I/Os at 100/s cannot finish in much under 3 s (the throttle allows a short burst).
      expect(seconds).toBeGreaterThan(1.5);

      await v.setLimits({ writeIops: 0 });
      expect(readFileSync(`${v.cgroup}/blkio.throttle.write_iops_device`, "utf8")).not.toContain(
        v.majorMinor,
      );
    } finally {
      await v.destroy();
    }
    expect(readFileSync("/proc/mounts", "utf8")).not.toContain(v.mountPoint);
    expect(existsSync(v.cgroup)).toBe(false);
    expect(existsSync(v.image)).toBe(false);
    expect(existsSync(dirname(v.mountPoint))).toBe(false);
    expect((await ownLoopImages()).join("\n")).not.toContain(v.image);
    await v.destroy(); // twice is fine
  });

  it("counts a 256 KiB request as one I/O with meterKiB 256", async () => {
    const v = await createThrottledVolume({ writeIops: 1000, meterKiB: 256, sizeMiB: 128 });
    try {
      const before = diskWrites(v.device);
      await run("dd", ["if=/dev/zero", `of=${v.mountPoint}/f`, "bs=256k", "count=20", "oflag=direct"]);
      const writes = diskWrites(v.device) - before;
      expect(writes).toBeGreaterThanOrEqual(20);
      expect(writes).toBeLessThan(60);
    } finally {
      await v.destroy();
    }
  });

  it("undoes every step when creation fails half-way", async () => {
    const cgroups = ownCgroups();
    const loops = await ownLoopImages();
    await expect(createThrottledVolume({ meterKiB: 1 << 30, sizeMiB: 64 })).rejects.toThrow(
      /max_hw_sectors_kb/,
    );
    expect(ownCgroups()).toEqual(cgroups);
    expect(await ownLoopImages()).toEqual(loops);
  });

  it("starts mariadbd inside the cgroup with its datadir on the volume", async () => {
    const v = await createThrottledVolume({ writeIops: 2000, sizeMiB: 512 });
    try {
      const db = await startMariaDb({
        datadirParent: v.mountPoint,
        spawnPrefix: v.spawnPrefix,
        bufferPoolSize: "16M",
      });
      try {
        expect(await v.pids()).toContain(db.pid);
        const [row] = await db.query<{ d: string }>("SELECT @@datadir AS d");
        expect(String(row?.d)).toContain(v.mountPoint);
        await db.restart({ doublewrite: false });
        expect(await v.pids()).toContain(db.pid);
      } finally {
        await db.destroy();
      }
      expect(await v.pids()).toEqual([]);
    } finally {
      await v.destroy();
    }
  });
});

const noZram = await zramAvailable();
if (noZram) console.warn(`SKIPPING zram-backed throttled volume tests: ${noZram}`);

describe.skipIf(Boolean(noZram))(
  `zram-backed throttled volume${noZram ? ` (SKIPPED: ${noZram})` : ""}`,
  () => {
    it("is a whole disk of its own with ext4 bigalloc, meters writes, and is removed on destroy", async () => {
      const v = await createThrottledVolume({ backing: "zram", writeIops: 100, sizeMiB: 256 });
      const name = basename(v.device);
      try {
        expect(v.device).toMatch(/^\/dev\/zram\d+$/);
        expect(v.image).toBe("");
        // Nothing between the file system and the disk: no partition, no holders, no slaves.
        expect(readdirSync(`/sys/block/${name}/slaves`)).toEqual([]);
        expect((await run("tune2fs", ["-l", v.device])).stdout).toMatch(/Cluster size:\s+16384/);
        expect(readFileSync("/proc/mounts", "utf8")).toContain(`${v.device} ${v.mountPoint} ext4 `);
        const started = Date.now();
        await run(v.spawnPrefix[0]!, [
          ...v.spawnPrefix.slice(1),
          "dd",
          "if=/dev/zero",
          `of=${v.mountPoint}/f`,
          "bs=16k",
          "count=320",
          "oflag=direct",
        ]);
        // 320 writes at 100/s: not in much under 3 s (the throttle allows a short burst).
        expect((Date.now() - started) / 1000).toBeGreaterThan(1.5);
      } finally {
        await v.destroy();
      }
      expect(existsSync(`/sys/block/${name}`)).toBe(false);
      expect(readFileSync("/proc/mounts", "utf8")).not.toContain(v.mountPoint);
      expect(existsSync(v.cgroup)).toBe(false);
    });
  },
);
