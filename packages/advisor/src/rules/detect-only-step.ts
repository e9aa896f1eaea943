/**
 * DETECT_ONLY as the intermediate stage between ON and OFF (MySQL/Percona 8.0.30+, docs/reference/mysql.md §1.3, §1.4, §1.7):
 * it is set at runtime, reverts at runtime, drops the page images (bytes) but keeps per-batch writes,
 * and detects a torn page without repairing it. It removes repair, so it needs a verified gate too.
 */
import { z } from "zod";
import { doublewriteActions } from "../actions.js";
import { protection } from "../config-state.js";
import { doublewriteRemovalGain, gainSentence } from "../gain.js";
import { type Action, defineMeta, defineRule, docsPath, findingConfidence, makeFinding } from "../rule.js";

const id = "detect-only-step";

const meta = defineMeta({
  id,
  severity: "notice",
  title: "Use DETECT_ONLY as the runtime stage before OFF",
  description:
    "MySQL/Percona 8.0.30+ with a verified safety gate: switch to DETECT_ONLY at runtime to measure the byte savings before the restart that OFF needs; or, when DETECT_ONLY is already on, OFF is the next step.",
  docs: docsPath(id),
  needs: {
    facts: ["server.version", "config.doublewrite", "storage"],
    indicators: ["dblwrShareOfInnodbWriteBytes", "avgBatchPages"],
  },
  options: z.object({}).strict(),
});

export const detectOnlyStep = defineRule({
  meta,
  evaluate(facts, profile, { caps, verdict, gate }) {
    if (!caps.detectOnly || gate.status !== "verified" || gate.providerManaged) return [];
    const mode = facts.config.doublewrite;
    const prot = protection(facts);
    if (prot === "full" && mode !== "fast") {
      const gain = doublewriteRemovalGain(facts, caps, profile, verdict, "detect_only");
      return [
        makeFinding(meta, {
          severity: "notice",
          title: meta.title,
          summary:
            "SET GLOBAL innodb_doublewrite='DETECT_ONLY' takes effect without a restart and reverts the same way. " +
            "It stops writing page images but keeps one small write per batch, so it shows the byte-side gain before the restart OFF needs: " +
            `${gainSentence(gain, verdict.verdict)}.`,
          evidence: [
            { label: "innodb_doublewrite", value: facts.config.doublewriteRaw ?? mode ?? null, unit: "text" },
            { label: "Safety gate", value: `${gate.status} (${gate.path})`, unit: "text" },
          ],
          actions: doublewriteActions(facts, caps, "DETECT_ONLY"),
          expectedGain: gain,
          risk: {
            level: "medium",
            text: "DETECT_ONLY cannot repair a torn page: after a crash that tears a page the server stops and the instance must be restored from backup (docs/reference/mysql.md §1.7). Revert with SET GLOBAL innodb_doublewrite='ON'.",
          },
          prerequisites: [
            "The same verified safety gate as for OFF.",
            "A tested restore from backup or replica rebuild.",
          ],
          confidence: findingConfidence(Math.max(verdict.confidence, 0.5), profile, [
            "dblwrShareOfInnodbWriteBytes",
          ]),
        }),
      ];
    }
    if (prot === "detect-only") {
      const actions: Action[] = doublewriteActions(facts, caps, "OFF");
      return [
        makeFinding(meta, {
          severity: "notice",
          title: "DETECT_ONLY is on over verified storage: OFF is the next step",
          summary:
            "DETECT_ONLY already dropped the page images; OFF also drops the per-batch metadata write and its flushes. It needs a restart (SET GLOBAL cannot reach OFF).",
          evidence: [{ label: "Safety gate", value: `${gate.status} (${gate.path})`, unit: "text" }],
          actions,
          expectedGain: null,
          risk: {
            level: "low",
            text: "Recovery is the same as with DETECT_ONLY (no repair); only the restart is new.",
          },
          prerequisites: ["A restart window."],
          confidence: findingConfidence(verdict.confidence, profile, []),
        }),
      ];
    }
    return [];
  },
});
