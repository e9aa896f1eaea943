/**
 * innodb_page_size larger than the storage's atomic unit (e.g. 32/64 KiB pages on a 16 KiB device or
 * cloud volume): doublewrite must stay on (docs/reference/atomic-storage.md §8.2, §8.7). The page size is fixed when the
 * instance is initialised, so the fix is a new instance or different storage.
 */
import { z } from "zod";
import { protection } from "../config-state.js";
import { bytes } from "../format.js";
import { defineMeta, defineRule, docsPath, makeFinding } from "../rule.js";

const id = "page-size-exceeds-atomic-unit";

const meta = defineMeta({
  id,
  severity: "error",
  title: "innodb_page_size is larger than the storage's atomic write unit",
  description:
    "The platform or device keeps writes atomic only up to a unit smaller than the InnoDB page: doublewrite must stay on.",
  docs: docsPath(id),
  needs: {
    facts: [
      "config.pageSizeBytes",
      "storage.atomicWrite.unitMaxBytes",
      "storage.tornWriteProtection.unitBytes",
    ],
    indicators: [],
  },
  options: z.object({}).strict(),
});

export const pageSizeExceedsAtomicUnit = defineRule({
  meta,
  evaluate(facts, _profile) {
    const page = facts.config.pageSizeBytes ?? null;
    if (page === null) return [];
    const s = facts.storage;
    if (s?.fsType?.toLowerCase() === "zfs") return [];
    const twp = s?.tornWriteProtection ?? null;
    const deviceUnit =
      s?.atomicWrite?.attributesPresent === true ? (s.atomicWrite.unitMaxBytes ?? null) : null;
    // The largest unit any source offers: the page must fit in it.
    const unit = Math.max(twp?.unitBytes ?? 0, deviceUnit ?? 0);
    if (unit === 0 || unit >= page) return [];
    const source =
      (twp?.unitBytes ?? 0) >= (deviceUnit ?? 0) ? "the platform's torn-write protection" : "the device";
    const prot = protection(facts);
    const unprotected = prot === "off" || prot === "detect-only";
    return [
      makeFinding(meta, {
        severity: unprotected ? "error" : "notice",
        title: meta.title,
        summary:
          `innodb_page_size is ${bytes(page)} but ${source} keeps writes atomic only up to ${bytes(unit)}: each page write can tear, so doublewrite must stay on` +
          (unprotected ? ", and it is currently off." : ".") +
          ` To benefit from atomic writes, a new instance with innodb_page_size=${Math.min(unit, 16384)} (logical dump and reload) or storage with a unit >= ${bytes(page)} is needed.`,
        evidence: [
          { label: "innodb_page_size", value: page, unit: "bytes" },
          { label: "Atomic unit", value: unit, unit: "bytes" },
        ],
        actions: [],
        risk: { level: "none", text: "Nothing to change while doublewrite is on." },
        prerequisites: [],
        confidence: 1,
      }),
    ];
  },
});
