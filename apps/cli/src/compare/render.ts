/** Text output of a comparison: the overall verdict with its reasons, one row per metric, the warnings. */
import type { ComparisonResult, SeriesResult } from "@untorn/compare/result";
import { formatNumber, table } from "../io.js";

/** A ratio as a signed change: 1.25 → "+25.0%". */
export function change(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio) || ratio < 0) return "-";
  // compare reports no interval side past ×1000 (docs/comparison.md, "Bounded numbers"); an estimate
  // beyond it is no measurement either, and never printed as a number like 4.1e+67%.
  if (ratio > 1000) return "more than ×1000";
  const p = (ratio - 1) * 100;
  const abs = Math.abs(p);
  const text = abs >= 100 ? String(Number(p.toPrecision(3))) : abs >= 10 ? p.toFixed(1) : p.toFixed(2);
  return `${p >= 0 ? "+" : ""}${text}%`;
}

function interval(low: number | null, high: number | null): string {
  if (low === null) return "-";
  return `${change(low)} to ${high === null ? "unbounded" : change(high)}`;
}

function pValue(p: number | null): string {
  if (p === null) return "-";
  return p < 0.001 ? "<0.001" : p.toFixed(3);
}

function means(r: SeriesResult | undefined): string {
  if (!r || r.meanBefore === null || r.meanAfter === null) return "-";
  return `${formatNumber(r.meanBefore)} → ${formatNumber(r.meanAfter)}`;
}

export interface RenderContext {
  /** "db1 vs control db2", "before … after …": lines printed above the verdict. */
  readonly header: readonly string[];
}

export function renderComparison(result: ComparisonResult, ctx: RenderContext): string {
  const out: string[] = [...ctx.header, ""];
  const o = result.overall;
  out.push(
    `Verdict: ${o.verdict.toUpperCase()}${o.carriedBy.length ? ` (carried by ${o.carriedBy.join(", ")})` : ""}`,
  );
  for (const r of o.reasons) out.push(`  - ${r}`);
  out.push(`  throughput: ${o.throughput.message}`);
  out.push("");
  const treated = result.results.filter((r) => r.role === "treated");
  // The interval printed is the one the verdict rests on: simultaneous over the metrics that carry
  // the verdict when there are several, else the metric's own.
  const adjusted = result.metrics.find((m) => m.ciAdjustment !== "none");
  const level = adjusted ? adjusted.ciLevel : 1 - result.options.alpha;
  const levelText = `${Number(((level * 100) as number).toFixed(1))}% CI${adjusted ? " (simultaneous)" : ""}`;
  const vsControl = result.metrics.some((m) => m.vsControl);
  const subject = treated[0]?.instance ?? "treated";
  out.push(
    table(
      [
        "metric",
        "verdict",
        vsControl ? "change vs control" : "change",
        levelText,
        adjusted ? "p (adjusted)" : "p",
        vsControl ? `${subject} mean before → after (raw)` : "mean before → after",
        "blocks",
        "method",
      ],
      result.metrics.map((m) => {
        const first = treated.find((r) => r.metric === m.metric);
        return [
          `${m.metric}${m.carriesVerdict ? "" : " (not carrying)"}`,
          m.verdict,
          change(m.ratio),
          interval(m.ciLow, m.ciHigh),
          pValue(m.pValueAdjusted ?? m.pValue),
          means(first),
          !first
            ? "-"
            : first.blockSeconds === null && first.method !== "none"
              ? `${first.nBefore}/${first.nAfter} samples`
              : `${first.blocksBefore}/${first.blocksAfter} × ${first.blockSeconds ?? "-"}s`,
          first ? `${first.method}, ${first.design}` : "-",
        ];
      }),
    ).trimEnd(),
  );
  const notes = result.metrics.filter((m) => m.note).map((m) => `  ${m.metric}: ${m.note}`);
  if (notes.length) out.push("", "Notes:", ...notes);
  const flagged = result.results.flatMap((r) =>
    r.flags
      // The derived judgement of a short window says how it was judged: shown with the warnings.
      .filter((f) => f.severity !== "info" || f.code === "baseline_noise")
      .map(
        (f) =>
          `  [${f.severity}] ${r.role === "control" ? "control " : ""}${r.instance} ${r.metric}${f.window ? ` (${f.window})` : ""}: ${f.message}`,
      ),
  );
  if (flagged.length) out.push("", "Data quality:", ...dedupe(flagged));
  return `${out.join("\n")}\n`;
}

function dedupe(lines: string[]): string[] {
  return [...new Set(lines)];
}
