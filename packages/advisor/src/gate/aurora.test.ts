import { atomicNvme, aurora, facts, mysql8035, rds } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

gateCheckTester("aurora", {
  valid: [],
  invalid: [
    {
      name: "Aurora",
      facts: facts("i1", mysql8035, aurora),
      status: "not-applicable",
      detail: [/own storage layer/],
      blocker: false,
    },
    {
      name: "Aurora with doublewrite reading OFF",
      facts: facts("i2", mysql8035, aurora, { config: { doublewrite: "off" } }),
      status: "not-applicable",
    },
  ],
  absent: [
    { name: "RDS", facts: facts("a1", mysql8035, rds) },
    { name: "self-managed", facts: facts("a2", mysql8035, atomicNvme) },
  ],
});
