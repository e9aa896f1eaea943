import { basename } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { deviceByDevno, deviceByName, deviceBySource, wholeDisks } from "./block-device.js";
import { FixtureHostFs } from "./fixture-fs.js";
import type { HostFs } from "./host-fs.js";
import { readQueue } from "./queue.js";

const fixture = (name: string) =>
  FixtureHostFs.load(fileURLToPath(new URL(`../../testdata/host/${name}`, import.meta.url)));

describe("sysfs block device topology", () => {
  it("resolves MAJ:MIN of a partition to its parent disk", async () => {
    const fs = await fixture("virtio-partition-ext4-old-kernel");
    const dev = await deviceByDevno(fs, "/sys", 252, 1);
    expect(dev).toEqual({ name: "vda1", devno: "252:1", devName: "vda1", parent: "vda", slaves: [] });
    expect(await wholeDisks(fs, "/sys", dev!)).toEqual(["vda"]);
    expect(await deviceByDevno(fs, "/sys", 252, 9)).toBeUndefined();
  });

  it("follows device-mapper slaves down to the whole disks", async () => {
    const fs = await fixture("lvm-over-two-partitions");
    const dm = await deviceByDevno(fs, "/sys", 252, 0);
    expect(dm).toMatchObject({ name: "dm-0", dmName: "vg_data-mysql", slaves: ["sdb1", "sdc1"] });
    expect(dm?.parent).toBeUndefined();
    expect(await wholeDisks(fs, "/sys", dm!)).toEqual(["sdb", "sdc"]);
  });

  it("finds a device from a mount source: /dev/mapper/<name> and /dev/<name>", async () => {
    const lvm = await fixture("lvm-over-two-partitions");
    expect((await deviceBySource(lvm, "/sys", "/dev/mapper/vg_data-mysql"))?.name).toBe("dm-0");
    expect(await deviceBySource(lvm, "/sys", "/dev/mapper/vg_other-lv")).toBeUndefined();
    expect((await deviceBySource(lvm, "/sys", "/dev/sdc1"))?.parent).toBe("sdc");
    expect(await deviceBySource(lvm, "/sys", "tmpfs")).toBeUndefined();
    expect(await deviceByName(lvm, "/sys", "../../etc")).toBeUndefined();
  });

  it("reads a loop device's backing file and asks the resolver for the disks under it", async () => {
    const fs = await fixture("loop-backing-file");
    const loop = await deviceByDevno(fs, "/sys", 7, 0);
    expect(loop?.backingFile).toBe("/srv/untorn/volume.img");
    const vda = await deviceByName(fs, "/sys", "vda");
    const asked: string[] = [];
    const disks = await wholeDisks(fs, "/sys", loop!, async (file) => {
      asked.push(file);
      return vda;
    });
    expect(asked).toEqual(["/srv/untorn/volume.img"]);
    expect(disks).toEqual(["vda"]);
    // Without a resolver, or when it fails, the loop device is the bottom of what can be seen.
    expect(await wholeDisks(fs, "/sys", loop!)).toEqual(["loop0"]);
    expect(await wholeDisks(fs, "/sys", loop!, () => Promise.reject(new Error("gone")))).toEqual(["loop0"]);
  });

  it("stops on a cycle of slaves", async () => {
    const enoent = () => Promise.reject(Object.assign(new Error("ENOENT"), { code: "ENOENT" }));
    const cyclic: HostFs = {
      realpath: async (p) => `/sys/devices/virtual/block/${basename(p)}`,
      readText: enoent,
      readlink: enoent,
      readdir: async (p) => (p.endsWith("md0/slaves") ? ["md1"] : p.endsWith("md1/slaves") ? ["md0"] : []),
      statfs: enoent,
      readBytes: enoent,
    };
    const md0 = await deviceByName(cyclic, "/sys", "md0");
    expect(md0?.slaves).toEqual(["md1"]);
    expect(await wholeDisks(cyclic, "/sys", md0!)).toEqual([]);
  });
});

describe("readQueue", () => {
  it("tells absent atomic attributes (pre-6.11) from zeros and from real limits", async () => {
    const old = await readQueue(await fixture("virtio-partition-ext4-old-kernel"), "/sys/block/vda");
    expect(old).toEqual({
      logicalBlockSize: 512,
      physicalBlockSize: 512,
      rotational: 1,
      writeCacheVolatile: 1,
      maxIoBytes: 1280 * 1024,
    });
    expect((await readQueue(await fixture("virtio-atomic-zero"), "/sys/block/vda"))?.atomic).toEqual({
      unitMin: 0,
      unitMax: 0,
      max: 0,
      boundary: 0,
    });
    expect((await readQueue(await fixture("nvme-ext4-bigalloc-16k"), "/sys/block/nvme1n1"))?.atomic).toEqual({
      unitMin: 512,
      unitMax: 16384,
      max: 16384,
      boundary: 0,
    });
  });

  it("is undefined when queue/ cannot be listed, and skips one unreadable attribute", async () => {
    const fs = await fixture("nvme-ext4-bigalloc-16k");
    expect(await readQueue(fs, "/sys/block/nvme9n9")).toBeUndefined();
    const flaky: HostFs = {
      readText: (p, s) =>
        p.endsWith("/atomic_write_unit_max_bytes")
          ? Promise.reject(Object.assign(new Error("EACCES"), { code: "EACCES" }))
          : fs.readText(p, s),
      realpath: (p) => fs.realpath(p),
      readlink: (p) => fs.readlink(p),
      readdir: (p) => fs.readdir(p),
      statfs: (p) => fs.statfs(p),
      readBytes: (p, o, l) => fs.readBytes(p, o, l),
    };
    const q = await readQueue(flaky, "/sys/block/nvme1n1");
    expect(q?.atomic).toEqual({ unitMin: 512, max: 16384, boundary: 0 });
    expect(q?.logicalBlockSize).toBe(512);
  });
});
