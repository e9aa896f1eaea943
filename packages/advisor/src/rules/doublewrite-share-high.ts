/** Doublewrite takes a large share of the writes of an instance that is (likely) write-bound. */
import { z } from "zod";
import { protection } from "../config-state.js";
import { bytes, num, pct } from "../format.js";
import { doublewriteRemovalGain, gainSentence } from "../gain.js";
import type { Profile } from "../profile.js";
import {
  type Action,
  defineMeta,
  defineRule,
  docsPath,
  findingConfidence,
  indicatorEvidence,
  makeFinding,
} from "../rule.js";

const id = "doublewrite-share-high";

/** Default share above which doublewrite counts as "a large share" (the measured full cost is ~0.5, docs/reference/iops-metering.md §11). */
export const DEFAULT_MIN_SHARE = 0.3;

/** The share that matters: device bytes when the exporter sees the device, else InnoDB's own bytes. */
export function doublewriteShare(profile: Profile): { value: number | null; basis: string } {
  const ind = profile.indicators;
  if (ind.dblwrShareOfDeviceWriteBytes.value !== null)
    return { value: ind.dblwrShareOfDeviceWriteBytes.value, basis: "of the device's write bytes" };
  if (ind.dblwrShareOfInnodbWriteBytes.value !== null)
    return { value: ind.dblwrShareOfInnodbWriteBytes.value, basis: "of InnoDB's data write bytes" };
  return { value: null, basis: "" };
}

const meta = defineMeta({
  id,
  severity: "warning",
  title: "Doublewrite costs a large share of writes on a write-bound instance",
  description:
    "Fires when full page copies are on, the verdict is write-bound or likely, and doublewrite bytes are a large share of the writes. Reports what removing them would gain and what blocks it.",
  docs: docsPath(id),
  needs: {
    facts: [
      "config.doublewrite",
      "config.pageSizeBytes",
      "workload.rates.dblwrPagesWritten",
      "workload.rates.dataWrittenBytes",
      "workload.device.writeBytesPerSecond",
    ],
    indicators: [
      "dblwrShareOfDeviceWriteBytes",
      "dblwrShareOfInnodbWriteBytes",
      "dblwrShareOfWriteOps",
      "amplification",
      "dblwrBytesRate",
    ],
  },
  options: z
    .object({
      minShare: z.number().min(0).max(1).default(DEFAULT_MIN_SHARE),
      verdicts: z
        .array(z.enum(["write-bound", "likely", "unknown", "not-write-bound"]))
        .default(["write-bound", "likely"]),
    })
    .strict(),
});

export const doublewriteShareHigh = defineRule({
  meta,
  evaluate(facts, profile, { options, caps, verdict, gate }) {
    if (protection(facts) !== "full") return [];
    if (!options.verdicts.includes(verdict.verdict)) return [];
    const share = doublewriteShare(profile);
    if (share.value === null || share.value < options.minShare) return [];

    const ind = profile.indicators;
    const gain = doublewriteRemovalGain(facts, caps, profile, verdict, "off");
    const dblwrBytes = ind.dblwrBytesRate.value;
    const ops = ind.dblwrShareOfWriteOps.value;
    const summary =
      `Doublewrite is ${pct(share.value)} ${share.basis}` +
      (dblwrBytes !== null ? ` (${bytes(dblwrBytes)}/s)` : "") +
      (ops !== null ? ` and ${pct(ops)} of InnoDB write operations` : "") +
      ` on a ${verdict.verdict === "write-bound" ? "write-bound" : "probably write-bound"} instance (score ${num(verdict.score)}). ` +
      `Removing the page copies: ${gainSentence(gain, verdict.verdict)}. Safety gate: ${gate.status}.`;

    const actions: Action[] = [];
    let blocked = null;
    if (gate.providerManaged) {
      const managed = facts.platform?.managed;
      // Only RDS and Alibaba have a documented feature (docs/reference/atomic-storage.md §8.1, §8.3); Aurora's storage is its own.
      if (managed === "rds" || managed === "alibaba-rds")
        actions.push({
          platform: managed === "alibaba-rds" ? "alibaba-rds" : "aws-rds",
          title: "Use the provider's torn-write feature (see managed-service-doublewrite)",
          steps: [
            "The managed service controls innodb_doublewrite; follow the managed-service-doublewrite finding.",
          ],
          snippets: [],
          restart: false,
          changes: [],
        });
      else if (managed === "other")
        actions.push({
          platform: "host",
          title: "Ask the provider for a documented torn-write guarantee",
          steps: [
            "The managed service controls storage and innodb_doublewrite, and no torn-write feature of it is known here.",
            "Ask the provider whether it writes innodb_page_size pages atomically and offers a way to run without doublewrite; do not change innodb_doublewrite by hand.",
          ],
          snippets: [],
          restart: false,
          changes: [],
        });
    } else if (gate.status === "verified") {
      actions.push({
        platform: "host",
        title: "Storage is verified atomic: follow atomic-storage-doublewrite-on",
        steps: [
          caps.detectOnly
            ? "The steps, the DETECT_ONLY stage and the rollout are in the atomic-storage-doublewrite-on finding."
            : "The steps and the rollout are in the atomic-storage-doublewrite-on finding.",
        ],
        snippets: [],
        restart: false,
        changes: [],
      });
    } else {
      blocked = {
        gate: gate.status,
        reason: `Turning doublewrite off needs a verified safety gate; it is ${gate.status}: ${gate.summary}`,
        toVerify: gate.toVerify,
      };
      actions.push({
        platform: "host",
        title: "Move the data files to storage that writes a page atomically, then re-run the advisor",
        steps: [
          ...gate.toVerify,
          caps.doublewritePagesVariable
            ? "Meanwhile keep innodb_doublewrite ON; raise innodb_doublewrite_pages if doublewrite-pages-too-small fires."
            : "Meanwhile keep innodb_doublewrite ON.",
        ],
        snippets: [],
        restart: false,
        changes: [],
      });
    }

    return [
      makeFinding(meta, {
        severity: verdict.verdict === "write-bound" ? "warning" : "notice",
        title: meta.title,
        summary,
        evidence: [
          { label: "Write-bound verdict", value: verdict.verdict, unit: "text" },
          indicatorEvidence(profile, "dblwrShareOfDeviceWriteBytes"),
          indicatorEvidence(profile, "dblwrShareOfInnodbWriteBytes"),
          indicatorEvidence(profile, "dblwrShareOfWriteOps"),
          indicatorEvidence(profile, "amplification"),
        ],
        actions,
        expectedGain: gain,
        risk: {
          level: "none",
          text: "This finding changes nothing by itself; the risk belongs to the step that removes doublewrite.",
        },
        prerequisites: [],
        blocked,
        confidence: findingConfidence(verdict.confidence, profile, [
          "dblwrShareOfDeviceWriteBytes",
          "dblwrShareOfWriteOps",
        ]),
      }),
    ];
  },
});
