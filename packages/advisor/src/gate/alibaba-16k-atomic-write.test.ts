import { alibaba, atomicNvme, facts, mariadb1011, merge, mysql84, mysql8035 } from "../fixtures/build.js";
import { gateCheckTester } from "../fixtures/gate-check-tester.js";

const on = merge(alibaba, { platform: { alibaba16kAtomicWrite: true } });
const unset = merge(alibaba, { platform: { alibaba16kAtomicWrite: null } });
const off = { config: { doublewrite: "off" } };

gateCheckTester("alibaba-16k-atomic-write", {
  valid: [
    { name: "flag on", facts: facts("v1", mysql8035, on), detail: [/is on/] },
    {
      name: "flag not given, doublewrite reads OFF",
      facts: facts("v2", mysql8035, unset, off),
      detail: [/reads OFF/],
    },
  ],
  invalid: [
    { name: "flag off", facts: facts("i1", mysql8035, alibaba), status: "fail", fix: /ApsaraDB RDS console/ },
    {
      name: "MariaDB",
      facts: facts("i2", mariadb1011, on),
      status: "fail",
      detail: [/MySQL 5\.7 and 8\.0 only/],
    },
    { name: "MySQL 8.4", facts: facts("i3", mysql84, on), status: "fail", detail: [/not 8\.4/] },
    {
      name: "flag not given, doublewrite on",
      facts: facts("i4", mysql8035, unset),
      status: "unknown",
      detail: [/not known to be on/],
    },
  ],
  absent: [{ name: "self-managed", facts: facts("a1", mysql8035, atomicNvme) }],
});
