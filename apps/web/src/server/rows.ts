/**
 * Fleet table rows and the summary cards from the advisor's results (pure). The ranking decides the
 * order and the opportunity; the profile gives amplification and doublewrite's share of writes.
 */
import type { Advice } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import type { FleetRanking } from "@untorn/advisor/fleet";
import type { ExporterPresence } from "@untorn/fleet/facts";
import type { FleetRow, FleetSummary } from "../lib/fleet-row.js";

/** Modes that still copy every page through the doublewrite buffer (docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2). */
const PROTECTING = new Set(["on", "detect_and_recover", "fast"]);

export function canDropDoublewrite(a: Advice, facts: InstanceFacts): boolean {
  const mode = facts.config.doublewrite ?? null;
  return (
    a.safetyGate.status === "verified" &&
    !a.safetyGate.providerManaged &&
    mode !== null &&
    PROTECTING.has(mode)
  );
}

export interface RowInput {
  readonly ranking: FleetRanking;
  readonly advice: ReadonlyMap<string, Advice>;
  readonly facts: ReadonlyMap<string, InstanceFacts>;
  readonly exporters: Readonly<Record<string, ExporterPresence>>;
  readonly stale: boolean;
}

export function buildRows(input: RowInput): FleetRow[] {
  const rows: FleetRow[] = [];
  for (const item of input.ranking.items) {
    const a = input.advice.get(item.instance);
    const f = input.facts.get(item.instance);
    if (!a || !f) continue;
    const ind = a.profile.indicators;
    const device = ind.dblwrShareOfDeviceWriteBytes.value;
    const innodb = ind.dblwrShareOfInnodbWriteBytes.value;
    const opp = item.opportunity;
    rows.push({
      rank: item.rank,
      instance: item.instance,
      cluster: item.cluster,
      role: (item.role as FleetRow["role"]) ?? null,
      flavor: f.server.flavor,
      version: f.server.version,
      doublewrite: f.config.doublewrite ?? null,
      gate: {
        status: a.safetyGate.status,
        path: a.safetyGate.path,
        providerManaged: a.safetyGate.providerManaged,
        summary: a.safetyGate.summary,
      },
      verdict: a.verdict.verdict,
      confidence: a.verdict.confidence,
      amplification: ind.amplification.value,
      dblwrShare: device ?? innodb,
      dblwrShareBasis: device !== null ? "device" : innodb !== null ? "innodb" : null,
      dblwrBytesPerSecond: ind.dblwrBytesRate.value,
      gain: opp
        ? {
            ruleId: opp.ruleId,
            title: opp.title,
            kind: opp.expectedGain.kind,
            throughput: { ...opp.expectedGain.throughput },
            writeBytesPerTxn: opp.expectedGain.writeBytesPerTxn
              ? { ...opp.expectedGain.writeBytesPerTxn }
              : null,
            blocked: item.blocked,
          }
        : null,
      benefit: item.benefit,
      canDropDoublewrite: canDropDoublewrite(a, f),
      worstSeverity: item.worstSeverity,
      findings: a.findings.length,
      exporters: input.exporters[item.instance] ?? { untorn: false, mysqldExporter: false },
      stale: input.stale,
    });
  }
  return rows;
}

export function buildSummary(
  rows: readonly FleetRow[],
  advice: ReadonlyMap<string, Advice>,
  ranking: FleetRanking,
  skipped: number,
): FleetSummary {
  const verdicts = { "write-bound": 0, likely: 0, "not-write-bound": 0, unknown: 0 };
  const gates = { verified: 0, unverified: 0, unsafe: 0 };
  let canDrop = 0;
  let blockedByGate = 0;
  let saved = 0;
  let fleetBytes = 0;
  let fleetBytesKnown = false;
  for (const r of rows) {
    verdicts[r.verdict]++;
    gates[r.gate.status]++;
    if (r.canDropDoublewrite) {
      canDrop++;
      saved += r.dblwrBytesPerSecond ?? 0;
    } else if (
      (r.verdict === "write-bound" || r.verdict === "likely") &&
      r.doublewrite !== null &&
      PROTECTING.has(r.doublewrite) &&
      r.gate.status !== "verified"
    )
      blockedByGate++;
    const ind = advice.get(r.instance)?.profile.indicators;
    const written = ind?.deviceWriteBytesRate.value ?? ind?.innodbWriteBytesRate.value ?? null;
    if (written !== null) {
      fleetBytes += written;
      fleetBytesKnown = true;
    }
  }
  return {
    instances: rows.length,
    skipped,
    verdicts,
    gates,
    canDropDoublewrite: canDrop,
    blockedByGate,
    atRisk: ranking.atRisk.length,
    savedBytesPerSecond: saved,
    fleetWriteBytesPerSecond: fleetBytesKnown ? fleetBytes : null,
    savedShare: fleetBytesKnown && fleetBytes > 0 ? Math.min(1, saved / fleetBytes) : null,
  };
}
