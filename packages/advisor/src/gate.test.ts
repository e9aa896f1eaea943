import { describe, expect, it } from "vitest";
import { capabilitiesFor } from "./capabilities.js";
import type { InstanceFacts } from "./facts.js";
import {
  alibaba,
  atomicNvme,
  aurora,
  btrfs,
  ebsNoBigalloc,
  ebsTwp,
  facts,
  hdd,
  mariadb114,
  merge,
  mysql8025,
  mysql8035,
  type Part,
  rds,
  virtio,
  virtioOldKernel,
  xfsAtomic,
  zfs16k,
  zfs128k,
} from "./fixtures/build.js";
import { DEMO_ONLY_NOTE, evaluateGate, type GateStatus } from "./gate.js";

const gate = (f: InstanceFacts) => evaluateGate(f, capabilitiesFor(f));
const off = { config: { doublewrite: "off" } };

/** name, parts, status, the check that decides and its status. */
const table: readonly [string, Part[], GateStatus, string, string][] = [
  ["atomic NVMe, ext4 bigalloc 16K, whole disk, O_DIRECT", [atomicNvme], "verified", "atomic-unit", "pass"],
  ["EBS torn-write prevention, bigalloc, aligned partition", [ebsTwp], "verified", "atomic-unit", "pass"],
  ["ZFS recordsize 16K", [zfs16k], "verified", "zfs-recordsize", "pass"],
  ["ZFS recordsize 128K", [zfs128k], "unverified", "zfs-recordsize", "not-established"],
  [
    "ZFS recordsize unknown",
    [zfs16k, { storage: { zfsRecordsizeBytes: null } }],
    "unverified",
    "zfs-recordsize",
    "unknown",
  ],
  ["virtio: device reports atomic unit 0", [virtio], "unsafe", "atomic-unit", "fail"],
  ["old kernel: atomic limits unknown, ext4 4K", [virtioOldKernel], "unsafe", "atomic-unit", "unknown"],
  [
    "old kernel, bigalloc: nothing wrong, nothing proven",
    [virtioOldKernel, { storage: { fsClusterSizeBytes: 16384 } }],
    "unverified",
    "atomic-unit",
    "unknown",
  ],
  ["EBS TWP but ext4 4K allocation", [ebsNoBigalloc], "unsafe", "fs-allocation", "fail"],
  [
    "buffered I/O on atomic NVMe",
    [atomicNvme, { config: { flushMethod: "fsync" } }],
    "unsafe",
    "direct-io",
    "fail",
  ],
  [
    "flush method unknown",
    [atomicNvme, { config: { flushMethod: null } }],
    "unverified",
    "direct-io",
    "unknown",
  ],
  [
    "MariaDB 11 data_file_buffering=OFF counts as O_DIRECT",
    [atomicNvme, mariadb114],
    "verified",
    "direct-io",
    "pass",
  ],
  [
    "32K pages on a 16K unit",
    [atomicNvme, { config: { pageSizeBytes: 32768 } }],
    "unsafe",
    "atomic-unit",
    "fail",
  ],
  [
    "page size unknown",
    [atomicNvme, { config: { pageSizeBytes: null } }],
    "unverified",
    "page-size-known",
    "unknown",
  ],
  [
    "device boundary 8K inside a 16K page",
    [atomicNvme, { storage: { atomicWrite: { unitMaxBytes: 65536, boundaryBytes: 8192 } } }],
    "unsafe",
    "atomic-boundary",
    "fail",
  ],
  [
    "LVM start aligned to 4K only",
    [ebsTwp, { storage: { layers: ["partition", "lvm"], dataOffsetAlignmentBytes: 4096 } }],
    "unsafe",
    "alignment",
    "fail",
  ],
  [
    "partition alignment unknown",
    [ebsTwp, { storage: { dataOffsetAlignmentBytes: null } }],
    "unverified",
    "alignment",
    "unknown",
  ],
  [
    "md RAID between fs and disks",
    [atomicNvme, { storage: { layers: ["md-raid"] } }],
    "unverified",
    "alignment",
    "not-established",
  ],
  [
    "max I/O below the page size",
    [atomicNvme, { storage: { maxIoBytes: 8192 } }],
    "unsafe",
    "no-split",
    "fail",
  ],
  [
    "max I/O unknown is not blocking",
    [atomicNvme, { storage: { maxIoBytes: null } }],
    "verified",
    "no-split",
    "unknown",
  ],
  ["XFS 4K blocks", [xfsAtomic], "unverified", "fs-allocation", "not-established"],
  ["btrfs nodatacow", [btrfs], "unsafe", "btrfs", "fail"],
  [
    "btrfs copy-on-write [L]",
    [btrfs, { storage: { btrfsNodatacow: false } }],
    "unverified",
    "btrfs",
    "not-established",
  ],
  ["spinning disk", [hdd], "unsafe", "atomic-unit", "fail"],
  ["no storage facts", [], "unverified", "atomic-unit", "unknown"],
  ["RDS with doublewrite on", [rds], "unverified", "rds-optimized-writes", "fail"],
  ["RDS Optimized Writes active", [rds, off], "verified", "rds-optimized-writes", "pass"],
  [
    "RDS off on 8.0.28 (no Optimized Writes)",
    [mysql8025, { server: { version: "8.0.28" } }, rds, off],
    "unverified",
    "rds-optimized-writes",
    "fail",
  ],
  [
    "RDS off with rds.optimized_writes=OFF (set by hand)",
    [rds, off, { platform: { rdsOptimizedWrites: "off" } }],
    "unverified",
    "rds-optimized-writes",
    "fail",
  ],
  [
    "RDS off before the Blue/Green storage upgrade",
    [rds, off, { platform: { rdsStorageConfigUpgradeNeeded: true } }],
    "unverified",
    "rds-optimized-writes",
    "fail",
  ],
  [
    "RDS off on a class without Optimized Writes (db.t3)",
    [rds, off, { platform: { instanceClass: "db.t3.medium" } }],
    "unverified",
    "rds-optimized-writes",
    "fail",
  ],
  [
    "RDS off, class unknown: reading OFF is the evidence",
    [rds, off, { platform: { instanceClass: null } }],
    "verified",
    "rds-optimized-writes",
    "pass",
  ],
  ["Aurora", [aurora], "unverified", "aurora", "not-applicable"],
  [
    "Alibaba 16K atomic write on",
    [merge(alibaba, { platform: { alibaba16kAtomicWrite: true } })],
    "verified",
    "alibaba-16k-atomic-write",
    "pass",
  ],
  ["Alibaba feature off", [alibaba], "unverified", "alibaba-16k-atomic-write", "fail"],
];

describe("safety gate evidence chain", () => {
  it.each(table.map((r) => [r[0], r] as const))("%s", (_n, [, p, status, check, checkStatus]) => {
    const g = gate(facts("g", mysql8035, ...p));
    expect(g.status, g.summary).toBe(status);
    expect(g.checks.find((c) => c.id === check)?.status).toBe(checkStatus);
    if (status === "verified") {
      expect(g.path).not.toBeNull();
      expect(g.toVerify).toEqual([]);
    } else {
      expect(g.path).toBeNull();
      expect(g.toVerify.length + (g.providerManaged ? 1 : 0)).toBeGreaterThan(0);
    }
    if (status === "unsafe") expect(g.blockers.length).toBeGreaterThan(0);
    else expect(g.blockers).toEqual([]);
  });

  it("says what would make an unverified gate verified", () => {
    const g = gate(facts("x", mysql8035, ebsTwp, { storage: { dataOffsetAlignmentBytes: null } }));
    expect(g.toVerify).toEqual([expect.stringMatching(/pvcreate --dataalignmentoffset/)]);
    expect(g.summary).toMatch(/not known: data area aligned/);
  });

  it("points a Nitro volume whose kernel shows 0 at NTWPU", () => {
    const g = gate(facts("y", mysql8035, virtio));
    expect(g.toVerify.join(" ")).toMatch(/nvme id-ns -v/);
  });

  it("never verifies RDS by hand while doublewrite is on", () => {
    const g = gate(facts("z", mysql8035, rds, atomicNvme, { platform: { managed: "rds" } }));
    expect(g.status).toBe("unverified");
    expect(g.providerManaged).toBe(true);
  });
});

describe("a demo-only torn-write declaration", () => {
  const demo = (demoOnly?: boolean) =>
    gate(
      facts(
        "demo",
        mysql8035,
        ebsTwp,
        demoOnly === undefined ? {} : { storage: { tornWriteProtection: { demoOnly } } },
      ),
    );

  it("verifies as the declaration would, and says on the gate and in its summary that it is for a demo only", () => {
    const g = demo(true);
    expect(g.status).toBe("verified");
    expect(g.demoOnly).toBe(true);
    expect(g.summary).toContain(DEMO_ONLY_NOTE);
  });

  it("is not claimed for a real declaration, or for a gate that does not verify on it", () => {
    expect(demo().demoOnly).toBe(false);
    expect(demo(false).summary).not.toContain("Demo only");
    const unsafe = gate(
      facts("demo", mysql8035, ebsNoBigalloc, { storage: { tornWriteProtection: { demoOnly: true } } }),
    );
    expect(unsafe.status).not.toBe("verified");
    expect(unsafe.demoOnly).toBe(false);
  });
});
