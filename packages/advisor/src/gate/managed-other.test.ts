import { atomicNvme, facts, mysql8035 } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

const other = { platform: { managed: "other" }, storage: { datadirVisible: false } };

gateCheckTester("managed-other", {
  valid: [],
  invalid: [
    {
      name: "another managed service",
      facts: facts("i1", mysql8035, other),
      status: "unknown",
      fix: /do not change innodb_doublewrite by hand/,
      blocker: false,
    },
    {
      name: "even on atomic storage facts",
      facts: facts("i2", mysql8035, atomicNvme, other),
      status: "unknown",
    },
  ],
  absent: [{ name: "self-managed", facts: facts("a1", mysql8035, atomicNvme) }],
});
