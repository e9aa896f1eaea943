import { formatChange, formatInterval, lowerFromLog, ratioFromLog, upperFromLog } from "./format.js";
import type { Direction, MetricSpec, Options } from "./input.js";
import { judge } from "./judge.js";
import type { Design, MetricSummary, Overall, SeriesResult, WorkloadCheck } from "./result.js";
import { normalQuantile } from "./stats/normal-quantile.js";
import { randomEffectsPool } from "./stats/random-effects-pool.js";

export interface OverallInput {
  readonly metrics: readonly (MetricSpec & { readonly direction: Direction })[];
  /** Every per-series result (treated and control); treated ones may be updated (carriesVerdict, flags). */
  readonly results: SeriesResult[];
  readonly workload: readonly WorkloadCheck[];
  readonly options: Options;
}

/** Metric kinds whose level follows the offered load and are set aside when the workload changed. */
const LOAD_DEPENDENT = new Set(["throughput", "latency", "wait"]);

/**
 * Pools the treated instances per metric (random effects on log ratios), adjusts the metrics that
 * carry the verdict for multiple testing (simultaneous Bonferroni intervals, which the verdict is judged
 * on), decides whether throughput is demand-driven and combines everything into the overall verdict:
 * - a workload mismatch sets throughput, latency and wait aside; efficiency metrics carry the verdict;
 * - throughput held within ±throughputMargin (two one-sided tests) while efficiency, latency or wait
 *   moved: throughput follows demand (the instance was not capacity-bound), so it stops carrying the
 *   verdict; a significant throughput change is called capacity-bound only when another metric moved
 *   the same way with it;
 * - any carrying metric regressed: regressed (a trade-off is reported, never averaged away);
 * - else any improved: improved; all unchanged: unchanged; half or more without data (Kayenta's
 *   NodataFail rule): inconclusive; otherwise inconclusive.
 */
export function overallVerdict(input: OverallInput): { overall: Overall; summaries: MetricSummary[] } {
  const { options } = input;
  const flagged = input.workload.filter((w) => w.flagged);
  const workloadMismatch = setAsideMismatchedLoad(input.results, flagged);

  const summaries = input.metrics.map((m) => summarise(m, input.results, options));
  adjustForMultipleMetrics(summaries, options);

  const demand = judgeDemand(summaries, input.results, options, workloadMismatch);
  const designs = [...new Set(input.results.filter((r) => r.role === "treated").map((r) => r.design))].filter(
    (d): d is Design => d !== "none",
  );
  const decided = decideVerdict(summaries, input.results, options, workloadMismatch);
  const reasons = [decided.reason, ...flagged.map((w) => `${w.instance}: ${w.reasons.join("; ")}`)];
  if (decided.tradeOff !== null) reasons.push(decided.tradeOff);
  reasons.push(demand.message);
  if (designs.length > 0) reasons.push(`design: ${designs.join(", ")}`);
  const warnings = input.results.filter(
    (r) => r.role === "treated" && r.flags.some((f) => f.severity !== "info"),
  );
  if (warnings.length > 0)
    reasons.push(`${warnings.length} instance/metric result(s) carry data-quality warnings`);
  return {
    overall: {
      verdict: decided.verdict,
      reasons,
      carriedBy: decided.carriedBy.map((s) => s.metric),
      designs,
      throughput: {
        demandDriven: demand.demandDriven,
        margin: options.throughputMargin,
        message: demand.message,
      },
      workloadMismatch,
    },
    summaries,
  };
}

/**
 * Takes the verdict from the load-dependent results (throughput, latency, wait) of the instances whose
 * workload changed between the windows, and flags them. True when any instance's workload changed.
 */
function setAsideMismatchedLoad(results: SeriesResult[], flagged: readonly WorkloadCheck[]): boolean {
  const mismatched = new Set(flagged.map((w) => w.instance));
  for (const r of results) {
    if (r.role !== "treated" || !mismatched.has(r.instance) || !LOAD_DEPENDENT.has(r.kind)) continue;
    r.carriesVerdict = false;
    r.flags.push({
      code: "workload_mismatch",
      severity: "warning",
      message:
        "the workload changed between the windows: this load-dependent metric does not carry the verdict",
    });
  }
  return mismatched.size > 0;
}

/** Whether throughput follows demand (Overall.throughput), and why. */
interface DemandJudgement {
  readonly demandDriven: boolean | null;
  readonly message: string;
}

/**
 * Decides whether throughput is demand-driven; throughput stops carrying the verdict (summaries and
 * treated results) when the workload changed or throughput held while another metric moved.
 */
function judgeDemand(
  summaries: MetricSummary[],
  results: SeriesResult[],
  options: Options,
  workloadMismatch: boolean,
): DemandJudgement {
  const throughput = summaries.filter((s) => s.kind === "throughput");
  const moved = summaries.filter(
    (s) =>
      ["efficiency", "latency", "wait"].includes(s.kind) &&
      s.carriesVerdict &&
      (s.verdict === "improved" || s.verdict === "regressed"),
  );
  const margin = options.throughputMargin;
  const marginText = `±${fmtPct(margin)}`;
  const changed = throughput.find((x) => x.verdict === "improved" || x.verdict === "regressed");
  const held = throughput.map((s) => ({ s, tost: equivalence(s, margin, options.alpha) }));
  if (throughput.length === 0) return { demandDriven: null, message: "no throughput metric given" };
  if (workloadMismatch) {
    for (const s of throughput) {
      s.carriesVerdict = false;
      s.note = "set aside: workload mismatch";
    }
    return {
      demandDriven: null,
      message:
        "the workload changed between the windows: throughput is not comparable; efficiency metrics carry the verdict",
    };
  }
  if (changed) return capacityBound(changed, moved);
  if (held.every((h) => h.tost.held)) return heldThroughput(held, moved, throughput, results, marginText);
  const open = held.filter((h) => !h.tost.held);
  return {
    demandDriven: null,
    message: `throughput neither changed significantly nor held within ${marginText} (${open.map((h) => `${h.s.metric} ${fmtPct1(h.s.ratio)} ${h.tost.text}`).join(", ")}): cannot tell whether throughput is demand-driven; longer windows or a wider throughputMargin decide it`,
  };
}

/**
 * A significant throughput change is capacity-bound only with corroboration: another cost moving the
 * same way as throughput (waits or bytes per transaction down while throughput rose). A lone
 * throughput shift can be demand.
 */
function capacityBound(changed: MetricSummary, moved: readonly MetricSummary[]): DemandJudgement {
  const corroborating = moved.filter((m) => m.verdict === changed.verdict);
  if (corroborating.length > 0) {
    return {
      demandDriven: false,
      message: `throughput ${changed.verdict} (${changed.metric} ${fmtEffect(changed)}) together with ${corroborating.map(describe).join("; ")}: the instance was capacity-bound, so the change shows in throughput`,
    };
  }
  return {
    demandDriven: null,
    message: `throughput ${changed.verdict} (${changed.metric} ${fmtEffect(changed)}), but no corroborating evidence (an efficiency, latency or wait metric moving with it): not enough to call the instance capacity-bound, and the offered load may have changed`,
  };
}

/**
 * Throughput held within the margin: demand-driven when another metric moved, and then throughput
 * stops carrying the verdict (its summaries and treated results, which are flagged).
 */
function heldThroughput(
  held: readonly { s: MetricSummary; tost: { held: boolean; text: string } }[],
  moved: readonly MetricSummary[],
  throughput: MetricSummary[],
  results: SeriesResult[],
  marginText: string,
): DemandJudgement {
  const heldText = held.map((h) => `${h.s.metric} ${fmtPct1(h.s.ratio)} ${h.tost.text}`).join(", ");
  if (moved.length === 0)
    return {
      demandDriven: null,
      message: `throughput held within ${marginText} (${heldText}) and nothing else moved`,
    };
  const kinds = [
    ...new Set(moved.map((m) => `${m.kind === "efficiency" ? "efficiency" : m.kind} ${m.verdict}`)),
  ];
  const message = `demand-driven: ${kinds.join(", ")}, throughput held within ${marginText} (${heldText}): the instance was not capacity-bound, so ${moved.map((s) => s.metric).join(", ")} carry the verdict`;
  for (const s of throughput) {
    s.carriesVerdict = false;
    s.note = `demand-driven: throughput held within ${marginText}, as expected when the instance is not saturated`;
  }
  for (const r of results) {
    if (r.role !== "treated" || r.kind !== "throughput") continue;
    r.carriesVerdict = false;
    r.flags.push({
      code: "demand_driven",
      severity: "info",
      message: `throughput held within ${marginText}; it follows demand here and the other metrics carry the verdict`,
    });
  }
  return { demandDriven: true, message };
}

interface VerdictDecision {
  readonly verdict: Overall["verdict"];
  /** The metrics the verdict rests on. */
  readonly carriedBy: MetricSummary[];
  /** The first of the overall reasons. */
  readonly reason: string;
  /** For a regression: the improvements traded for it. */
  readonly tradeOff: string | null;
}

/**
 * The overall verdict from the metrics that carry it, the metrics it rests on, the reason that leads
 * the list and, for a regression, the improvements traded for it.
 */
function decideVerdict(
  summaries: readonly MetricSummary[],
  results: readonly SeriesResult[],
  options: Options,
  workloadMismatch: boolean,
): VerdictDecision {
  const decisive = summaries.filter((s) => s.carriesVerdict);
  const withData = decisive.filter((s) => s.verdict !== "no_data");
  const regressed = decisive.filter((s) => s.verdict === "regressed");
  const improved = decisive.filter((s) => s.verdict === "improved");
  const unchanged = decisive.filter((s) => s.verdict === "unchanged");
  const decision = (
    verdict: Overall["verdict"],
    reason: string,
    carriedBy: MetricSummary[] = [],
  ): VerdictDecision => ({ verdict, carriedBy, reason, tradeOff: null });
  if (decisive.length === 0) {
    return decision(
      workloadMismatch ? "inconclusive" : "no_data",
      workloadMismatch
        ? "the workload changed and no efficiency metric was given to judge by"
        : summaries.every((s) => s.kind === "workload")
          ? "only workload metrics were given: nothing to judge"
          : "no metric that can carry a verdict has data",
    );
  }
  if (withData.length === 0)
    return decision("no_data", "none of the metrics has usable data in both windows");
  if (regressed.length > 0) {
    return {
      verdict: "regressed",
      carriedBy: regressed,
      reason: `regressed: ${regressed.map(describe).join("; ")}`,
      tradeOff: improved.length > 0 ? `trade-off: also improved ${improved.map(describe).join("; ")}` : null,
    };
  }
  if ((decisive.length - withData.length) * 2 >= decisive.length) {
    return decision(
      "inconclusive",
      `${decisive.length - withData.length} of ${decisive.length} metrics have no data (half or more): no verdict`,
    );
  }
  if (improved.length > 0)
    return decision("improved", `improved: ${improved.map(describe).join("; ")}`, improved);
  if (unchanged.length === withData.length) {
    return decision(
      "unchanged",
      `no change beyond ±${(options.equivalenceMargin * 100).toFixed(0)}%: ${unchanged.map(describe).join("; ")}`,
      unchanged,
    );
  }
  const open = withData.filter((s) => s.verdict === "inconclusive");
  return decision(
    "inconclusive",
    `could neither show a change nor rule one out for ${open.map(describe).join("; ")}; ${
      results.some((r) => r.role === "control")
        ? "longer windows would help"
        : "longer windows or a control instance would help"
    }`,
  );
}

/** The estimate fields of a summary that has none: no treated result carried one, or none could be pooled. */
const NO_ESTIMATE = {
  instances: 0,
  ratio: null,
  ciLow: null,
  ciHigh: null,
  ciLowUnadjusted: null,
  ciHighUnadjusted: null,
  pValue: null,
  heterogeneity: null,
} as const;

/** Per-metric summary over treated instances: the single result, or a random-effects pool. */
function summarise(
  metric: MetricSpec & { readonly direction: Direction },
  results: readonly SeriesResult[],
  options: Options,
): MetricSummary {
  const treated = results.filter((r) => r.role === "treated" && r.metric === metric.id);
  const carrying = treated.filter((r) => r.carriesVerdict && r.ratio !== null);
  const base = {
    metric: metric.id,
    kind: metric.kind,
    direction: metric.direction,
    ...(metric.unit !== undefined ? { unit: metric.unit } : {}),
    vsControl: carrying.some((r) => r.design === "difference-in-differences"),
    pValueAdjusted: null,
    ciLevel: 1 - options.alpha,
    ciAdjustment: "none" as const,
    carriesVerdict: metric.kind !== "workload" && treated.some((r) => r.carriesVerdict),
  };
  if (carrying.length === 0) {
    const verdict =
      treated.length > 0 && treated.every((r) => r.verdict === "no_data") ? "no_data" : "inconclusive";
    return { ...base, ...NO_ESTIMATE, verdict };
  }
  if (carrying.length === 1) {
    const r = carrying[0]!;
    return {
      ...base,
      instances: 1,
      ratio: r.ratio,
      ciLow: r.ciLow,
      ciHigh: r.ciHigh,
      ciLowUnadjusted: r.ciLow,
      ciHighUnadjusted: r.ciHigh,
      pValue: r.pValue,
      heterogeneity: null,
      verdict: r.verdict ?? "inconclusive",
    };
  }
  const pool = randomEffectsPool(
    carrying.map((r) => ({ estimate: Math.log(r.ratio!), se: r.logSe ?? Number.NaN })),
    options.alpha,
  );
  if (pool.k === 0) return { ...base, ...NO_ESTIMATE, verdict: "inconclusive" };
  return {
    ...base,
    instances: pool.k,
    ratio: ratioFromLog(pool.estimate),
    ciLow: lowerFromLog(pool.ciLow),
    ciHigh: upperFromLog(pool.ciHigh),
    ciLowUnadjusted: lowerFromLog(pool.ciLow),
    ciHighUnadjusted: upperFromLog(pool.ciHigh),
    pValue: pool.pValue,
    heterogeneity: pool.i2,
    verdict: judge({
      logRatio: pool.estimate,
      ciLow: pool.ciLow,
      ciHigh: pool.ciHigh,
      significant: pool.ciLow > 0 || pool.ciHigh < 0,
      direction: metric.direction,
      margin: options.equivalenceMargin,
    }),
  };
}

/**
 * Simultaneous intervals over the k metrics that carry the verdict (Bonferroni: each at 1 − alpha/k),
 * and the verdict judged on them, so the printed interval and the verdict always agree. Each side of
 * the metric's own interval is widened on the log scale by z(1 − alpha/2k) / z(1 − alpha/2) (normal
 * approximation of its quantile). Reference: O. J. Dunn, "Multiple comparisons among means", JASA 56
 * (1961).
 */
function adjustForMultipleMetrics(summaries: MetricSummary[], options: Options): void {
  const carrying = summaries.filter((s) => s.carriesVerdict && s.pValue !== null);
  const k = carrying.length;
  const scale =
    k > 1 ? normalQuantile(1 - options.alpha / (2 * k)) / normalQuantile(1 - options.alpha / 2) : 1;
  for (const s of carrying) {
    s.pValueAdjusted = Math.min(1, k * s.pValue!);
    if (s.ratio === null || s.ciLowUnadjusted === null) continue;
    const est = Math.log(s.ratio);
    const lo = s.ciLowUnadjusted > 0 ? Math.log(s.ciLowUnadjusted) : -Infinity;
    const hi = s.ciHighUnadjusted !== null ? Math.log(s.ciHighUnadjusted) : Infinity;
    const ciLow = est - (est - lo) * scale;
    const ciHigh = est + (hi - est) * scale;
    if (k > 1) {
      s.ciAdjustment = "bonferroni";
      s.ciLevel = 1 - options.alpha / k;
      s.ciLow = lowerFromLog(ciLow);
      s.ciHigh = upperFromLog(ciHigh);
    }
    s.verdict = judge({
      logRatio: est,
      ciLow,
      ciHigh,
      significant: ciLow > 0 || ciHigh < 0,
      direction: s.direction,
      margin: options.equivalenceMargin,
    });
  }
}

/**
 * Two one-sided tests at level alpha for |ratio − 1| within ±margin (log-symmetric): equivalent when the
 * 1 − 2·alpha interval lies inside [1/(1+m), 1+m]. The standard error comes from the width of the
 * metric's own 1 − alpha interval (normal approximation). Reference: D. J. Schuirmann, J. Pharmacokin.
 * Biopharm. 15 (1987).
 */
function equivalence(s: MetricSummary, margin: number, alpha: number): { held: boolean; text: string } {
  if (s.ratio === null || s.ciLowUnadjusted === null || s.ciHighUnadjusted === null || s.ciLowUnadjusted <= 0)
    return { held: false, text: "(no bounded interval)" };
  const se =
    (Math.log(s.ciHighUnadjusted) - Math.log(s.ciLowUnadjusted)) / (2 * normalQuantile(1 - alpha / 2));
  const z = normalQuantile(1 - alpha);
  const lo = Math.log(s.ratio) - z * se;
  const hi = Math.log(s.ratio) + z * se;
  const band = Math.log1p(margin);
  const level = Math.round((1 - 2 * alpha) * 100);
  return {
    held: lo >= -band && hi <= band,
    text: `[${fmtPct1(Math.exp(lo))}, ${fmtPct1(Math.exp(hi))}] at ${level}%`,
  };
}

function fmtPct(x: number): string {
  const p = x * 100;
  return `${Number.isInteger(p) ? p.toFixed(0) : Number(p.toPrecision(2))}%`;
}

function fmtPct1(r: number | null): string {
  return formatChange(r);
}

function fmtEffect(s: MetricSummary): string {
  if (s.ratio === null) return "n/a";
  const ci = s.ciLow !== null ? ` ${formatInterval(s.ciLow, s.ciHigh)}` : "";
  return `${formatChange(s.ratio)}${ci}`;
}

function describe(s: MetricSummary): string {
  return `${s.metric} ${fmtEffect(s)}`;
}
