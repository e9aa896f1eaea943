import { execFileSync } from "node:child_process";
import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, describe, expect, it } from "vitest";
import { readSuperblock } from "./datadir-storage.js";
import { parseExt4Superblock, SUPERBLOCK_SIZE } from "./ext4-superblock.js";
import { nodeHostFs } from "./host-fs.js";
import { findTool } from "./test-tools.js";

function superblock(logBlock: number, logCluster: number, roCompat: number, magic = 0xef53): Buffer {
  const b = Buffer.alloc(SUPERBLOCK_SIZE);
  b.writeUInt32LE(logBlock, 0x18);
  b.writeUInt32LE(logCluster, 0x1c);
  b.writeUInt16LE(magic, 0x38);
  b.writeUInt32LE(roCompat, 0x64);
  return b;
}

describe("parseExt4Superblock", () => {
  it("reads a bigalloc cluster of 16 KiB on 4 KiB blocks", () => {
    expect(parseExt4Superblock(superblock(2, 4, 0x66b))).toEqual({
      blockSize: 4096,
      clusterSize: 16384,
      bigalloc: true,
    });
  });

  it("uses the block size as the cluster without bigalloc, whatever s_log_cluster_size holds", () => {
    expect(parseExt4Superblock(superblock(2, 0, 0x46b))).toEqual({
      blockSize: 4096,
      clusterSize: 4096,
      bigalloc: false,
    });
    expect(parseExt4Superblock(superblock(0, 7, 0))?.clusterSize).toBe(1024);
  });

  it("rejects a wrong magic, a short buffer and sizes the kernel would not mount", () => {
    expect(parseExt4Superblock(superblock(2, 4, 0x66b, 0x1234))).toBeUndefined();
    expect(parseExt4Superblock(Buffer.alloc(64))).toBeUndefined();
    expect(parseExt4Superblock(superblock(7, 7, 0))).toBeUndefined();
    expect(parseExt4Superblock(superblock(2, 1, 0x200))).toBeUndefined();
    expect(parseExt4Superblock(superblock(2, 21, 0x200))).toBeUndefined();
  });

  it("is undefined through readSuperblock for a file that is not ext or does not exist", async () => {
    expect(await readSuperblock(nodeHostFs, "/proc/self/status")).toBeUndefined();
    expect(await readSuperblock(nodeHostFs, "/nonexistent/device")).toBeUndefined();
  });
});

const mkfs = findTool("mkfs.ext4");
if (!mkfs) console.warn("SKIPPING the mkfs.ext4 image test: mkfs.ext4 not found (Debian package e2fsprogs)");

describe("ext4 image made by mkfs.ext4", () => {
  let dir: string | undefined;
  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it.skipIf(!mkfs)("reads the 16 KiB bigalloc cluster from a real superblock", async () => {
    dir ??= await mkdtemp(join(tmpdir(), "untorn-ext4-"));
    const img = join(dir, "img");
    execFileSync(mkfs!, ["-q", "-F", "-O", "bigalloc", "-C", "16384", img, "64M"], { stdio: "pipe" });
    const sb = await readSuperblock(nodeHostFs, img);
    expect(sb?.bigalloc).toBe(true);
    expect(sb?.clusterSize).toBe(16384);

    // Cross-check the block size with e2fsprogs' own reader (a 64 MiB file system gets 1 KiB blocks).
    const dumpe2fs = findTool("dumpe2fs");
    if (dumpe2fs) {
      const header = execFileSync(dumpe2fs, ["-h", img], {
        encoding: "utf8",
        stdio: ["ignore", "pipe", "ignore"],
      });
      expect(sb?.blockSize).toBe(Number(/^Block size:\s+(\d+)/m.exec(header)?.[1]));
      expect(sb?.clusterSize).toBe(Number(/^Cluster size:\s+(\d+)/m.exec(header)?.[1]));
    }
  });

  it.skipIf(!mkfs)("reads the block size as the cluster size without bigalloc", async () => {
    dir ??= await mkdtemp(join(tmpdir(), "untorn-ext4-"));
    const img = join(dir, "plain");
    execFileSync(mkfs!, ["-q", "-F", "-b", "4096", img, "16M"], { stdio: "pipe" });
    expect(await readSuperblock(nodeHostFs, img)).toEqual({
      blockSize: 4096,
      clusterSize: 4096,
      bigalloc: false,
    });
  });
});
