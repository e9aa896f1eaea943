/**
 * Fleet ranking: every instance's best opportunity ordered by expected benefit x confidence.
 * Opportunities blocked by the safety gate are listed after the actionable ones, with their gate;
 * instances with critical or error findings are listed under atRisk whatever their benefit.
 */
import type { Advice } from "./advise.js";
import { benefitOf, type GainEstimate } from "./gain.js";
import type { GateStatus } from "./gate.js";
import type { Finding, Severity } from "./rule.js";
import type { VerdictKind } from "./verdict.js";

export interface FleetItem {
  readonly rank: number;
  readonly instance: string;
  readonly cluster: string | null;
  readonly role: string | null;
  readonly verdict: VerdictKind;
  readonly verdictConfidence: number;
  readonly gate: {
    readonly status: GateStatus;
    readonly summary: string;
    readonly toVerify: readonly string[];
  };
  /** The finding with the largest expected benefit, or null when none has a gain. */
  readonly opportunity: {
    readonly ruleId: string;
    readonly title: string;
    readonly severity: Severity;
    readonly expectedGain: GainEstimate;
  } | null;
  /** Mid-point benefit of the opportunity (throughput + 0.1 x efficiency, see gain.ts). */
  readonly benefit: number;
  readonly confidence: number;
  /** benefit x confidence: the sort key. */
  readonly score: number;
  /** The opportunity waits for the safety gate (or an upgrade) before it can be acted on. */
  readonly blocked: boolean;
  readonly worstSeverity: Severity | null;
}

export interface FleetRanking {
  readonly items: readonly FleetItem[];
  /** Instances with critical or error findings (e.g. doublewrite off on unverified storage). */
  readonly atRisk: readonly {
    readonly instance: string;
    readonly findings: readonly Pick<Finding, "ruleId" | "severity" | "title">[];
  }[];
  readonly counts: Readonly<Record<VerdictKind, number>> & {
    readonly blocked: number;
    readonly actionable: number;
  };
}

/** What ranking reads of a finding: a full Finding is one, and so is a slimmer copy kept for ranking. */
export type RankedFinding = Pick<
  Finding,
  "ruleId" | "title" | "severity" | "expectedGain" | "blocked" | "confidence"
> & { readonly actions: readonly { readonly changes: readonly unknown[] }[] };

/** What ranking reads of an instance's advice (a full Advice is one). */
export interface RankableAdvice {
  readonly identity: Pick<Advice["identity"], "instance" | "cluster" | "role">;
  readonly verdict: Pick<Advice["verdict"], "verdict" | "confidence">;
  readonly safetyGate: Pick<Advice["safetyGate"], "status" | "summary" | "toVerify">;
  readonly findings: readonly RankedFinding[];
}

const SEVERITY_ORDER: readonly Severity[] = ["critical", "error", "warning", "notice"];

/** A finding that carries the change itself (the remedy), not only the diagnosis. */
const hasChange = (f: RankedFinding) => f.actions.some((a) => a.changes.length > 0);

/**
 * The finding with the largest benefit. Ties (the diagnosis and its remedy share one gain) prefer an
 * unblocked finding, then one that carries the change, then the lower rule id, so the choice is stable.
 */
function bestOpportunity(findings: readonly RankedFinding[]): RankedFinding | null {
  const key = (f: RankedFinding) =>
    [-benefitOf(f.expectedGain), f.blocked === null ? 0 : 1, hasChange(f) ? 0 : 1] as const;
  let best: RankedFinding | null = null;
  for (const f of findings) {
    if (!f.expectedGain) continue;
    if (best === null) {
      best = f;
      continue;
    }
    const a = key(f);
    const b = key(best);
    const cmp =
      a[0] - b[0] ||
      a[1] - b[1] ||
      a[2] - b[2] ||
      (f.ruleId < best.ruleId ? -1 : f.ruleId > best.ruleId ? 1 : 0);
    if (cmp < 0) best = f;
  }
  return best;
}

export function rankFleet(results: readonly RankableAdvice[]): FleetRanking {
  const unranked = results.map((a) => {
    const opp = bestOpportunity(a.findings);
    const benefit = opp ? benefitOf(opp.expectedGain) : 0;
    const confidence = opp ? opp.confidence : 0;
    const worst = SEVERITY_ORDER.find((s) => a.findings.some((f) => f.severity === s)) ?? null;
    return {
      instance: a.identity.instance,
      cluster: a.identity.cluster ?? null,
      role: a.identity.role ?? null,
      verdict: a.verdict.verdict,
      verdictConfidence: a.verdict.confidence,
      gate: { status: a.safetyGate.status, summary: a.safetyGate.summary, toVerify: a.safetyGate.toVerify },
      opportunity:
        opp?.expectedGain != null
          ? { ruleId: opp.ruleId, title: opp.title, severity: opp.severity, expectedGain: opp.expectedGain }
          : null,
      benefit: round(benefit),
      confidence,
      score: round(benefit * confidence),
      blocked: opp?.blocked != null,
      worstSeverity: worst,
    };
  });
  const group = (i: (typeof unranked)[number]) => (i.score <= 0 ? 2 : i.blocked ? 1 : 0);
  unranked.sort(
    (a, b) =>
      group(a) - group(b) ||
      b.score - a.score ||
      (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0),
  );
  const items = unranked.map((i, n) => ({ rank: n + 1, ...i }));
  const atRisk = results
    .map((a) => ({
      instance: a.identity.instance,
      findings: a.findings
        .filter((f) => f.severity === "critical" || f.severity === "error")
        .map((f) => ({ ruleId: f.ruleId, severity: f.severity, title: f.title })),
    }))
    .filter((r) => r.findings.length > 0)
    .sort((a, b) => (a.instance < b.instance ? -1 : a.instance > b.instance ? 1 : 0));
  const counts = {
    "write-bound": 0,
    likely: 0,
    "not-write-bound": 0,
    unknown: 0,
    blocked: items.filter((i) => group(i) === 1).length,
    actionable: items.filter((i) => group(i) === 0).length,
  };
  for (const a of results) counts[a.verdict.verdict]++;
  return { items, atRisk, counts };
}

const round = (x: number) => Math.round(x * 10000) / 10000;
