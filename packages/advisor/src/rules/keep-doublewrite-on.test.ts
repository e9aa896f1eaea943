import { expect } from "vitest";
import { atomicNvme, facts, hdd, mysql8035, rds, virtio, xfsAtomic } from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads, parts } from "../fixtures/scenarios.js";

ruleTester("keep-doublewrite-on", {
  valid: [
    { name: "verified storage", facts: facts("v1", mysql8035, atomicNvme, loads.moderate()) },
    {
      name: "write-bound with a large share (doublewrite-share-high reports it)",
      facts: facts("v2", mysql8035, hdd, loads.deviceBound()),
    },
    { name: "off (the off rule reports it)", facts: facts("v3", mysql8035, virtio, parts.off) },
    { name: "managed service", facts: facts("v4", mysql8035, rds, loads.moderate(true, { device: null })) },
  ],
  invalid: [
    {
      name: "unsafe storage, not write-bound",
      facts: facts("i1", mysql8035, virtio, loads.moderate()),
      severity: "notice",
      summary: [/Keep innodb_doublewrite on/, /can tear pages/, /not write-bound/],
      platforms: [],
    },
    {
      name: "unverified storage: says what would verify it",
      facts: facts("i2", mysql8035, xfsAtomic, loads.moderate()),
      severity: "notice",
      summary: [/not verified/],
      check: (f) => expect(f.prerequisites.join(" ")).toMatch(/mkfs\.ext4 -O bigalloc -C 16384/),
    },
    {
      name: "verdict unknown",
      facts: facts("i3", mysql8035, virtio),
      severity: "notice",
      summary: [/unknown/],
    },
  ],
});
