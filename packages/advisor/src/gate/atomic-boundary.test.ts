import { atomicNvme, ebsTwp, facts, mysql8035, virtio } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

const boundary = (b: number | null) => ({
  storage: { atomicWrite: { unitMaxBytes: 65536, boundaryBytes: b } },
});

gateCheckTester("atomic-boundary", {
  valid: [
    { name: "no boundary", facts: facts("v1", mysql8035, atomicNvme), detail: [/boundary none/] },
    { name: "64K boundary", facts: facts("v2", mysql8035, atomicNvme, boundary(65536)), detail: [/64 KiB/] },
  ],
  invalid: [
    {
      name: "8K boundary inside a 16K page",
      facts: facts("i1", mysql8035, atomicNvme, boundary(8192)),
      status: "fail",
      blocker: true,
    },
    {
      name: "24K boundary: not a multiple of the page",
      facts: facts("i2", mysql8035, atomicNvme, boundary(24576)),
      status: "fail",
    },
    {
      name: "boundary unknown",
      facts: facts("i3", mysql8035, atomicNvme, boundary(null)),
      status: "unknown",
      fix: /atomic_write_boundary_bytes/,
      blocker: false,
    },
  ],
  absent: [
    { name: "platform guarantee, not the device's limits", facts: facts("a1", mysql8035, ebsTwp) },
    { name: "the unit failed", facts: facts("a2", mysql8035, virtio) },
    {
      name: "page size unknown",
      facts: facts("a3", mysql8035, atomicNvme, { config: { pageSizeBytes: null } }),
    },
  ],
});
