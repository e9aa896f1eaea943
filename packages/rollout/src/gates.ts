/**
 * The gates, as pure functions of observations:
 * - pre-wave: safety gate still verified for each target, replication healthy and lag under the limit,
 *   no other active rollout on those instances, a recent backup attested;
 * - step: the read-back matches the target (or the gate fails saying what it saw);
 * - bake: @untorn/compare of the wave against its control over the bake window, judged with explicit
 *   criteria. A missing metric is no-data, never a pass.
 */
import { advise } from "@untorn/advisor/advise";
import { DEMO_ONLY_NOTE } from "@untorn/advisor/gate";
import { compare } from "@untorn/compare/compare";
import { formatNumber } from "@untorn/compare/format";
import { ComparisonInput, type MetricSpec } from "@untorn/compare/input";
import type { ComparisonResult, MetricSummary } from "@untorn/compare/result";
import { judgeCatchUp } from "./catch-up.js";
import type { Change, Expectation } from "./change.js";
import type { GateCheck, GateOutcome, GateResult, MetricJudgement } from "./events.js";
import type { BakeSeries, Health, ReadBack } from "./observations.js";
import type { ActiveRollout } from "./plan.js";
import type { JudgedMetric, Policy } from "./policy.js";

/** Default judged metrics per change (catalog signal ids). */
export function defaultMetrics(change: Change): JudgedMetric[] {
  const guardrails: JudgedMetric[] = [
    { metric: "transactions_per_second", kind: "throughput", role: "guardrail", margin: 0.05, minChange: 0 },
    {
      metric: "file_write_latency_seconds",
      kind: "latency",
      role: "guardrail",
      margin: 0.1,
      minChange: 0,
      classes: ["data"],
    },
  ];
  const eff = (metric: string, role: JudgedMetric["role"]): JudgedMetric => ({
    metric,
    kind: "efficiency",
    role,
    margin: 0.05,
    minChange: 0,
    ...(role === "expected" ? { expect: "decrease" as const } : {}),
  });
  const removesCopies =
    change.kind === "doublewrite-off" ||
    (change.kind === "atomic-storage" && change.platform !== "self-managed-migration");
  if (removesCopies)
    // Write operations are informative: InnoDB writes a doublewrite batch (~124 pages) in one or two
    // requests, so Innodb_data_writes = pages flushed + doublewrite writes moves by under 1% when the
    // copies go, while the bytes halve (docs/reference/iops-metering.md, "a fast, unthrottled disk").
    // An expected metric that cannot move would fail a rollout that worked.
    return [
      ...guardrails,
      eff("write_bytes_per_transaction", "expected"),
      eff("write_ops_per_transaction", "informative"),
      eff("fsyncs_per_transaction", "informative"),
    ];
  if (change.kind === "doublewrite-detect-only")
    // DETECT_ONLY still writes page metadata to the doublewrite files: fewer bytes, not fewer requests.
    return [
      ...guardrails,
      eff("write_bytes_per_transaction", "expected"),
      eff("write_ops_per_transaction", "informative"),
      eff("fsyncs_per_transaction", "informative"),
    ];
  return [
    ...guardrails,
    eff("write_bytes_per_transaction", "informative"),
    eff("write_ops_per_transaction", "informative"),
    eff("fsyncs_per_transaction", "informative"),
  ];
}

const check = (
  id: string,
  outcome: GateOutcome,
  expected: string,
  observed: string,
  message: string,
  extra: { instance?: string; metric?: string; demoOnly?: boolean } = {},
): GateCheck => ({ id, outcome, expected, observed, message, ...extra });

/** Worst outcome wins: fail, then no-data, then inconclusive, then waiting; pass only if all pass. */
export function combineOutcomes(outcomes: readonly GateOutcome[]): GateOutcome {
  for (const o of ["fail", "no-data", "inconclusive", "waiting"] as const) if (outcomes.includes(o)) return o;
  return outcomes.length === 0 ? "no-data" : "pass";
}

export interface PreWaveInput {
  readonly rolloutId: string;
  readonly wave: number;
  readonly change: Change;
  readonly needsGate: boolean;
  readonly targets: readonly string[];
  readonly controls: readonly string[];
  /** Replicas among targets and controls: their replication is checked. */
  readonly replicas: readonly string[];
  readonly backup: { readonly takenAt: number } | null;
  readonly health: readonly Health[];
  readonly activeRollouts: readonly ActiveRollout[] | null;
  readonly policy: Policy;
  readonly now: number;
}

export function preWaveGate(input: PreWaveInput): GateResult {
  const { policy, now } = input;
  const checks: GateCheck[] = [];
  const age = input.backup ? now - input.backup.takenAt : null;
  checks.push(
    check(
      "backup",
      age === null ? "waiting" : age <= policy.backupMaxAgeSeconds ? "pass" : "fail",
      `a backup attested, taken at most ${policy.backupMaxAgeSeconds} s before the wave`,
      age === null ? "no backup attested" : `backup taken ${Math.round(age)} s ago`,
      age === null
        ? "Waiting for the operator to attest a recent backup."
        : age <= policy.backupMaxAgeSeconds
          ? "A recent backup is attested."
          : "The attested backup is too old: attest a newer one.",
    ),
  );
  if (input.activeRollouts === null)
    checks.push(
      check(
        "other-rollouts",
        "no-data",
        "no other active rollout on these instances",
        "not looked up",
        "Other active rollouts were not looked up.",
      ),
    );
  else {
    const mine = new Set([...input.targets, ...input.controls]);
    const clash = input.activeRollouts
      .filter((r) => r.rolloutId !== input.rolloutId)
      .flatMap((r) => r.instances.filter((i) => mine.has(i)).map((i) => `${i} (${r.rolloutId})`));
    checks.push(
      check(
        "other-rollouts",
        clash.length === 0 ? "pass" : "fail",
        "no other active rollout on these instances",
        clash.length === 0 ? "none" : clash.join(", "),
        clash.length === 0
          ? "No other rollout touches these instances."
          : `Another rollout is active on ${clash.join(", ")}.`,
      ),
    );
  }
  const latest = new Map<string, Health>();
  for (const h of input.health) {
    const prev = latest.get(h.instance);
    if (!prev || h.at >= prev.at) latest.set(h.instance, h);
  }
  for (const id of input.targets) {
    if (!input.needsGate) continue;
    const h = latest.get(id);
    if (!h?.facts) {
      checks.push(
        check(
          "safety-gate",
          "no-data",
          "verified",
          "no fresh facts",
          `No fresh facts for ${id}: the safety gate cannot be re-evaluated.`,
          { instance: id },
        ),
      );
      continue;
    }
    const gate = advise(h.facts).safetyGate;
    checks.push(
      check(
        "safety-gate",
        gate.status === "verified" ? "pass" : "fail",
        "verified",
        gate.status,
        gate.status === "verified"
          ? `Safety gate verified (${gate.path})${gate.demoOnly ? `. ${DEMO_ONLY_NOTE}` : "."}`
          : `Safety gate ${gate.status}: ${gate.summary}`,
        { instance: id, ...(gate.demoOnly ? { demoOnly: true } : {}) },
      ),
    );
  }
  for (const id of input.replicas) {
    const r = latest.get(id)?.replication ?? null;
    if (!r || r.ioRunning === null || r.sqlRunning === null || r.lagSeconds === null) {
      checks.push(
        check(
          "replication",
          "no-data",
          `threads running, lag ≤ ${policy.maxReplicationLagSeconds} s`,
          "no replication data",
          `No replication data for ${id}.`,
          { instance: id },
        ),
      );
      continue;
    }
    const running = r.ioRunning && r.sqlRunning;
    const ok = running && r.lagSeconds <= policy.maxReplicationLagSeconds;
    checks.push(
      check(
        "replication",
        ok ? "pass" : "fail",
        `threads running, lag ≤ ${policy.maxReplicationLagSeconds} s`,
        `I/O thread ${r.ioRunning ? "running" : "stopped"}, SQL thread ${r.sqlRunning ? "running" : "stopped"}, lag ${r.lagSeconds} s`,
        ok
          ? `Replication of ${id} is healthy.`
          : `Replication of ${id} is not healthy enough to start the wave.`,
        { instance: id },
      ),
    );
  }
  const outcome = combineOutcomes(checks.map((c) => c.outcome));
  const failing = checks.filter((c) => c.outcome !== "pass").map((c) => c.message);
  return {
    gate: "pre-wave",
    wave: input.wave,
    outcome,
    at: now,
    summary: outcome === "pass" ? "Every pre-wave check passed." : failing.join(" "),
    checks,
  };
}

/** Compares one read-back with the expectation; each expected field is one check. */
export function readBackChecks(instance: string, expect: Expectation, rb: ReadBack | null): GateCheck[] {
  const out: GateCheck[] = [];
  const nd = (id: string, expected: string) =>
    check(id, "no-data", expected, "no data", `No read-back of ${id} for ${instance}.`, { instance });
  if (rb !== null && rb.up === false)
    out.push(check("up", "waiting", "server up", "down", `${instance} is not up yet.`, { instance }));
  if (expect.doublewriteMode !== undefined) {
    const seen = rb?.doublewriteMode?.toLowerCase() ?? null;
    out.push(
      seen === null
        ? nd("doublewrite_mode", expect.doublewriteMode)
        : check(
            "doublewrite_mode",
            seen === expect.doublewriteMode ? "pass" : "fail",
            expect.doublewriteMode,
            seen,
            `untorn_innodb_doublewrite_mode reads ${seen}, expected ${expect.doublewriteMode}.`,
            { instance },
          ),
    );
  }
  for (const [label, want] of Object.entries(expect.configInfo ?? {})) {
    const seen = rb?.configInfo?.[label] ?? null;
    out.push(
      seen === null
        ? nd(`config_info.${label}`, want)
        : check(
            `config_info.${label}`,
            seen.toLowerCase() === want.toLowerCase() ? "pass" : "fail",
            want,
            seen,
            `untorn_innodb_config_info{${label}} reads ${seen}, expected ${want}.`,
            { instance },
          ),
    );
  }
  if (expect.doublewritePages !== undefined) {
    const seen = rb?.doublewritePages ?? null;
    out.push(
      seen === null
        ? nd("doublewrite_pages", String(expect.doublewritePages))
        : check(
            "doublewrite_pages",
            seen === expect.doublewritePages ? "pass" : "fail",
            String(expect.doublewritePages),
            String(seen),
            `innodb_doublewrite_pages reads ${seen}, expected ${expect.doublewritePages}.`,
            { instance },
          ),
    );
  }
  if (expect.doublewriteFlat) {
    const seen = rb?.doublewritePagesPerSecond ?? null;
    out.push(
      seen === null
        ? nd("doublewrite_flat", "0 pages/s")
        : check(
            "doublewrite_flat",
            seen === 0 ? "pass" : "fail",
            "0 pages/s",
            `${seen} pages/s`,
            seen === 0
              ? "The doublewrite page counter is flat."
              : `Doublewrite still writes ${seen} pages/s.`,
            { instance },
          ),
    );
  }
  if (expect.gateVerified) {
    const seen = rb?.gate ?? null;
    out.push(
      seen === null
        ? nd("safety_gate", "verified")
        : check(
            "safety_gate",
            seen === "verified" ? "pass" : "fail",
            "verified",
            seen,
            `The safety gate reads ${seen}.`,
            { instance },
          ),
    );
  }
  if (out.length === 0)
    out.push(
      check(
        "read-back",
        "no-data",
        "an observable read-back",
        "nothing to compare",
        "The step has no observable read-back.",
        { instance },
      ),
    );
  return out;
}

export interface JudgeInput {
  readonly wave: number;
  readonly seed: number;
  readonly treated: readonly string[];
  readonly controls: readonly string[];
  readonly metrics: readonly JudgedMetric[];
  readonly policy: Policy;
  readonly series: BakeSeries;
  readonly now: number;
  /** Whether the wave's changed instances are replicas (the catch-up judgement); default true. */
  readonly replicas?: boolean;
}

function metricSpec(m: JudgedMetric): MetricSpec {
  return { id: m.metric, kind: m.kind };
}

/** A share as a percentage: one decimal below 100% ("7.9%"), three significant digits above ("142%"). */
const pct = (x: number) =>
  !Number.isFinite(x)
    ? "n/a"
    : x < 1
      ? `${Math.round(x * 1000) / 10}%`
      : `${Number((x * 100).toPrecision(3))}%`;

/**
 * A ratio as a change in words: 0.95 → "5% lower", 1.2 → "20% higher", beyond ×1000 "more than
 * 1000 times higher" (compare reports no interval side past that; a number like 4e+67% is never shown).
 */
function change(r: number): string {
  if (!Number.isFinite(r) || r < 0) return "n/a";
  if (r === 1) return "no change";
  if (r > 1000) return "more than 1000 times higher";
  return r < 1 ? `${pct(1 - r)} lower` : `${pct(r - 1)} higher`;
}

/** What compare's verdict says about the effect's significance (not what the criterion asks). */
const SIGNIFICANCE: Record<string, string> = {
  improved: "significant",
  regressed: "significant",
  changed: "significant",
  unchanged: "no significant change",
  inconclusive: "not significant (inconclusive)",
  no_data: "no data",
};

/**
 * What the comparison found for one metric, in words: the effect, its interval and its significance,
 * e.g. "3.2% lower (interval 5.1% lower to 1.0% lower), significant".
 */
export function describeFinding(
  s: { ratio: number | null; ciLow: number | null; ciHigh: number | null; verdict: string } | undefined,
): string {
  if (!s || s.verdict === "no_data") return "no data";
  // Samples there were, but no ratio could be formed (too few, or a level of 0 before): not "no data".
  if (s.ratio === null) return `no estimate, ${SIGNIFICANCE[s.verdict] ?? s.verdict}`;
  const interval =
    s.ciLow !== null
      ? ` (interval ${change(s.ciLow)} to ${s.ciHigh === null ? "unbounded" : change(s.ciHigh)})`
      : "";
  return `${change(s.ratio)}${interval}, ${SIGNIFICANCE[s.verdict] ?? s.verdict}`;
}

/**
 * One metric's judgement from compare's per-metric summary. `criterion` says what was required;
 * describeFinding says what was found.
 */
export function judgeMetric(m: JudgedMetric, s: MetricSummary | undefined): MetricJudgement {
  const base = {
    metric: m.metric,
    role: m.role,
    ratio: s?.ratio ?? null,
    ciLow: s?.ciLow ?? null,
    ciHigh: s?.ciHigh ?? null,
    verdict: s?.verdict ?? "no_data",
  };
  if (!s || s.verdict === "no_data" || s.ratio === null)
    return { ...base, outcome: "no-data", criterion: "data present (a missing metric is never a pass)" };
  if (m.role === "guardrail") {
    const higherBetter = m.kind === "throughput";
    const beyond = higherBetter ? s.ratio < 1 - m.margin : s.ratio > 1 + m.margin;
    const criterion = `no ${higherBetter ? "drop" : "rise"} beyond ${pct(m.margin)} (ruled out by the interval)`;
    if (s.verdict === "regressed" && beyond) return { ...base, outcome: "fail", criterion };
    // Non-inferiority: a pass needs the interval's bad end within the margin, so a regression beyond
    // it is ruled out at the comparison's (simultaneous) level. compare's own verdict is no guide
    // here: its "unchanged" asks the whole interval inside its equivalence band (±2%), far tighter
    // than a guardrail's margin, and a significant regression smaller than the margin can still have
    // an interval reaching beyond it.
    const badEnd = higherBetter ? s.ciLow : s.ciHigh;
    const ruledOut =
      badEnd !== null && (higherBetter ? badEnd >= 1 - m.margin : badEnd > 0 && badEnd <= 1 + m.margin);
    return { ...base, outcome: ruledOut ? "pass" : "inconclusive", criterion };
  }
  if (m.role === "expected") {
    const dir = m.expect ?? "decrease";
    const way = dir === "decrease" ? "lower" : "higher";
    const criterion =
      m.minChange > 0
        ? `significantly ${way}, by at least ${pct(m.minChange)}`
        : `significantly ${way} (by any amount)`;
    if (s.verdict === "inconclusive" || s.verdict === "changed")
      return { ...base, outcome: "inconclusive", criterion };
    const moved = dir === "decrease" ? s.ratio < 1 : s.ratio > 1;
    const enough = dir === "decrease" ? s.ratio <= 1 - m.minChange : s.ratio >= 1 + m.minChange;
    // compare's improved / regressed follow the metric kind's direction (efficiency: lower is better,
    // throughput: higher); either is a significant change, and `moved` says whether it went the way
    // the hypothesis expects.
    const significant = s.verdict === "improved" || s.verdict === "regressed";
    if (significant && moved && enough) return { ...base, outcome: "pass", criterion };
    if (significant && moved) return { ...base, outcome: "inconclusive", criterion };
    return { ...base, outcome: "fail", criterion };
  }
  return {
    ...base,
    outcome: s.verdict === "inconclusive" ? "inconclusive" : "pass",
    criterion: "none (informative only)",
  };
}

/** Builds the comparison input of a wave's bake (plain series in, validated by compare's schema). */
export function bakeComparisonInput(input: JudgeInput) {
  const treated = new Set(input.treated);
  const controls = new Set(input.controls);
  const instances = input.series.instances
    .filter((i) => treated.has(i.id) || controls.has(i.id))
    .map((i) => ({
      id: i.id,
      role: treated.has(i.id) ? ("treated" as const) : ("control" as const),
      series: Object.fromEntries(
        Object.entries(i.series).filter(([k]) => input.metrics.some((m) => m.metric === k)),
      ),
      ...(i.restarts ? { restarts: i.restarts } : {}),
    }));
  return ComparisonInput.safeParse({
    seed: input.seed,
    windows: input.series.windows,
    metrics: input.metrics.map(metricSpec),
    instances,
    options: {
      alpha: input.policy.alpha,
      minSamples: input.policy.minSamples,
      minBlocks: input.policy.minBlocks,
      blockSeconds: input.policy.blockSeconds,
      warmupSeconds: input.policy.warmupSeconds,
      ...(input.policy.judgement === "sequential"
        ? {
            sequential: {
              lookEverySeconds: input.policy.lookEverySeconds,
              // A resumed wave's bake runs past the policy's maximum: its looks up to the longer end.
              maxSeconds: Math.max(
                input.policy.bakeSeconds,
                input.series.windows.after.end - input.series.windows.after.start,
                input.policy.lookEverySeconds,
              ),
            },
          }
        : {}),
    },
  });
}

/** The bake gate: compare the wave against its controls and judge every metric. */
export function judgeBake(input: JudgeInput): GateResult {
  const parsed = bakeComparisonInput(input);
  const windows = input.series.windows;
  if (!parsed.success || !parsed.data.instances.some((i) => i.role === "treated")) {
    const why = parsed.success
      ? "no series of a changed instance"
      : parsed.error.issues.map((i) => `${i.path.join(".")}: ${i.message}`).join("; ");
    return {
      gate: "bake",
      wave: input.wave,
      outcome: "no-data",
      at: input.now,
      summary: `No comparison: ${why}.`,
      checks: [
        check("comparison", "no-data", "series of every judged metric", why, `No comparison: ${why}.`),
      ],
      windows,
    };
  }
  const result: ComparisonResult = compare(parsed.data);
  const judgement = input.metrics.map((m) =>
    judgeMetric(
      m,
      result.metrics.find((s) => s.metric === m.metric),
    ),
  );
  const catchUp = judgeCatchUp(
    {
      seed: input.seed,
      treated: input.treated,
      controls: input.controls,
      replicas: input.replicas ?? true,
      policy: input.policy,
      series: input.series,
    },
    judgeMetric,
  );
  // Not applicable (nobody lagged) decides nothing: it is neither a pass nor a fail.
  const catchUpDeciding = catchUp.filter((c) => c.role !== "informative" && c.outcome !== "not-applicable");
  const deciding = judgement.filter((j) => j.role !== "informative");
  let outcome = combineOutcomes([
    ...deciding.map((j) => j.outcome),
    ...catchUpDeciding.map((c) => c.outcome as GateOutcome),
  ]);
  // No-data and inconclusive both hold the wave for a human; the judgement keeps which it was.
  if (outcome === "waiting") outcome = "inconclusive";
  const missingControls = input.controls.filter((c) => !parsed.data.instances.some((i) => i.id === c));
  const checks = judgement.map((j) =>
    check(
      `metric.${j.metric}`,
      j.outcome,
      j.criterion,
      j.ratio === null
        ? describeFinding(j)
        : `${describeFinding(j)}: ratio ${formatNumber(j.ratio)} [${j.ciLow === null ? "?" : formatNumber(j.ciLow)}, ${j.ciHigh === null ? "unbounded" : formatNumber(j.ciHigh)}] (${j.verdict})`,
      `${j.metric} (${j.role}): ${j.outcome}`,
      { metric: j.metric },
    ),
  );
  for (const c of catchUp)
    if (c.outcome !== "not-applicable")
      checks.push(
        check(
          "catch-up",
          c.outcome,
          c.criterion,
          c.ratio === null
            ? c.verdict
            : `ratio ${formatNumber(c.ratio)} [${c.ciLow === null ? "?" : formatNumber(c.ciLow)}, ${c.ciHigh === null ? "unbounded" : formatNumber(c.ciHigh)}] (${c.verdict})`,
          `replication catch-up of ${c.instance} (${c.role}): ${c.outcome}. ${c.message}`,
          { instance: c.instance, metric: "apply_rate_while_lagging" },
        ),
      );
  for (const note of input.series.notes ?? [])
    checks.push(
      check("baseline", "pass", "a baseline from history clean of restarts and changes", note, note),
    );
  for (const c of missingControls)
    checks.push(
      check(
        "control",
        "no-data",
        "series of the control",
        "none",
        `No series for control ${c}: judged without it.`,
        { instance: c },
      ),
    );
  const bad = [
    ...judgement.filter((j) => j.role !== "informative" && j.outcome !== "pass"),
    ...catchUpDeciding
      .filter((c) => c.outcome !== "pass")
      .map((c) => ({ ...c, metric: `catch-up of ${c.instance}` })),
  ];
  return {
    gate: "bake",
    wave: input.wave,
    outcome,
    at: input.now,
    summary:
      outcome === "pass"
        ? `Every criterion met (${result.overall.designs.join(", ")}).`
        : bad
            .map(
              (j) =>
                `${j.metric}: ${j.outcome} (required: ${j.criterion}; found: ${describeFinding(j)}${j.ratio === null ? "" : `, ratio ${formatNumber(j.ratio)}`})`,
            )
            .join("; "),
    checks,
    judgement,
    catchUp,
    comparison: result,
    windows,
  };
}
