/**
 * Signals the verdict or the gate needed but did not get, with how to collect each: missing data
 * lowers confidence instead of being read as zero, so the fix is to collect it.
 */
import { z } from "zod";
import { defineMeta, defineRule, docsPath, makeFinding } from "../rule.js";

const id = "observability-gaps";

const meta = defineMeta({
  id,
  severity: "notice",
  title: "Missing signals lower the confidence of this advice",
  description:
    "Lists the verdict's missing signals and the gate's unknown checks, each with how to collect it (module_dblwr, performance_schema, the host-side exporter, storage metadata).",
  docs: docsPath(id),
  needs: { facts: ["workload", "storage", "config.perfSchemaEnabled"], indicators: [] },
  options: z
    .object({
      /** Report when missing signals carry at least this share of the verdict's applicable weight. */
      minMissingWeightShare: z.number().min(0).max(1).default(0.2),
    })
    .strict(),
});

export const observabilityGaps = defineRule({
  meta,
  evaluate(facts, profile, { options, caps, verdict, gate }) {
    const items: string[] = [];
    if (!facts.workload)
      items.push("No workload window: give the advisor rates over hours of representative load");
    const applicable = verdict.evidence.filter((e) => e.state !== "not-applicable");
    const total = applicable.reduce((sum, e) => sum + e.weight, 0);
    const missing = applicable.filter((e) => e.state === "missing");
    const missingShare = total === 0 ? 1 : missing.reduce((sum, e) => sum + e.weight, 0) / total;
    if (facts.workload && missingShare >= options.minMissingWeightShare)
      for (const e of missing) items.push(`${e.label}: ${e.howToGet ?? "collect it"}`);
    // Unknown gate checks matter only while the gate is undecided (unsafe or verified already answer).
    if (gate.status === "unverified" && !gate.providerManaged)
      for (const c of gate.checks)
        if (c.blocking && c.status === "unknown" && c.fix)
          items.push(`Safety gate, ${c.label.toLowerCase()}: ${c.fix}`);
    if (items.length === 0) return [];
    // Worth adding once something else is missing; on its own it does not change the advice.
    if (caps.dblwrFileInstrument && profile.indicators.dblwrShareOfFileIoWait.value === null)
      items.push(
        facts.config.perfSchemaEnabled === false
          ? "Doublewrite file I/O time: performance_schema is off (enable it at startup)"
          : "Doublewrite file I/O time: enable the exporter's perf_schema.file_io collector",
      );
    return [
      makeFinding(meta, {
        severity: "notice",
        title: meta.title,
        summary: `${items.length} signal(s) missing; the verdict's confidence is ${Math.round(verdict.confidence * 100)}%. Collecting them narrows the verdict and may verify the safety gate.`,
        evidence: items.map((i) => ({ label: "Missing", value: i, unit: "text" as const })),
        actions: [
          {
            platform: "monitoring",
            title: "Collect the missing signals",
            steps: items,
            snippets: caps.innodbMetricsDblwr
              ? [{ language: "sql", text: "SET GLOBAL innodb_monitor_enable = 'module_dblwr';" }]
              : [],
            restart: false,
            changes: [],
          },
        ],
        risk: { level: "none", text: "Monitoring only." },
        confidence: 1,
      }),
    ];
  },
});
