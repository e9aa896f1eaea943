/**
 * How the console words a rollout: order of the list, progress, the last gate, and the outcome and
 * effect of a judged metric in the words a DBA reads right (what is compared with what, what
 * "inconclusive" and "no data" mean). Pure: the pages, the read API and the tests share it.
 */
import { formatChange } from "@untorn/compare/format";
import type { GateOutcome, GateResult, MetricJudgement, RolloutEvent } from "@untorn/rollout/events";
import type { ExclusionReason } from "@untorn/rollout/plan";
import type { RolloutState, RolloutStatus } from "@untorn/rollout/state";

/** Rollouts someone still has to act on, first; then the finished ones. */
const STATUS_ORDER: Record<RolloutStatus, number> = {
  active: 0,
  paused: 1,
  halted: 2,
  reverting: 3,
  completed: 4,
  aborted: 5,
  reverted: 6,
};

export const isActiveStatus = (s: RolloutStatus) => STATUS_ORDER[s] < STATUS_ORDER.completed;

export const STATUS_TEXT: Record<RolloutStatus, string> = {
  active: "Active",
  paused: "Paused",
  halted: "Halted: revert proposed",
  reverting: "Reverting",
  completed: "Completed",
  aborted: "Aborted",
  reverted: "Reverted",
};

export const STATUS_TONE: Record<RolloutStatus, "info" | "warn" | "bad" | "good" | "outline"> = {
  active: "info",
  paused: "warn",
  halted: "bad",
  reverting: "warn",
  completed: "good",
  aborted: "outline",
  reverted: "outline",
};

/**
 * Active first (then paused, halted, reverting), newest first within each: by the rollout's clock, then
 * (rollouts made on one recording share its end) by when the store saved them.
 */
export function sortRollouts<
  T extends { status: RolloutStatus; createdAt: number; storedAt: Date; id: string },
>(list: readonly T[]): T[] {
  return [...list].sort(
    (a, b) =>
      STATUS_ORDER[a.status] - STATUS_ORDER[b.status] ||
      b.createdAt - a.createdAt ||
      b.storedAt.getTime() - a.storedAt.getTime() ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** The wall-clock save time, when it tells more than the rollout's clock (a minute or more apart). */
export function savedApart(createdAt: number, storedAt: Date): Date | null {
  return Math.abs(storedAt.getTime() / 1000 - createdAt) >= 60 ? storedAt : null;
}

export interface Progress {
  /** Waves that passed (an accepted inconclusive wave counts: a person decided to move on). */
  readonly done: number;
  readonly total: number;
  readonly text: string;
}

export function progressOf(s: Pick<RolloutState, "waves" | "status">): Progress {
  const total = s.waves.length;
  // Done is passed (an inconclusive wave a person accepted is passed too); an inconclusive wave that
  // was then reverted or aborted is not done.
  const done = s.waves.filter((w) => w.phase === "passed").length;
  const waves = `${total} wave${total === 1 ? "" : "s"}`;
  const text =
    total === 0
      ? "no wave (nothing eligible)"
      : s.status === "reverted"
        ? `reverted after ${done} of ${waves} passed`
        : s.status === "aborted"
          ? `aborted after ${done} of ${waves} passed`
          : `${done} of ${waves} done`;
  return { done, total, text };
}

/** Why the plan left an instance out, in the words the plan editor, the rollout page and tests read. */
export const EXCLUSION_TEXT: Record<ExclusionReason, string> = {
  "gate-not-verified": "safety gate not verified",
  "provider-managed": "managed by the provider",
  "version-without-setting": "this server version has no such setting",
  "platform-mismatch": "another platform",
  "already-at-target": "already at the target value",
  "read-only-server": "read-only server",
  "inherits-setting": "inherits the setting from its primary",
  "no-control-sibling": "no sibling replica for a control",
  "no-switchover-target": "no changed replica to switch over to",
  "role-unknown": "role unknown",
  "another-rollout-active": "another rollout is active on it",
  "duplicate-instance": "listed twice",
};

export const OUTCOME_TEXT: Record<GateOutcome, string> = {
  pass: "Pass",
  fail: "Fail",
  inconclusive: "Inconclusive",
  "no-data": "No data",
  waiting: "Waiting",
};

/** What each outcome means, said once beside the comparison table. */
export const OUTCOME_MEANING: Record<GateOutcome, string> = {
  pass: "the criterion held with enough data",
  fail: "the criterion was broken: the wave halts and the revert is proposed",
  inconclusive:
    "not enough evidence either way (the interval straddles the margin): the rollout pauses for a person to decide, it is not a pass",
  "no-data": "the metric had no series in the window: never counted as a pass",
  waiting: "not judged yet",
};

export const OUTCOME_TONE: Record<GateOutcome, "good" | "bad" | "warn" | "outline"> = {
  pass: "good",
  fail: "bad",
  inconclusive: "warn",
  "no-data": "warn",
  waiting: "outline",
};

export const GATE_TEXT: Record<GateResult["gate"], string> = {
  "pre-wave": "Pre-wave gate",
  step: "Step verification",
  bake: "Bake comparison",
  revert: "Revert verification",
};

export interface LastGate {
  readonly gate: GateResult["gate"];
  readonly wave: number;
  readonly instance: string | null;
  readonly outcome: GateOutcome;
  readonly at: number;
  readonly summary: string;
}

export function lastGateOf(events: readonly RolloutEvent[]): LastGate | null {
  const g = events.findLast((e) => e.gate)?.gate;
  return g
    ? {
        gate: g.gate,
        wave: g.wave,
        instance: g.instance ?? null,
        outcome: g.outcome,
        at: g.at,
        summary: g.summary,
      }
    : null;
}

/** A relative change (ratio 1.0 = unchanged) as a signed percentage: 0.62 → "−38.0%". */
export function signedPct(ratio: number | null): string {
  if (ratio === null || !Number.isFinite(ratio) || ratio < 0) return "–";
  // Bounded (compare's format: "more than ×1000" past ×1000), never an exponent.
  if (ratio > 1000) return formatChange(ratio);
  const p = (ratio - 1) * 100;
  if (Math.abs(p) < 0.05) return "0.0%";
  return formatChange(ratio).replace(/^-/, "−");
}

/**
 * The effect of one judged metric: the change of the changed instances' metric relative to what the
 * control did over the same windows (or, without a control, relative to before the change).
 */
export function effectText(
  j: Pick<MetricJudgement, "ratio" | "ciLow" | "ciHigh">,
  against: "control" | "before",
): string {
  if (j.ratio === null) return "no estimate";
  const vs = against === "control" ? "vs control" : "vs before the change";
  return `${signedPct(j.ratio)} ${vs}`;
}

/** Beyond these a bound says only that the data could not bound the effect. */
const WIDE_HIGH = 10;
const WIDE_LOW = 0.001;

/** The interval of a ratio as signed percentages; a bound the data could not pin down says so. */
export function intervalText(j: Pick<MetricJudgement, "ciLow" | "ciHigh">): string {
  if (j.ciLow === null && j.ciHigh === null) return "–";
  const low = j.ciLow === null || j.ciLow < WIDE_LOW ? "unbounded" : signedPct(j.ciLow);
  const high = j.ciHigh === null || j.ciHigh > WIDE_HIGH ? "unbounded" : signedPct(j.ciHigh);
  return `${low} … ${high}`;
}

type Comparison = NonNullable<GateResult["comparison"]>;

/**
 * A metric's data-quality flags from the stored comparison (warnings and errors of every instance's
 * series, and a workload that moved), plus "no data" from the gate's checks; [] when all is clean.
 */
export function qualityFlags(g: Pick<GateResult, "comparison" | "checks">, metric: string): string[] {
  const out: string[] = [];
  const c: Comparison | undefined = g.comparison;
  for (const r of c?.results ?? [])
    if (r.metric === metric)
      for (const f of r.flags) if (f.severity !== "info") out.push(`${r.instance}: ${f.message}`);
  for (const w of c?.workload ?? [])
    if (w.flagged && w.metrics.includes(metric))
      out.push(`${w.instance}: workload changed (${w.reasons.join("; ")})`);
  for (const ch of g.checks)
    if (ch.metric === metric && ch.outcome === "no-data") out.push(`no data: ${ch.observed || "no series"}`);
  return [...new Set(out)];
}

/** Whether the comparison judged the metric against concurrent controls (else before/after). */
export function againstOf(
  g: Pick<GateResult, "comparison">,
  metric: string,
  hasControls: boolean,
): "control" | "before" {
  const m = g.comparison?.metrics.find((x) => x.metric === metric);
  return m ? (m.vsControl ? "control" : "before") : hasControls ? "control" : "before";
}

/** Who did it, as the timeline shows it. */
export function actorText(a: RolloutEvent["actor"]): string {
  return a.kind === "system" ? `${a.id} (automatic)` : a.kind === "hook" ? `${a.id} (hook)` : a.id;
}
