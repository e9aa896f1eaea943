import { atomicNvme, ebsTwp, facts, mariadb106, mariadb114, mysql8035, virtio } from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

ruleTester("mariadb-atomic-writes-ineffective", {
  valid: [
    {
      name: "plain virtio, doublewrite on: nothing to believe",
      facts: facts("v1", mariadb106, virtio, loads.moderate()),
    },
    {
      name: "ScaleFlux device is detected by MariaDB",
      facts: facts("v2", mariadb106, atomicNvme, {
        storage: { device: "sfdv0n1", disks: ["sfdv0n1"], model: null },
      }),
    },
    {
      name: "Fusion-io card",
      facts: facts("v3", mariadb106, atomicNvme, {
        storage: { model: "ioDrive2", device: "fioa", disks: ["fioa"] },
      }),
    },
    {
      name: "innodb_use_atomic_writes=OFF",
      facts: facts("v4", mariadb114, atomicNvme, { config: { useAtomicWrites: false } }),
    },
    { name: "MySQL", facts: facts("v5", mysql8035, atomicNvme, { config: { useAtomicWrites: true } }) },
    {
      name: "device unknown",
      facts: facts("v6", mariadb114, atomicNvme, { storage: { model: null, device: null, disks: null } }),
    },
  ],
  invalid: [
    {
      name: "verified NVMe: notice, set OFF explicitly",
      facts: facts("i1", mariadb114, atomicNvme, loads.moderate()),
      severity: "notice",
      summary: [/not a Fusion-io, Shannon or ScaleFlux card/, /set innodb_doublewrite=OFF explicitly/],
    },
    {
      name: "EBS with torn-write prevention",
      facts: facts("i2", mariadb106, ebsTwp, loads.moderate()),
      severity: "notice",
      summary: [/Amazon Elastic Block Store/],
    },
    {
      name: "OFF on virtio: warning, the variable does not make it safe",
      facts: facts("i3", mariadb106, virtio, parts.off),
      severity: "warning",
      summary: [/does not make innodb_doublewrite=OFF safe/],
    },
  ],
});
