/**
 * innodb_doublewrite_pages too small for the flush rate: batches are full, so every few pages cost a
 * doublewrite write and the flushes that close the batch. Default 4 on MySQL 8.0.20-8.3, 128 on 8.4+
 * (docs/reference/mysql.md §1.4, docs/reference/traps.md §10.3); Percona measured -64% write IOPS going from 4 to 128 (docs/reference/iops-metering.md §11).
 */
import { z } from "zod";
import { doublewritePagesAction } from "../actions.js";
import { protection } from "../config-state.js";
import { num, pct, pctRange } from "../format.js";
import { bindingOf, doublewriteFlushes, type GainEstimate, rangeFor, saturatedBound } from "../gain.js";
import {
  defineMeta,
  defineRule,
  docsPath,
  findingConfidence,
  indicatorEvidence,
  makeFinding,
} from "../rule.js";

const id = "doublewrite-pages-too-small";

const meta = defineMeta({
  id,
  severity: "warning",
  title: "innodb_doublewrite_pages too small for the flush rate",
  description:
    "MySQL/Percona 8.0.20+: doublewrite batches are full at innodb_doublewrite_pages (4 by default before 8.4) while pages are flushed fast enough that per-batch writes and flushes add up.",
  docs: docsPath(id),
  needs: {
    facts: [
      "server.version",
      "config.doublewritePages",
      "config.writeIoThreads",
      "workload.rates.dblwrPagesWritten",
      "workload.rates.dblwrWrites",
      "workload.rates.dataFsyncs",
    ],
    indicators: ["avgBatchPages", "batchCapacityPages", "batchFill", "dblwrFlushWaitsRate"],
  },
  options: z
    .object({
      /** Batches at >= 90% of capacity on average are full: the cap, not the flush batch, sets their size. */
      minFill: z.number().min(0).max(1).default(0.9),
      /** Below this many doublewrite batches per second the per-batch overhead is negligible. */
      minBatchesPerSecond: z.number().nonnegative().default(20),
      target: z.number().int().min(1).max(512).default(128),
    })
    .strict(),
});

export const doublewritePagesTooSmall = defineRule({
  meta,
  evaluate(facts, profile, { options, caps, verdict }) {
    if (!caps.doublewritePagesVariable) return [];
    const prot = protection(facts);
    if (prot !== "full" && prot !== "detect-only") return [];
    const ind = profile.indicators;
    const cap = ind.batchCapacityPages.value;
    const fill = ind.batchFill.value;
    const avg = ind.avgBatchPages.value;
    const batches = facts.workload?.rates?.dblwrWrites?.avg ?? null;
    if (cap === null || fill === null || avg === null || batches === null) return [];
    if (cap >= options.target || fill < options.minFill) return [];
    const waits = ind.dblwrFlushWaitsRate.value;
    const pressured = verdict.verdict === "write-bound" || verdict.verdict === "likely";
    if (batches < options.minBatchesPerSecond && !(waits !== null && waits > 0) && !pressured) return [];

    // Per-batch operations: the doublewrite write plus the flushes that close the batch.
    const r = facts.workload?.rates;
    const fsyncs = r?.dataFsyncs?.avg ?? null;
    const flushesPerBatch = fsyncs !== null && batches > 0 ? Math.min(2, fsyncs / batches) : 1;
    const extra = Math.max(doublewriteFlushes(facts, caps, batches), flushesPerBatch * batches);
    const batchOps = batches + extra;
    const dev = facts.workload?.device;
    const total =
      dev?.writeIops != null
        ? dev.writeIops.avg + (dev.flushesPerSecond?.avg ?? 0)
        : r?.dataWrites != null
          ? r.dataWrites.avg + (fsyncs ?? 0)
          : null;
    const sBatch = total && total > 0 ? Math.min(1, batchOps / total) : null;
    // New batches hold between 4x the old cap and the target (flush batches larger than the cap).
    const cut = { low: 1 - cap / Math.min(options.target, 4 * cap), high: 1 - cap / options.target };
    const opsCut = sBatch === null ? null : { low: sBatch * cut.low, high: sBatch * cut.high };
    const binding = bindingOf(facts, profile);
    const requestsMatter = binding !== "iops-16k" && binding !== "bandwidth";
    const effectiveVerdict =
      waits !== null && waits >= 1 && verdict.verdict !== "write-bound" ? "likely" : verdict.verdict;
    const throughput =
      opsCut && requestsMatter
        ? rangeFor(effectiveVerdict, { low: saturatedBound(opsCut.low), high: saturatedBound(opsCut.high) })
        : { low: 0, high: 0 };
    const r3 = (x: number) => Math.round(x * 1000) / 1000;
    const gain: GainEstimate = {
      throughput,
      writeBytesPerTxn: null,
      writeOpsPerTxn: opsCut ? { low: r3(opsCut.low), high: r3(opsCut.high) } : null,
      fsyncsPerTxn: null,
      kind: throughput.high > 0 ? "throughput" : opsCut ? "efficiency" : "none",
      binding,
      share: sBatch === null ? null : r3(sBatch),
      basis:
        `per-batch operations (doublewrite write + ${num(flushesPerBatch)} flushes) are ${sBatch === null ? "an unknown share" : pct(sBatch)} of write requests; ` +
        `batches grow from ${num(cap)} to ${num(Math.min(options.target, 4 * cap))}-${options.target} pages, cutting them by ${pct(cut.low)}-${pct(cut.high)}` +
        (requestsMatter
          ? "; throughput rises only if requests or batch waits bind"
          : "; bytes are unchanged, so a bandwidth or 16 KiB-metered limit does not move") +
        ". Percona measured -64% write IOPS (4 -> 128, single-thread inserts), so this model is conservative.",
      citations: [
        "docs/reference/mysql.md §1.4",
        "docs/reference/published-results.md §9",
        "docs/reference/iops-metering.md §11",
      ],
    };

    const defaultNote =
      caps.defaultDoublewritePages === "write_io_threads"
        ? " (the 8.0.20-8.3 default: innodb_write_io_threads)"
        : caps.defaultDoublewritePages === 128
          ? " (lowered from the 8.4 default of 128)"
          : "";
    return [
      makeFinding(meta, {
        severity: pressured || (waits !== null && waits > 0) ? "warning" : "notice",
        title: meta.title,
        summary:
          `Doublewrite batches average ${num(avg)} of ${num(cap)} pages (${pct(fill)} full)${defaultNote} at ${num(batches)} batches/s` +
          (waits !== null ? `, ${num(waits)} batch waits/s` : "") +
          `. innodb_doublewrite_pages=${options.target} cuts per-batch operations by ${pct(cut.low)}-${pct(cut.high)}` +
          (opsCut ? ` (${pct(opsCut.low)}-${pct(opsCut.high)} of write requests)` : "") +
          (throughput.high > 0 ? `; write throughput ${pctRange(throughput.low, throughput.high)}` : "") +
          ". Bulk loads and table rebuilds gain most (3-5x reported, docs/reference/published-results.md §9).",
        evidence: [
          indicatorEvidence(profile, "avgBatchPages"),
          indicatorEvidence(profile, "batchCapacityPages"),
          indicatorEvidence(profile, "batchFill"),
          { label: "Doublewrite batches", value: batches, unit: "ops/s" },
          indicatorEvidence(profile, "dblwrFlushWaitsRate"),
        ],
        actions: [doublewritePagesAction(facts, options.target)],
        expectedGain: gain,
        risk: {
          level: "low",
          text: "Keeps full torn-page protection. Needs a restart; the doublewrite files grow to hold the larger batches (a few MiB).",
        },
        prerequisites: ["A restart window (replicas first, primary via switchover)."],
        // Full batches are observed directly, so the finding stands even when the verdict is unsure.
        confidence: findingConfidence(Math.max(verdict.confidence, 0.6), profile, [
          "batchFill",
          "dblwrFlushWaitsRate",
        ]),
      }),
    ];
  },
});
