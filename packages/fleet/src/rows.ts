/**
 * The one fleet-row builder (pure): the advisor's ranking decides the order and the opportunity, the
 * advice gives the verdict, the gate, amplification and doublewrite's share of writes, the facts give the
 * flavor, version and doublewrite mode. The web app's snapshot and the CLI's `untorn fleet` /
 * `untorn advise` both rank and build their rows here; row.ts has the row's schema.
 */
import type { Advice } from "@untorn/advisor/advise";
import type { InstanceFacts } from "@untorn/advisor/facts";
import {
  type FleetItem,
  type FleetRanking,
  type RankableAdvice,
  type RankedFinding,
  rankFleet,
} from "@untorn/advisor/fleet";
import type { FleetRow, FleetSummary, RankedFleetRow } from "./row.js";

/** Modes that still copy every page through the doublewrite buffer (docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2). */
const PROTECTING = new Set(["on", "detect_and_recover", "fast"]);

type IndicatorValue = { readonly value: Advice["profile"]["indicators"]["amplification"]["value"] };

/**
 * What the rows, the summary and the ranking read of an instance's advice. A full Advice is one; a
 * caller that holds a whole fleet can keep a copy of just this (the pipeline's snapshot does).
 */
export interface RowAdvice extends RankableAdvice {
  readonly safetyGate: Pick<
    Advice["safetyGate"],
    "status" | "path" | "providerManaged" | "demoOnly" | "summary" | "toVerify"
  >;
  readonly findings: readonly RankedFinding[];
  readonly profile: {
    readonly indicators: Readonly<
      Record<
        | "amplification"
        | "dblwrShareOfDeviceWriteBytes"
        | "dblwrShareOfInnodbWriteBytes"
        | "dblwrBytesRate"
        | "deviceWriteBytesRate"
        | "innodbWriteBytesRate",
        IndicatorValue
      >
    >;
  };
}

export function canDropDoublewrite(a: RowAdvice, facts: InstanceFacts): boolean {
  const mode = facts.config.doublewrite ?? null;
  return (
    a.safetyGate.status === "verified" &&
    !a.safetyGate.providerManaged &&
    mode !== null &&
    PROTECTING.has(mode)
  );
}

/**
 * The one definition of "waiting for the safety gate": some finding's gain needs a step the gate does
 * not allow yet. The fleet's card and filter count these instances; Recommendations counts the same
 * findings per rule and names the same instances.
 */
export function waitingForGate(a: Pick<RowAdvice, "findings">): boolean {
  return a.findings.some((f) => f.blocked != null);
}

export interface RowInput {
  readonly ranking: FleetRanking;
  /** Advice by instance label. */
  readonly advice: ReadonlyMap<string, RowAdvice>;
  /** The facts the advice was made from, by instance label. */
  readonly facts: ReadonlyMap<string, InstanceFacts>;
}

/** One row of a ranked instance. */
export function fleetRow(item: FleetItem, a: RowAdvice, f: InstanceFacts): FleetRow {
  const ind = a.profile.indicators;
  const device = ind.dblwrShareOfDeviceWriteBytes.value;
  const innodb = ind.dblwrShareOfInnodbWriteBytes.value;
  // The advisor withholds the device's share when the device wrote well over the instance's own bytes
  // (other instances or processes share it): the device bytes are known, its share is not.
  const deviceBytes = ind.deviceWriteBytesRate.value;
  const shared = device === null && innodb !== null && deviceBytes !== null && deviceBytes > 0;
  const opp = item.opportunity;
  return {
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
      demoOnly: a.safetyGate.demoOnly,
      summary: a.safetyGate.summary,
    },
    verdict: a.verdict.verdict,
    confidence: a.verdict.confidence,
    amplification: ind.amplification.value,
    dblwrShare: device ?? innodb,
    dblwrShareBasis:
      device !== null ? "device" : shared ? "shared-device" : innodb !== null ? "innodb" : null,
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
    waitingForGate: waitingForGate(a),
    worstSeverity: item.worstSeverity,
    findings: a.findings.length,
  };
}

/** The rows in rank order; a ranked instance without advice or facts has none. */
export function buildRows(input: RowInput): FleetRow[] {
  const rows: FleetRow[] = [];
  for (const item of input.ranking.items) {
    const a = input.advice.get(item.instance);
    const f = input.facts.get(item.instance);
    if (a && f) rows.push(fleetRow(item, a, f));
  }
  return rows;
}

/** A row with the ranking's detail the CLI prints (score, opportunity, top finding, what to verify). */
export function rankedRow(row: FleetRow, item: FleetItem, a: RowAdvice): RankedFleetRow {
  const top = a.findings[0];
  return {
    ...row,
    gate: { ...row.gate, toVerify: [...item.gate.toVerify] },
    verdictConfidence: item.verdictConfidence,
    opportunity: item.opportunity,
    opportunityConfidence: item.confidence,
    score: item.score,
    blocked: item.blocked,
    dblwrShareOfDeviceWrites: a.profile.indicators.dblwrShareOfDeviceWriteBytes.value,
    topFinding: top ? { ruleId: top.ruleId, title: top.title, severity: top.severity } : null,
  };
}

/** The rows (buildRows') with the ranking's detail, in rank order. */
export function rankedRows(
  rows: readonly FleetRow[],
  ranking: FleetRanking,
  advice: ReadonlyMap<string, RowAdvice>,
): RankedFleetRow[] {
  const items = new Map(ranking.items.map((i) => [i.instance, i]));
  return rows.map((r) => rankedRow(r, items.get(r.instance)!, advice.get(r.instance)!));
}

/** The fleet summary cards: verdict and gate counts, what could drop doublewrite and what it would save. */
export function buildSummary(
  rows: readonly FleetRow[],
  advice: ReadonlyMap<string, RowAdvice>,
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
    }
    if (r.waitingForGate) blockedByGate++;
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

export interface RankedFleet {
  readonly ranking: FleetRanking;
  readonly rows: FleetRow[];
  readonly summary: FleetSummary;
}

/** Ranks the advised instances and builds the rows and the summary: the step after advising. */
export function rankRows(
  advice: ReadonlyMap<string, RowAdvice>,
  facts: ReadonlyMap<string, InstanceFacts>,
  skipped: number,
): RankedFleet {
  const ranking = rankFleet([...advice.values()]);
  const rows = buildRows({ ranking, advice, facts });
  return { ranking, rows, summary: buildSummary(rows, advice, ranking, skipped) };
}
