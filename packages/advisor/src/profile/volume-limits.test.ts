import { ebsTwp, facts, mysql8035, virtio } from "../fixtures/build.js";
import { indicatorGroupTester } from "../fixtures/indicator-group-tester.js";

// EBS counts up to 256 KiB as one I/O: 10 writes of 2 MiB are 80 units.
const device = {
  workload: {
    windowSeconds: 3600,
    device: {
      writeIops: { avg: 10 },
      writeBytesPerSecond: { avg: 10 * 2097152 },
      readIops: { avg: 0 },
      readBytesPerSecond: { avg: 0 },
    },
  },
};

indicatorGroupTester("volume-limits", {
  valid: [
    {
      name: "EBS gp3, metered in 256 KiB units",
      facts: facts("a", mysql8035, ebsTwp, device),
      values: { iopsLimitShare: 80 / 3000, bandwidthLimitShare: (10 * 2097152) / 131072000 },
      basis: { iopsLimitShare: /read \+ write IOPS metered in 262144-byte units/ },
    },
    {
      name: "a separate write limit",
      facts: facts("b", mysql8035, ebsTwp, device, {
        storage: { limits: { writeIops: 1000, ioUnitBytes: null } },
      }),
      values: { iopsLimitShare: 10 / 1000 },
      basis: { iopsLimitShare: /^write IOPS \/ limit$/ },
    },
  ],
  invalid: [
    {
      name: "local disk: no provider limit",
      facts: facts("c", mysql8035, virtio, device),
      nulls: {
        iopsLimitShare: { note: /local device without a provider IOPS limit/ },
        bandwidthLimitShare: { note: /local device without a provider bandwidth limit/ },
      },
    },
    {
      name: "limits unknown",
      facts: facts("d", mysql8035, device),
      nulls: {
        iopsLimitShare: { missing: ["storage.limits.iops"] },
        bandwidthLimitShare: { missing: ["storage.limits.bandwidthBytesPerSecond"] },
      },
    },
  ],
});
