import { atomicNvme, ebsNoBigalloc, facts, mysql8035, xfsAtomic, zfs16k } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("fs-allocation", {
  valid: [
    {
      name: "ext4 bigalloc 16K",
      facts: facts("v1", mysql8035, atomicNvme),
      detail: [/bigalloc cluster 16 KiB/],
    },
    {
      name: "64K blocks",
      facts: facts("v2", mysql8035, atomicNvme, {
        storage: { fsBlockSizeBytes: 65536, fsClusterSizeBytes: null },
      }),
      detail: [/block 64 KiB/],
    },
  ],
  invalid: [
    {
      name: "ext4 4K, no bigalloc",
      facts: facts("i1", mysql8035, ebsNoBigalloc),
      status: "fail",
      fix: /mkfs\.ext4 -O bigalloc -C 16384/,
      blocker: true,
    },
    {
      name: "XFS 4K blocks",
      facts: facts("i2", mysql8035, xfsAtomic),
      status: "not-established",
      detail: [/RWF_ATOMIC/],
      blocker: false,
    },
    {
      name: "another file system",
      facts: facts("i3", mysql8035, atomicNvme, { storage: { fsType: "f2fs", fsClusterSizeBytes: null } }),
      status: "not-established",
      detail: [/f2fs/],
    },
    {
      // The compose demo: statfs gives the 4 KiB block, the container cannot read the superblock.
      name: "ext4 4K blocks, superblock unread: bigalloc unknown, not no",
      facts: facts("i5", mysql8035, ebsNoBigalloc, { storage: { fsClusterSizeBytes: null } }),
      status: "unknown",
      detail: [/4 KiB blocks; the bigalloc cluster size is unknown/],
      blocker: false,
    },
    {
      name: "file system unknown",
      facts: facts("i4", mysql8035, atomicNvme, { storage: { fsType: null } }),
      status: "unknown",
    },
  ],
  absent: [{ name: "ZFS", facts: facts("a1", mysql8035, zfs16k) }],
});
