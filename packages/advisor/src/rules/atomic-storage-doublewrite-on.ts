/**
 * The safety gate verifies that page writes are atomic, yet doublewrite still copies every page.
 * Only this rule (and detect-only-step) may recommend removing the copies, and only behind a
 * verified gate on a self-managed server.
 */
import { z } from "zod";
import { doublewriteActions } from "../actions.js";
import { protection } from "../config-state.js";
import { doublewriteRemovalGain, gainSentence } from "../gain.js";
import { DEMO_ONLY_NOTE } from "../gate.js";
import {
  defineMeta,
  defineRule,
  docsPath,
  findingConfidence,
  indicatorEvidence,
  makeFinding,
} from "../rule.js";

const id = "atomic-storage-doublewrite-on";

const meta = defineMeta({
  id,
  severity: "warning",
  title: "Atomic-write storage verified, but doublewrite is still on",
  description:
    "The safety gate is verified (ZFS recordsize = page size, or an atomic unit >= page size with O_DIRECT and aligned allocation) on a self-managed server that still writes every page twice.",
  docs: docsPath(id),
  needs: {
    facts: ["config.doublewrite", "config.pageSizeBytes", "config.flushMethod", "storage"],
    indicators: ["dblwrShareOfInnodbWriteBytes", "dblwrShareOfDeviceWriteBytes", "dblwrShareOfWriteOps"],
  },
  options: z.object({}).strict(),
});

export const atomicStorageDoublewriteOn = defineRule({
  meta,
  evaluate(facts, profile, { caps, verdict, gate }) {
    if (gate.status !== "verified" || gate.providerManaged) return [];
    if (protection(facts) !== "full") return [];
    const gain = doublewriteRemovalGain(facts, caps, profile, verdict, "off");
    const pressured = verdict.verdict === "write-bound" || verdict.verdict === "likely";
    const fast = facts.config.doublewrite === "fast";
    return [
      makeFinding(meta, {
        severity: pressured ? "warning" : "notice",
        title: meta.title,
        summary:
          `The safety gate is verified (${verifiedBy(gate.summary)}), but innodb_doublewrite=${facts.config.doublewriteRaw ?? facts.config.doublewrite}${fast ? " (MariaDB fast: still a full copy)" : ""} still writes every page twice. ` +
          `Turning it off: ${gainSentence(gain, verdict.verdict)}.` +
          (gate.demoOnly ? ` ${DEMO_ONLY_NOTE}` : "") +
          (caps.detectOnly
            ? " DETECT_ONLY first is a runtime, reversible stage (see detect-only-step)."
            : ""),
        evidence: [
          {
            label: "Safety gate",
            value: `${gate.status} (${gate.path}${gate.demoOnly ? ", demo-only declaration" : ""})`,
            unit: "text",
          },
          { label: "Write-bound verdict", value: verdict.verdict, unit: "text" },
          indicatorEvidence(profile, "dblwrShareOfInnodbWriteBytes"),
          indicatorEvidence(profile, "dblwrShareOfDeviceWriteBytes"),
          indicatorEvidence(profile, "dblwrShareOfWriteOps"),
        ],
        actions: doublewriteActions(facts, caps, "OFF"),
        expectedGain: gain,
        risk: {
          level: "medium",
          text:
            "With doublewrite OFF a torn page found during crash recovery cannot be repaired: restore that instance from backup or rebuild the replica (docs/reference/mysql.md §1.7). " +
            (caps.runtimeOff
              ? "Reverting is a SET GLOBAL on MariaDB 11.0.6+."
              : "Reverting needs another restart."),
        },
        prerequisites: [
          ...gate.checks.filter((c) => c.status === "pass").map((c) => `${c.label}: ${c.detail}`),
          "A tested restore from backup, or a replica rebuild procedure, for the case a torn page is ever found.",
          "A staged rollout: canary replica with an untouched sibling replica as control, then more replicas, primaries last.",
        ],
        confidence: findingConfidence(Math.max(verdict.confidence, 0.5), profile, [
          "dblwrShareOfInnodbWriteBytes",
        ]),
      }),
    ];
  },
});

/** What verified the gate, from its summary: "verified by X." (and any demo-only note) to "X". */
const verifiedBy = (summary: string) =>
  summary
    .replace(DEMO_ONLY_NOTE, "")
    .trim()
    .replace(/^verified by /, "")
    .replace(/\.$/, "");
