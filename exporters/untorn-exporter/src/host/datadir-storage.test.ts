import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import type { HostPaths } from "../collector.js";
import { probeDatadir } from "./datadir-storage.js";
import { FixtureHostFs } from "./fixture-fs.js";
import type { HostFs } from "./host-fs.js";

const fixture = (name: string) =>
  FixtureHostFs.load(fileURLToPath(new URL(`../../testdata/host/${name}`, import.meta.url)));
const HOST: HostPaths = { root: "/", proc: "/proc", sys: "/sys", dev: "/dev" };
const errno = (code: string) => Object.assign(new Error(`${code}: fake`), { code });

/** A HostFs that answers like inner except where override says otherwise. */
function patched(inner: HostFs, override: Partial<HostFs>): HostFs {
  return {
    readText: (p, s) => inner.readText(p, s),
    realpath: (p) => inner.realpath(p),
    readlink: (p) => inner.readlink(p),
    readdir: (p) => inner.readdir(p),
    statfs: (p) => inner.statfs(p),
    readBytes: (p, o, l) => inner.readBytes(p, o, l),
    ...override,
  };
}

describe("probeDatadir", () => {
  it("follows the datadir to mount, device, disks, queue, counters and superblock", async () => {
    const s = await probeDatadir(await fixture("nvme-ext4-bigalloc-16k"), HOST, "/var/lib/mysql/");
    expect(s.visible).toBe(true);
    if (!s.visible) return;
    expect(s.path).toBe("/var/lib/mysql");
    expect(s.mount.mountPoint).toBe("/var/lib/mysql");
    expect(s.device?.name).toBe("nvme1n1");
    expect(s.queueDevice).toBe("nvme1n1");
    expect(s.ext4).toEqual({ blockSize: 4096, clusterSize: 16384, bigalloc: true });
    expect(s.stat?.writesCompleted).toBe(20811342);
  });

  it("is not visible (no error) when the datadir does not exist, without reading mountinfo", async () => {
    const base = await fixture("datadir-missing");
    const read: string[] = [];
    const fs = patched(base, {
      readText: (p, sig) => {
        read.push(p);
        return base.readText(p, sig);
      },
    });
    expect(await probeDatadir(fs, HOST, "/var/lib/mysql/")).toEqual({
      visible: false,
      path: "/var/lib/mysql/",
    });
    expect(await probeDatadir(fs, HOST, "/var/lib/.keep/mysql")).toMatchObject({ visible: false });
    expect(read).toEqual([]);
  });

  it("throws for a relative datadir and for a datadir it may not resolve", async () => {
    const fs = await fixture("virtio-atomic-zero");
    await expect(probeDatadir(fs, HOST, "")).rejects.toThrow(/not an absolute path/);
    await expect(probeDatadir(fs, HOST, "var/lib/mysql")).rejects.toThrow(/not an absolute path/);
    const denied = patched(fs, { realpath: () => Promise.reject(errno("EACCES")) });
    await expect(probeDatadir(denied, HOST, "/var/lib/mysql/")).rejects.toThrow(/cannot resolve the datadir/);
  });

  it("throws a clear error when mountinfo is missing, garbage, or covers nothing", async () => {
    const fs = await fixture("virtio-atomic-zero");
    await expect(probeDatadir(fs, { ...HOST, proc: "/nowhere" }, "/var/lib/mysql/")).rejects.toThrow(
      /cannot read \/nowhere\/self\/mountinfo/,
    );
    const broken = await fixture("mountinfo-broken");
    await expect(probeDatadir(broken, HOST, "/var/lib/mysql/")).rejects.toThrow(
      "/proc/self/mountinfo has no mountinfo lines (2 malformed)",
    );
    const noRoot = patched(fs, { readText: async () => "30 1 8:1 / /srv rw - ext4 /dev/sda1 rw\n" });
    await expect(probeDatadir(noRoot, HOST, "/var/lib/mysql/")).rejects.toThrow(/no mount .* contains/);
  });

  it("reports the file system but no device when sysfs is missing entirely", async () => {
    const s = await probeDatadir(
      await fixture("virtio-atomic-zero"),
      { ...HOST, sys: "/nosys" },
      "/var/lib/mysql",
    );
    expect(s).toMatchObject({ visible: true, disks: [], models: [], fsBlockSize: 4096 });
    if (!s.visible) return;
    expect(s.mount.fsType).toBe("ext4");
    expect(s.device).toBeUndefined();
    expect(s.queue).toBeUndefined();
    expect(s.stat).toBeUndefined();
  });

  it("falls back to the superblock's block size when statfs fails", async () => {
    const fs = patched(await fixture("loop-backing-file"), { statfs: () => Promise.reject(errno("EIO")) });
    const s = await probeDatadir(fs, HOST, "/mnt/untorn/mysql/");
    expect(s).toMatchObject({ visible: true, fsBlockSize: 4096, ext4: { clusterSize: 16384 } });
  });

  it("gives up when the scrape is aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expect(
      probeDatadir(await fixture("virtio-atomic-zero"), HOST, "/var/lib/mysql/", controller.signal),
    ).rejects.toThrow();
  });
});

describe("FixtureHostFs", () => {
  it("maps host paths into the tree and back, and refuses relative paths", async () => {
    const fs = await fixture("lvm-over-two-partitions");
    expect(await fs.realpath("/sys/dev/block/252:0")).toBe("/sys/devices/virtual/block/dm-0");
    expect(await fs.realpath("/sys/devices/virtual/block/dm-0/slaves/sdb1")).toMatch(/\/block\/sdb\/sdb1$/);
    await expect(fs.readText("proc/self/mountinfo")).rejects.toMatchObject({ code: "ENOENT" });
    await expect(fs.readBytes("/dev/dm-0", 1024, 1024)).rejects.toMatchObject({ code: "EACCES" });
    await expect(fs.statfs("/elsewhere")).rejects.toMatchObject({ code: "ENOTSUP" });
  });
});
