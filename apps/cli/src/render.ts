/** Text output of the fleet table and the one-instance view. */
import type { Advice } from "@untorn/advisor/advise";
import type { FleetRanking } from "@untorn/advisor/fleet";
import type { IndicatorId } from "@untorn/advisor/profile";
import type { Finding } from "@untorn/advisor/rule";
import type { RankedFleetRow } from "@untorn/fleet/row";
import { SHARE_BASES, SHARE_BASIS_MARKS } from "@untorn/vocabulary/words";
import { formatNumber, table } from "./io.js";

export const pct = (x: number | null | undefined): string =>
  x === null || x === undefined ? "-" : `${Math.round(x * 1000) / 10}%`.replace(/\.0%$/, "%");

const signedPct = (x: number) => `${x > 0 ? "+" : ""}${pct(x)}`;

function range(low: number, high: number): string {
  return Math.abs(high - low) < 0.005 ? signedPct(low) : `${signedPct(low)} to ${signedPct(high)}`;
}

const clip = (s: string, n: number) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The ranked fleet table: expected benefit × confidence first; "dw/flushed" is doublewrite pages per
 * flushed page. A share of InnoDB's bytes rather than the device's is marked as the console marks it
 * (SHARE_BASIS_MARKS), and each mark used is explained under the table.
 */
export function fleetTable(rows: readonly RankedFleetRow[]): string {
  if (rows.length === 0) return "(no instances)\n";
  const bases = SHARE_BASES.filter((b) => rows.some((r) => r.dblwrShareBasis === b));
  const footnotes = bases
    .flatMap((b) => {
      const { mark, note } = SHARE_BASIS_MARKS[b];
      return note ? [`${mark} dw share ${note}\n`] : [];
    })
    .join("");
  return `${table(
    ["#", "instance", "verdict", "conf", "score", "dw/flushed", "dw share", "gate", "top finding"],
    rows.map((r) => [
      r.rank,
      r.instance,
      r.verdict,
      pct(r.confidence),
      r.score,
      r.amplification === null ? "-" : r.amplification.toFixed(2),
      `${pct(r.dblwrShare)}${SHARE_BASIS_MARKS[r.dblwrShareBasis ?? "device"].mark}`,
      r.gate.demoOnly ? `${r.gate.status} (demo only)` : r.gate.status,
      r.topFinding ? clip(`${r.topFinding.severity}: ${r.topFinding.title}`, 70) : "-",
    ]),
  )}${footnotes}`;
}

/** The notes under the table: instances at risk, skipped, and without untorn-exporter. */
export function fleetNotes(
  ranking: FleetRanking,
  skipped: readonly { instance: string; reason: string }[],
  fallbackOnly: readonly string[],
  /** The summary's blockedByGate: instances with a finding waiting for the gate, as the console's card. */
  waitingForGate: number,
): string {
  const out: string[] = [];
  const c = ranking.counts;
  out.push(
    `\n${c["write-bound"]} write-bound, ${c.likely} likely, ${c["not-write-bound"]} not write-bound, ${c.unknown} unknown; ${c.actionable} actionable, ${waitingForGate} waiting for the safety gate.`,
  );
  for (const r of ranking.atRisk)
    out.push(`AT RISK ${r.instance}: ${r.findings.map((f) => `${f.severity}: ${f.title}`).join("; ")}`);
  // A gain that waits for the safety gate: what to verify first (untorn instance <name> lists it all).
  for (const i of ranking.items.filter((x) => x.blocked && x.opportunity))
    out.push(
      `WAITING ${i.instance} (gate ${i.gate.status}): ${i.opportunity!.title}; first verify: ${i.gate.toVerify[0] ?? i.gate.summary}`,
    );
  for (const s of skipped) out.push(`skipped ${s.instance}: ${s.reason}`);
  if (fallbackOnly.length)
    out.push(
      `without untorn-exporter (mysqld_exporter fallbacks only, no file-class, storage or gate facts): ${fallbackOnly.join(", ")}`,
    );
  return `${out.join("\n")}\n`;
}

const INDICATORS: readonly IndicatorId[] = [
  "transactionRate",
  "pagesFlushedRate",
  "dblwrPagesRate",
  "amplification",
  "avgBatchPages",
  "batchFill",
  "dblwrShareOfInnodbWriteBytes",
  "dblwrShareOfWriteOps",
  "dblwrShareOfFileIoWait",
  "dblwrShareOfDeviceWriteBytes",
  "dblwrShareOfDeviceWriteIops",
  "writeBytesPerTxn",
  "fsyncsPerTxn",
  "deviceWriteIops",
  "deviceUtilisation",
  "deviceWriteLatency",
  "deviceFlushLatency",
  "freePageWaitsRate",
  "checkpointAgeShare",
];

function indicatorValue(v: number | null, unit: string): string {
  if (v === null) return "-";
  if (unit === "ratio") return pct(v);
  if (unit === "seconds") return v >= 1 ? `${formatNumber(v)} s` : `${formatNumber(v * 1000)} ms`;
  return `${formatNumber(v)} ${unit}`;
}

function gainText(f: Finding): string | null {
  const g = f.expectedGain;
  if (!g) return null;
  const parts = [`throughput ${range(g.throughput.low, g.throughput.high)}`];
  if (g.writeBytesPerTxn)
    parts.push(`write bytes/txn ${range(-g.writeBytesPerTxn.high, -g.writeBytesPerTxn.low)}`);
  if (g.writeOpsPerTxn) parts.push(`write ops/txn ${range(-g.writeOpsPerTxn.high, -g.writeOpsPerTxn.low)}`);
  return `${parts.join(", ")} (${g.kind})`;
}

const indent = (text: string, n: number) =>
  text
    .split("\n")
    .map((l) => (l ? " ".repeat(n) + l : l))
    .join("\n");

/** One instance: profile, verdict with its evidence, findings with the exact change, and the safety gate. */
export function instanceView(a: Advice, missing: readonly string[] = []): string {
  const out: string[] = [];
  out.push(`${a.identity.instance}  ${a.server.flavor} ${a.server.version}`);
  out.push("");
  if (a.warnings.length > 0) {
    out.push("Input warnings:");
    for (const w of a.warnings) out.push(`  [${w.code}] ${w.path}: ${w.message}`);
    out.push("");
  }
  out.push(`Verdict: ${a.verdict.summary}`);
  const ev = a.verdict.evidence.filter((e) => e.state !== "not-applicable");
  out.push(
    indent(
      table(
        ["state", "signal", "value", "partial / strong"],
        ev.map((e) => [
          e.state,
          e.label,
          e.value === null ? "-" : `${indicatorValue(e.value, e.unit)} (${e.statistic})`,
          `${indicatorValue(e.threshold.partial, e.unit)} / ${indicatorValue(e.threshold.strong, e.unit)}`,
        ]),
      ),
      2,
    ).trimEnd(),
  );
  for (const e of ev.filter((x) => x.state === "missing" && x.howToGet))
    out.push(`  to get "${e.label}": ${e.howToGet}`);
  for (const c of a.verdict.context) out.push(`  note: ${c}`);

  out.push("", "Profile:");
  out.push(
    indent(
      table(
        ["indicator", "value", "peak"],
        INDICATORS.map((id) => {
          const i = a.profile.indicators[id];
          return [
            i.label,
            indicatorValue(i.value, i.unit),
            i.peak === null ? "" : indicatorValue(i.peak, i.unit),
          ];
        }),
      ),
      2,
    ).trimEnd(),
  );
  for (const n of a.profile.notes) out.push(`  note: ${n}`);

  out.push("", `Findings (${a.findings.length}):`);
  for (const f of a.findings) {
    out.push(`  [${f.severity}] ${f.title} (${f.ruleId}, confidence ${pct(f.confidence)})`);
    out.push(indent(f.summary, 4));
    const gain = gainText(f);
    if (gain) out.push(`    expected gain: ${gain}`);
    out.push(`    risk: ${f.risk.level}: ${f.risk.text}`);
    if (f.blocked)
      out.push(
        `    BLOCKED by the safety gate (${f.blocked.gate}): ${f.blocked.reason}`,
        ...f.blocked.toVerify.map((t) => `      to verify: ${t}`),
      );
    for (const p of f.prerequisites) out.push(`    prerequisite: ${p}`);
    for (const action of f.actions) {
      out.push(`    change (${action.platform}${action.restart ? ", restart" : ""}): ${action.title}`);
      for (const c of action.changes)
        out.push(
          `      ${c.variable}: ${c.from ?? "(unset)"} -> ${c.to} via ${c.via}${c.restart ? " (restart)" : ""}`,
        );
      for (const [i, s] of action.steps.entries()) out.push(`      ${i + 1}. ${s}`);
      for (const s of action.snippets) out.push(`      --- ${s.language}`, indent(s.text, 6), "      ---");
    }
    out.push(`    docs: ${f.docs}`);
  }

  const g = a.safetyGate;
  out.push("", `Safety gate: ${g.status}${g.path ? ` (${g.path})` : ""}: ${g.summary}`);
  out.push(
    indent(
      table(
        ["check", "path", "status", "detail"],
        g.checks.map((c) => [c.label, c.path, c.status, clip(c.detail, 90)]),
      ),
      2,
    ).trimEnd(),
  );
  for (const b of g.blockers) out.push(`  blocker: ${b}`);
  for (const t of g.toVerify) out.push(`  to verify: ${t}`);
  if (missing.length) out.push("", `Missing facts (unknown, not zero): ${missing.join(", ")}`);
  return `${out.join("\n")}\n`;
}
