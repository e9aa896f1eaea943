/** The CSV downloads' bodies (pure): the fleet table's rows and the recommendations, one line each. */
import { toCsv } from "../../lib/csv.js";
import type { FleetRow } from "../../lib/fleet-row.js";
import type { RuleGroup } from "./recommendations.js";

export const FLEET_CSV_HEADER = [
  "rank",
  "instance",
  "cluster",
  "role",
  "flavor",
  "version",
  "doublewrite",
  "gate",
  "verdict",
  "confidence",
  "dw_pages_per_flushed_page",
  "dw_share_of_write_bytes",
  "dw_share_basis",
  "dw_bytes_per_second",
  "best_opportunity",
  "gain_kind",
  "throughput_gain_low",
  "throughput_gain_high",
  "write_bytes_per_txn_cut_low",
  "write_bytes_per_txn_cut_high",
  "gain_waits_for_gate",
  "worst_severity",
  "findings",
  "stale",
] as const;

/** The fleet's rows as the table shows them (ratios as fractions: 0.3 = 30 %), in the order given. */
export function fleetCsv(rows: readonly FleetRow[]): string {
  return toCsv(
    FLEET_CSV_HEADER,
    rows.map((r) => [
      r.rank,
      r.instance,
      r.cluster,
      r.role,
      r.flavor,
      r.version,
      r.doublewrite,
      r.gate.status,
      r.verdict,
      r.confidence,
      r.amplification,
      r.dblwrShare,
      r.dblwrShareBasis,
      r.dblwrBytesPerSecond,
      r.gain?.title ?? null,
      r.gain?.kind ?? null,
      r.gain?.throughput.low ?? null,
      r.gain?.throughput.high ?? null,
      r.gain?.writeBytesPerTxn?.low ?? null,
      r.gain?.writeBytesPerTxn?.high ?? null,
      r.gain ? r.gain.blocked : null,
      r.worstSeverity,
      r.findings,
      r.stale,
    ]),
  );
}

export const RECOMMENDATIONS_CSV_HEADER = [
  "rule",
  "rule_title",
  "instance",
  "cluster",
  "severity",
  "waits_for_gate",
  "actionable",
  "confidence",
  "throughput_gain_low",
  "throughput_gain_high",
  "write_bytes_per_txn_cut_low",
  "write_bytes_per_txn_cut_high",
] as const;

/** One line per finding: each rule's affected instances, in the page's order. */
export function recommendationsCsv(groups: readonly RuleGroup[]): string {
  return toCsv(
    RECOMMENDATIONS_CSV_HEADER,
    groups.flatMap((g) =>
      g.instances.map((i) => [
        g.ruleId,
        g.title,
        i.instance,
        i.cluster,
        i.severity,
        i.blocked,
        i.actionable,
        i.confidence,
        i.gain?.throughput.low ?? null,
        i.gain?.throughput.high ?? null,
        i.gain?.writeBytesPerTxn?.low ?? null,
        i.gain?.writeBytesPerTxn?.high ?? null,
      ]),
    ),
  );
}
