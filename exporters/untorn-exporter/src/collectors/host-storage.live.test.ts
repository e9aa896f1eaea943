import { execFileSync } from "node:child_process";
import { closeSync, constants, existsSync, openSync, readdirSync, readFileSync } from "node:fs";
import { mkdtemp, open, readFile, realpath, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { basename, join } from "node:path";
import { fileURLToPath } from "node:url";
import { metrics } from "@untorn/catalog/metrics";
import { Registry } from "prom-client";
import { afterAll, describe, expect, it } from "vitest";
import { type Collector, Emitter, type HostPaths, type ServerFacts } from "../collector.js";
import { probeDatadir } from "../host/datadir-storage.js";
import { FixtureHostFs } from "../host/fixture-fs.js";
import { nodeHostFs } from "../host/host-fs.js";
import { findTool } from "../host/test-tools.js";
import { createHostStorage, hostStorage } from "./host-storage.js";

const TESTDATA = fileURLToPath(new URL("../../testdata/host", import.meta.url));
const CASES = readdirSync(TESTDATA).sort();
const UPDATE = process.env["UPDATE_GOLDEN"] === "1";

function hostPaths(root: string): HostPaths {
  return { root, proc: join(root, "proc"), sys: join(root, "sys"), dev: join(root, "dev") };
}

function server(datadir: string): ServerFacts {
  return {
    flavor: "mariadb",
    version: "10.11.19-MariaDB-0+deb12u1",
    versionNumber: [10, 11, 19],
    versionComment: "Debian 12",
    datadir,
    pageSize: 16384,
    performanceSchema: true,
  };
}

/** Runs one collection into a fresh registry, as a scrape does, and returns the exposition text. */
async function scrape(collector: Collector, datadir: string, host: HostPaths): Promise<string> {
  const registry = new Registry();
  await collector.collect({
    db: { query: () => Promise.reject(new Error("host.storage must not query the server")) },
    server: server(datadir),
    emit: new Emitter(registry),
    host,
    signal: new AbortController().signal,
    memory: new Map(),
  });
  return registry.metrics();
}

/** The value of an unlabelled sample, or of the first sample of a labelled metric. */
function sample(text: string, name: string): number | undefined {
  const m = new RegExp(`^${name}(?:\\{[^}]*\\})? (\\S+)$`, "m").exec(text);
  return m ? Number(m[1]) : undefined;
}

function infoLabels(text: string): Record<string, string> {
  const m = /^untorn_host_storage_info\{(.*)\} 1$/m.exec(text);
  if (!m) throw new Error(`no info series in:\n${text}`);
  return Object.fromEntries([...m[1]!.matchAll(/(\w+)="((?:[^"\\]|\\.)*)"/g)].map((x) => [x[1]!, x[2]!]));
}

function canOpen(path: string): boolean {
  try {
    closeSync(openSync(path, constants.O_RDONLY | constants.O_NONBLOCK));
    return true;
  } catch {
    return false;
  }
}

const promtool = existsSync("/usr/bin/promtool") ? "/usr/bin/promtool" : findTool("promtool");

describe("host.storage golden files (testdata/host/<case>)", () => {
  it("has the fixture cases the collector must handle", () => {
    expect(CASES.length).toBeGreaterThanOrEqual(7);
  });

  it.each(CASES)("%s", async (name) => {
    const dir = join(TESTDATA, name);
    const fs = await FixtureHostFs.load(dir);
    const collector = createHostStorage(fs);
    const run = scrape(collector, fs.spec.datadir, hostPaths(fs.spec.root));
    const golden = join(dir, "expected.prom");
    if (fs.spec.expectError) {
      await expect(run).rejects.toThrow(fs.spec.expectError);
      expect(existsSync(golden)).toBe(false);
      return;
    }
    const text = await run;
    if (UPDATE) await writeFile(golden, text);
    expect(text).toBe(await readFile(golden, "utf8"));
  });

  it("passes promtool check metrics for every golden file", () => {
    if (!promtool) {
      throw new Error("promtool not found at /usr/bin/promtool: install the Debian package 'prometheus'");
    }
    const goldens = CASES.map((c) => join(TESTDATA, c, "expected.prom")).filter((p) => existsSync(p));
    expect(goldens.length).toBeGreaterThanOrEqual(7);
    for (const file of goldens) {
      const input = readFileSync(file, "utf8");
      // Non-zero exit (lint problems or a parse error) throws with promtool's message.
      execFileSync(promtool, ["check", "metrics"], { input, stdio: ["pipe", "pipe", "pipe"] });
    }
  });
});

describe("host.storage on the fixtures: the facts the goldens must keep", () => {
  const run = async (name: string) => {
    const fs = await FixtureHostFs.load(join(TESTDATA, name));
    return scrape(createHostStorage(fs), fs.spec.datadir, hostPaths(fs.spec.root));
  };
  const ATOMIC_LIMITS = [
    metrics.storageAtomicWriteUnitMin,
    metrics.storageAtomicWriteUnitMax,
    metrics.storageAtomicWriteMax,
    metrics.storageAtomicWriteBoundary,
  ].map((d) => d.name);

  it("old kernel: attributes absent, so present 0 and no limit series; no flush counters in a 15-field stat", async () => {
    const text = await run("virtio-partition-ext4-old-kernel");
    expect(infoLabels(text)).toMatchObject({ device: "vda1", disks: "vda", fstype: "ext4", mountpoint: "/" });
    expect(sample(text, metrics.storageAtomicWriteSupported.name)).toBe(0);
    for (const n of ATOMIC_LIMITS) expect(sample(text, n)).toBeUndefined();
    expect(sample(text, metrics.storageFlushes.name)).toBeUndefined();
    // Counters are the partition's, queue limits the disk's.
    expect(sample(text, metrics.storageWrites.name)).toBe(119870);
    expect(sample(text, metrics.storageWrittenBytes.name)).toBe(9810040 * 512);
    expect(sample(text, metrics.storageFsClusterSize.name)).toBe(4096);
    // The partition starts at sector 2048 (1 MiB, 16 KiB-aligned); max_sectors_kb 1280 of the disk.
    expect(sample(text, metrics.storagePartitionStart.name)).toBe(1024 * 1024);
    expect(sample(text, metrics.storageMaxIoBytes.name)).toBe(1280 * 1024);
  });

  it("NVMe with 16 KiB atomic writes on ext4 bigalloc 16K", async () => {
    const text = await run("nvme-ext4-bigalloc-16k");
    expect(infoLabels(text)).toMatchObject({
      device: "nvme1n1",
      disks: "nvme1n1",
      model: "Amazon Elastic Block Store",
    });
    expect(sample(text, metrics.storageAtomicWriteSupported.name)).toBe(1);
    expect(sample(text, metrics.storageAtomicWriteUnitMax.name)).toBe(16384);
    expect(sample(text, metrics.storageFsBlockSize.name)).toBe(4096);
    expect(sample(text, metrics.storageFsClusterSize.name)).toBe(16384);
    expect(sample(text, metrics.storageWriteCache.name)).toBe(0);
    expect(sample(text, metrics.storageFlushSeconds.name)).toBe(98.12);
  });

  it("attributes present but 0: present 1 and the zeros", async () => {
    const text = await run("virtio-atomic-zero");
    expect(sample(text, metrics.storageAtomicWriteSupported.name)).toBe(1);
    for (const n of ATOMIC_LIMITS) expect(sample(text, n)).toBe(0);
  });

  it("LVM over two partitions: dm-0's own counters, both whole disks and their models", async () => {
    const text = await run("lvm-over-two-partitions");
    expect(infoLabels(text)).toMatchObject({
      device: "dm-0",
      disks: "sdb,sdc",
      model: "SAMSUNG MZ7LH960,INTEL SSDSC2KB96",
      mount_options: "rw,noatime,stripe=16",
    });
    expect(sample(text, metrics.storageWrites.name)).toBe(845000);
    // The superblock is EACCES: no cluster size, but statfs still gives the block size.
    expect(sample(text, metrics.storageFsClusterSize.name)).toBeUndefined();
    expect(sample(text, metrics.storageFsBlockSize.name)).toBe(4096);
  });

  it("loop device: its own queue and counters, disks from the backing file", async () => {
    const text = await run("loop-backing-file");
    expect(infoLabels(text)).toMatchObject({ device: "loop0", disks: "vda", mountpoint: "/mnt/untorn" });
    expect(sample(text, metrics.storageFsClusterSize.name)).toBe(16384);
    expect(sample(text, metrics.storageIoInProgress.name)).toBe(4);
  });

  it("XFS on an NVMe partition: the namespace's limits, no cluster size", async () => {
    const text = await run("xfs-nvme-partition");
    expect(infoLabels(text)).toMatchObject({ device: "nvme0n1p3", disks: "nvme0n1", fstype: "xfs" });
    expect(sample(text, metrics.storageAtomicWriteUnitMax.name)).toBe(512);
    expect(sample(text, metrics.storageFsClusterSize.name)).toBeUndefined();
  });

  it("a space in the path, a bind mount, a symlink, btrfs, tmpfs and a container root", async () => {
    expect(infoLabels(await run("datadir-with-space"))).toMatchObject({
      device: "sdb1",
      mountpoint: "/srv/my data",
      model: "QEMU HARDDISK",
    });
    expect(infoLabels(await run("bind-mount"))).toMatchObject({
      device: "sdb1",
      mountpoint: "/var/lib/mysql",
    });
    expect(infoLabels(await run("symlinked-datadir"))).toMatchObject({ device: "sdb1", mountpoint: "/data" });
    const btrfs = await run("btrfs-nodatacow");
    expect(infoLabels(btrfs)).toMatchObject({ device: "sdb", fstype: "btrfs" });
    expect(infoLabels(btrfs)["mount_options"]).toContain("nodatacow");
    const tmpfs = await run("tmpfs");
    expect(infoLabels(tmpfs)).toMatchObject({ device: "", disks: "", fstype: "tmpfs" });
    expect(sample(tmpfs, metrics.storageAtomicWriteSupported.name)).toBeUndefined();
    expect(sample(tmpfs, metrics.storageWrites.name)).toBeUndefined();
    expect(infoLabels(await run("container-host-root"))).toMatchObject({
      device: "sdb1",
      mountpoint: "/data",
      mount_options: "ro,noatime",
    });
  });

  it("a datadir this host does not have: datadir_visible 0 and nothing else", async () => {
    const text = await run("datadir-missing");
    expect(sample(text, metrics.storageDatadirVisible.name)).toBe(0);
    expect(text.match(/^untorn_/gm)).toHaveLength(1);
  });
});

describe("host.storage on this machine", () => {
  const dirs: string[] = [];
  afterAll(async () => {
    for (const d of dirs) await rm(d, { recursive: true, force: true });
  });
  const root = hostPaths("/");

  it("finds the device findmnt and stat(1) report for a temp dir, and its write counters grow after fsync", async () => {
    const dir = await mkdtemp(join(tmpdir(), "untorn-host-storage-"));
    dirs.push(dir);
    const findmnt = execFileSync("findmnt", ["-no", "MAJ:MIN", "--target", dir], { encoding: "utf8" }).trim();
    const statDev = execFileSync("stat", ["-c", "%Hd:%Ld", dir], { encoding: "utf8" }).trim();
    expect(statDev).toBe(findmnt);
    const probe = await probeDatadir(nodeHostFs, root, dir);
    expect(probe.visible && `${probe.mount.major}:${probe.mount.minor}`).toBe(findmnt);

    const before = await scrape(hostStorage, dir, root);
    expect(sample(before, metrics.storageDatadirVisible.name)).toBe(1);
    const info = infoLabels(before);
    const sysLink = `/sys/dev/block/${findmnt}`;
    if (!existsSync(sysLink)) {
      console.warn(
        `SKIPPING write counters: ${tmpdir()} is on ${findmnt}, not a block device (tmpfs, overlay?)`,
      );
      expect(info["device"]).toBe("");
      return;
    }
    expect(info["device"]).toBe(basename(await realpath(sysLink)));
    expect(probe.visible && probe.device?.devno).toBe(findmnt);
    // On ext4 the cluster size is there exactly when the device node opens (root or group disk, and no
    // device cgroup or sandbox refusing it: access(2) alone is not enough).
    const node = probe.visible && probe.device ? `/dev/${probe.device.devName}` : "";
    if (info["fstype"] === "ext4" && node !== "") {
      const cluster = sample(before, metrics.storageFsClusterSize.name);
      if (canOpen(node)) expect(cluster).toBeGreaterThanOrEqual(1024);
      else expect(cluster).toBeUndefined();
    }
    const writes = sample(before, metrics.storageWrites.name);
    const written = sample(before, metrics.storageWrittenBytes.name);
    expect(writes).toBeGreaterThanOrEqual(0);
    expect(written).toBeGreaterThanOrEqual(0);

    const fh = await open(join(dir, "payload"), "w");
    try {
      await fh.write(Buffer.alloc(1 << 20, 0x5a));
      await fh.sync();
    } finally {
      await fh.close();
    }
    const after = await scrape(hostStorage, dir, root);
    expect(sample(after, metrics.storageWrites.name)).toBeGreaterThan(writes!);
    expect(sample(after, metrics.storageWrittenBytes.name)).toBeGreaterThanOrEqual(written! + (1 << 20));
  });

  it("reports a datadir that is not there as not visible", async () => {
    const text = await scrape(hostStorage, "/nonexistent/untorn/datadir/", root);
    expect(text).toContain(`${metrics.storageDatadirVisible.name} 0`);
    expect(text.match(/^untorn_/gm)).toHaveLength(1);
  });
});
