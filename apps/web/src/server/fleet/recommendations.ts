/** The fleet's findings grouped by rule (pure): what to change where, most severe and widespread first. */
import type { GainEstimate } from "@untorn/advisor/gain";
import type { Severity } from "@untorn/advisor/rule";
import type { SnapshotAdvice } from "@untorn/fleet/pipeline";

export interface AffectedInstance {
  readonly instance: string;
  readonly cluster: string | null;
  readonly severity: Severity;
  readonly blocked: boolean;
  /** The finding carries a configuration or storage change (not only monitoring or information). */
  readonly actionable: boolean;
  readonly confidence: number;
  readonly gain: GainEstimate | null;
}

export interface RuleGroup {
  readonly ruleId: string;
  readonly title: string;
  readonly severity: Severity;
  readonly docs: string;
  readonly count: number;
  readonly blocked: number;
  /** Throughput gain range across the affected instances (min low, max high), or null without gains. */
  readonly throughput: { readonly low: number; readonly high: number } | null;
  readonly instances: readonly AffectedInstance[];
}

/**
 * The instances with a finding waiting for the safety gate, across every rule: the fleet's "Waiting for
 * the safety gate" card counts the same instances (@untorn/fleet's waitingForGate), so one instance
 * waiting on two rules counts once here and there.
 */
export function waitingInstances(groups: readonly RuleGroup[]): string[] {
  const out = new Set<string>();
  for (const g of groups) for (const i of g.instances) if (i.blocked) out.add(i.instance);
  return [...out].sort();
}

const ORDER: readonly Severity[] = ["critical", "error", "warning", "notice"];

export function groupFindings(advice: Iterable<SnapshotAdvice>): RuleGroup[] {
  const groups = new Map<string, { title: string; docs: string; items: AffectedInstance[] }>();
  for (const a of advice) {
    for (const f of a.findings) {
      let g = groups.get(f.ruleId);
      if (!g) {
        g = { title: f.title, docs: f.docs, items: [] };
        groups.set(f.ruleId, g);
      }
      g.items.push({
        instance: a.identity.instance,
        cluster: a.identity.cluster ?? null,
        severity: f.severity,
        blocked: f.blocked !== null,
        actionable: f.blocked === null && f.actions.some((a) => a.changes.length > 0),
        confidence: f.confidence,
        gain: f.expectedGain,
      });
    }
  }
  const out: RuleGroup[] = [];
  for (const [ruleId, g] of groups) {
    const severity = ORDER.find((s) => g.items.some((i) => i.severity === s)) ?? "notice";
    const gains = g.items
      .map((i) => i.gain?.throughput)
      .filter((t): t is { low: number; high: number } => !!t);
    const items = [...g.items].sort(
      (x, y) =>
        ORDER.indexOf(x.severity) - ORDER.indexOf(y.severity) ||
        (y.gain?.throughput.high ?? 0) - (x.gain?.throughput.high ?? 0) ||
        (x.instance < y.instance ? -1 : x.instance > y.instance ? 1 : 0),
    );
    out.push({
      ruleId,
      title: g.title,
      severity,
      docs: g.docs,
      count: items.length,
      blocked: items.filter((i) => i.blocked).length,
      throughput: gains.length
        ? { low: Math.min(...gains.map((t) => t.low)), high: Math.max(...gains.map((t) => t.high)) }
        : null,
      instances: items,
    });
  }
  return out.sort(
    (x, y) =>
      ORDER.indexOf(x.severity) - ORDER.indexOf(y.severity) ||
      y.count - x.count ||
      (x.ruleId < y.ruleId ? -1 : 1),
  );
}

/** What the Recommendations page's filters keep (lib/recommendations-query.ts). */
export interface GroupFilter {
  readonly q: string;
  readonly severity: Severity | null;
  readonly gate: "waiting" | "actionable" | null;
}

/**
 * The groups with only the affected instances the filter keeps (a rule whose id or title matches `q`
 * keeps its instances; otherwise an instance or cluster must match), counts and ranges recomputed over
 * them; a group left with none is dropped. The order stays groupFindings'.
 */
export function filterGroups(groups: readonly RuleGroup[], f: GroupFilter): RuleGroup[] {
  const needle = f.q.toLowerCase();
  const out: RuleGroup[] = [];
  for (const g of groups) {
    const ruleMatches =
      !needle || g.ruleId.toLowerCase().includes(needle) || g.title.toLowerCase().includes(needle);
    const items = g.instances.filter(
      (i) =>
        (ruleMatches ||
          i.instance.toLowerCase().includes(needle) ||
          (i.cluster?.toLowerCase().includes(needle) ?? false)) &&
        (f.severity === null || i.severity === f.severity) &&
        (f.gate === null || (f.gate === "waiting" ? i.blocked : i.actionable)),
    );
    if (items.length === 0) continue;
    if (items.length === g.instances.length) {
      out.push(g);
      continue;
    }
    const gains = items.map((i) => i.gain?.throughput).filter((t): t is { low: number; high: number } => !!t);
    out.push({
      ...g,
      severity: ORDER.find((s) => items.some((i) => i.severity === s)) ?? "notice",
      count: items.length,
      blocked: items.filter((i) => i.blocked).length,
      throughput: gains.length
        ? { low: Math.min(...gains.map((t) => t.low)), high: Math.max(...gains.map((t) => t.high)) }
        : null,
      instances: items,
    });
  }
  return out;
}
