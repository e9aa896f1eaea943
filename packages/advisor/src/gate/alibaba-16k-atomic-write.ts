/**
 * ApsaraDB RDS 16K atomic write: like RDS, the service turns innodb_doublewrite off itself when the
 * feature is on (MySQL 5.7/8.0), so reading OFF is the evidence unless a fact contradicts it
 * (docs/reference/atomic-storage.md §8.3).
 */
import { protection } from "../config-state.js";
import { defineGateCheck } from "./check.js";

export const alibaba16kAtomicWrite = defineGateCheck({
  meta: {
    id: "alibaba-16k-atomic-write",
    path: "provider-managed",
    title: "Alibaba 16K atomic write enabled",
    appliesWhen: "`platform.managed` is `alibaba-rds`",
    passesWhen:
      "`alibaba16kAtomicWrite: true`, or doublewrite reading OFF with the flag not given (the service turns it off itself when 16K atomic write is on), unless something contradicts it: the flag is `false` (also an input warning), MariaDB, or a MySQL series other than 5.7/8.0",
    needs: [
      "platform.managed",
      "platform.alibaba16kAtomicWrite",
      "server.flavor",
      "server.version",
      "config.doublewrite",
    ],
    source: "docs/reference/atomic-storage.md §8.3",
  },
  applies: ({ facts }) => facts.platform?.managed === "alibaba-rds",
  evaluate({ facts, caps }) {
    const flag = facts.platform?.alibaba16kAtomicWrite ?? null;
    const contradictions = [
      flag === false && "platform.alibaba16kAtomicWrite is false",
      caps.flavor === "mariadb" && "16K atomic write is offered for RDS for MySQL 5.7 and 8.0 only",
      caps.mysqlLineage &&
        !(caps.version.major === 5 && caps.version.minor === 7) &&
        !(caps.version.major === 8 && caps.version.minor === 0) &&
        `16K atomic write is offered for MySQL 5.7 and 8.0 only, not ${caps.version.major}.${caps.version.minor}`,
    ].filter((x): x is string => typeof x === "string");
    const inferred = flag === null && protection(facts) === "off" && contradictions.length === 0;
    const on = (flag === true && contradictions.length === 0) || inferred;
    return {
      status: on ? "pass" : flag === false || contradictions.length > 0 ? "fail" : "unknown",
      detail: inferred
        ? "innodb_doublewrite reads OFF on ApsaraDB RDS, which the service does when 16K atomic write is on: end-to-end 16 KiB atomicity (set platform.alibaba16kAtomicWrite to record it)."
        : on
          ? "ApsaraDB RDS 16K atomic write is on: end-to-end 16 KiB atomicity, doublewrite disabled by the service."
          : contradictions.length > 0
            ? `16K atomic write cannot be active: ${contradictions.join("; ")}.`
            : "The 16K atomic write feature is not known to be on.",
      fix: "Enable 16K atomic write in the ApsaraDB RDS console (instance restart).",
    };
  },
});
