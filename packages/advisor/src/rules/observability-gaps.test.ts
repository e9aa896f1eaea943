import { expect } from "vitest";
import { atomicNvme, facts, mariadb114, mysql8035, virtio } from "../fixtures/build.js";
import { ruleTester } from "../fixtures/rule-tester.js";
import { loads } from "../fixtures/scenarios.js";

ruleTester("observability-gaps", {
  valid: [
    { name: "full host and workload facts", facts: facts("v1", mariadb114, atomicNvme, loads.moderate()) },
    {
      name: "only module_dblwr missing (off by default, a small share of the evidence)",
      facts: facts("v2", mysql8035, atomicNvme, loads.moderate()),
    },
    {
      name: "unsafe gate: unknown checks do not matter",
      facts: facts("v3", mysql8035, virtio, loads.moderate()),
    },
  ],
  invalid: [
    {
      name: "no workload window",
      facts: facts("i1", mysql8035, virtio),
      severity: "notice",
      platforms: ["monitoring"],
      check: (f) => expect(f.actions[0]?.steps[0]).toMatch(/No workload window/),
    },
    {
      name: "remote exporter without host facts: lists device signals and gate checks",
      facts: facts("i2", mysql8035, loads.moderate(true, { device: null })),
      severity: "notice",
      snippets: ["SET GLOBAL innodb_monitor_enable = 'module_dblwr';"],
      check: (f) => {
        const steps = f.actions[0]?.steps.join("\n") ?? "";
        expect(steps).toMatch(/Device utilisation: run untorn-exporter beside the server/);
        expect(steps).toMatch(/Safety gate, atomic write unit/);
        expect(steps).toMatch(/Doublewrite file I\/O time/);
      },
    },
  ],
});
