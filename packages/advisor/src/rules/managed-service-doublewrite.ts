/**
 * Managed services own innodb_doublewrite: RDS turns it off itself with Optimized Writes (Blue/Green for
 * older databases), Alibaba with 16K atomic write; never flip it by hand (docs/reference/atomic-storage.md §8.1, §8.3).
 */
import { z } from "zod";
import { alibabaAtomicWriteAction, rdsOptimizedWritesAction } from "../actions.js";
import { protection } from "../config-state.js";
import { doublewriteRemovalGain, gainSentence } from "../gain.js";
import { defineMeta, defineRule, docsPath, findingConfidence, makeFinding } from "../rule.js";

const id = "managed-service-doublewrite";

const meta = defineMeta({
  id,
  severity: "warning",
  title: "Managed service: use the provider's torn-write feature, never flip doublewrite by hand",
  description:
    "RDS for MySQL/MariaDB: Optimized Writes (via Blue/Green for existing databases); ApsaraDB RDS: 16K atomic write; Aurora: not applicable.",
  docs: docsPath(id),
  needs: {
    facts: [
      "platform.managed",
      "platform.rdsOptimizedWrites",
      "platform.rdsStorageConfigUpgradeNeeded",
      "platform.alibaba16kAtomicWrite",
      "config.doublewrite",
    ],
    indicators: ["dblwrShareOfInnodbWriteBytes", "dblwrShareOfWriteOps"],
  },
  options: z.object({}).strict(),
});

export const managedServiceDoublewrite = defineRule({
  meta,
  evaluate(facts, profile, { caps, verdict, gate }) {
    const managed = facts.platform?.managed;
    const prot = protection(facts);
    const pressured = verdict.verdict === "write-bound" || verdict.verdict === "likely";
    const conf = findingConfidence(verdict.confidence, profile, meta.needs.indicators);

    if (managed === "aurora")
      return [
        makeFinding(meta, {
          severity: "notice",
          title: "Aurora: doublewrite advice does not apply",
          summary:
            "Aurora uses its own storage layer; RDS Optimized Writes and doublewrite tuning do not apply.",
          risk: { level: "none", text: "Nothing to change." },
          confidence: 1,
        }),
      ];

    if (managed === "rds") {
      if (gate.status === "verified")
        return [
          makeFinding(meta, {
            severity: "notice",
            title: "RDS Optimized Writes is active",
            summary:
              "innodb_doublewrite reads OFF on an Optimized Writes engine version: RDS writes 16 KiB pages atomically and manages doublewrite. Do not set innodb_doublewrite yourself.",
            risk: { level: "none", text: "Nothing to change." },
            confidence: 0.9,
          }),
        ];
      if (prot !== "full") return [];
      const gain = doublewriteRemovalGain(facts, caps, profile, verdict, "off");
      if (!caps.rdsOptimizedWritesVersion)
        return [
          makeFinding(meta, {
            severity: pressured ? "warning" : "notice",
            title: "RDS: this engine version has no Optimized Writes",
            summary: `Optimized Writes needs RDS for MySQL 8.0.30+ or MariaDB 10.6.10+, 10.11.4+, 11.4.3+ or 11.8+. An engine upgrade (Blue/Green) would allow it: ${gainSentence(gain, verdict.verdict)}.`,
            expectedGain: gain,
            blocked: {
              gate: gate.status,
              reason: "engine version without Optimized Writes",
              toVerify: ["Upgrade the engine (Blue/Green), then enable Optimized Writes."],
            },
            risk: { level: "none", text: "Nothing changes until the upgrade." },
            confidence: conf,
          }),
        ];
      const paramOff = facts.platform?.rdsOptimizedWrites === "off";
      return [
        makeFinding(meta, {
          severity: pressured ? "warning" : "notice",
          title: "RDS: enable Optimized Writes via Blue/Green",
          summary:
            `RDS still writes every page twice ${paramOff ? "because rds.optimized_writes=OFF" : "(instance class, storage layout or parameter not yet supporting Optimized Writes)"}. ` +
            `Optimized Writes removes doublewrite with provider-verified 16 KiB atomic writes (AWS: up to 2x): ${gainSentence(gain, verdict.verdict)}. Never set innodb_doublewrite by hand on RDS.`,
          actions: [rdsOptimizedWritesAction(facts)],
          expectedGain: gain,
          risk: {
            level: "low",
            text: "Blue/Green switchover takes about a minute of write unavailability; the old environment stays for rollback. Atomicity is guaranteed by RDS.",
          },
          prerequisites: [
            "Automated backups enabled (needed for Blue/Green).",
            "A supported instance class in your Region (check the live AWS list).",
          ],
          confidence: conf,
        }),
      ];
    }

    if (managed === "alibaba-rds") {
      if (facts.platform?.alibaba16kAtomicWrite === true)
        return [
          makeFinding(meta, {
            severity: "notice",
            title: "ApsaraDB RDS 16K atomic write is active",
            summary:
              "The service provides 16 KiB atomic writes and disables doublewrite itself; nothing to change.",
            risk: { level: "none", text: "Nothing to change." },
            confidence: 0.9,
          }),
        ];
      if (prot !== "full") return [];
      const gain = doublewriteRemovalGain(facts, caps, profile, verdict, "off");
      return [
        makeFinding(meta, {
          severity: pressured ? "warning" : "notice",
          title: "ApsaraDB RDS: enable 16K atomic write",
          summary: `16K atomic write removes doublewrite with end-to-end 16 KiB atomicity (Alibaba measured +40-48% QPS on write-only sysbench, docs/reference/published-results.md §9): ${gainSentence(gain, verdict.verdict)}.`,
          actions: [alibabaAtomicWriteAction()],
          expectedGain: gain,
          risk: { level: "low", text: "The instance restarts once; atomicity is guaranteed by the service." },
          prerequisites: ["A maintenance window for the restart."],
          confidence: conf,
        }),
      ];
    }
    return [];
  },
});
