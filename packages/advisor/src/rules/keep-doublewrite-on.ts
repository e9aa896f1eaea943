/**
 * The explicit "keep it on" answer: doublewrite is on, the storage is not verified
 * atomic, and doublewrite is not a large cost on a write-bound instance, so there is nothing to do
 * but know what would change the answer.
 */
import { z } from "zod";
import { protection } from "../config-state.js";
import { pct } from "../format.js";
import { doublewriteRemovalGain, efficiencyText } from "../gain.js";
import { defineMeta, defineRule, docsPath, makeFinding } from "../rule.js";
import { DEFAULT_MIN_SHARE, doublewriteShare } from "./doublewrite-share-high.js";

const id = "keep-doublewrite-on";

const meta = defineMeta({
  id,
  severity: "notice",
  title: "Keep doublewrite on",
  description:
    "Doublewrite is on, the safety gate is not verified, and doublewrite is not a large share of the writes of a write-bound instance: keep it, and see what would change that.",
  docs: docsPath(id),
  needs: { facts: ["config.doublewrite", "storage"], indicators: ["dblwrShareOfInnodbWriteBytes"] },
  options: z.object({ minShare: z.number().min(0).max(1).default(DEFAULT_MIN_SHARE) }).strict(),
});

export const keepDoublewriteOn = defineRule({
  meta,
  evaluate(facts, profile, { options, caps, verdict, gate }) {
    if (protection(facts) !== "full" || gate.status === "verified" || gate.providerManaged) return [];
    const share = doublewriteShare(profile);
    const pressured = verdict.verdict === "write-bound" || verdict.verdict === "likely";
    // doublewrite-share-high reports the other case.
    if (pressured && share.value !== null && share.value >= options.minShare) return [];
    const reasons = [
      gate.status === "unsafe"
        ? `the storage can tear pages (${gate.blockers.join("; ")})`
        : "the storage is not verified to write pages atomically",
      verdict.verdict === "not-write-bound"
        ? notWriteBound(efficiencyText(doublewriteRemovalGain(facts, caps, profile, verdict, "off")))
        : verdict.verdict === "unknown"
          ? "whether the instance is write-bound is unknown"
          : share.value !== null
            ? `doublewrite is only ${pct(share.value)} ${share.basis}`
            : "doublewrite's share of the writes is unknown",
    ];
    return [
      makeFinding(meta, {
        severity: "notice",
        title: meta.title,
        summary: `Keep innodb_doublewrite on: ${reasons.join(", and ")}.`,
        evidence: [
          { label: "Safety gate", value: gate.status, unit: "text" },
          { label: "Write-bound verdict", value: verdict.verdict, unit: "text" },
          { label: "Doublewrite share", value: share.value, unit: "ratio" },
        ],
        prerequisites: gate.toVerify.map((t) => `What would verify the gate: ${t}`),
        risk: { level: "none", text: "Nothing to change." },
        confidence: Math.max(verdict.confidence, 0.5),
      }),
    ];
  },
});

/** What a not-write-bound instance gains: efficiency only, said as such. */
function notWriteBound(efficiency: string | null): string {
  return efficiency
    ? `the instance is not write-bound: removing doublewrite would only make each transaction cheaper (${efficiency}), with no throughput gain, so it is low priority even once the storage is verified`
    : "the instance is not write-bound: removing doublewrite would bring no throughput gain, only cheaper transactions, so it is low priority even once the storage is verified";
}
