import type { Direction, MetricSpec, Options } from "./input.js";
import { judge } from "./judge.js";
import type { Design, MetricSummary, Overall, SeriesResult, WorkloadCheck } from "./result.js";
import { holmAdjust } from "./stats/holm-adjust.js";
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
 * carry the verdict for multiple testing (Holm), decides whether throughput is demand-driven and
 * combines everything into the overall verdict with its reasons:
 * - a workload mismatch sets throughput, latency and wait aside; efficiency metrics carry the verdict;
 * - throughput unchanged while efficiency, latency or wait moved: throughput follows demand (the
 *   instance was not capacity-bound), so it stops carrying the verdict (docs/reference/published-results.md §9);
 * - any carrying metric regressed: regressed (a trade-off is reported, never averaged away);
 * - else any improved: improved; all unchanged: unchanged; half or more without data (Kayenta's
 *   NodataFail rule): inconclusive; otherwise inconclusive.
 */
export function overallVerdict(input: OverallInput): { overall: Overall; summaries: MetricSummary[] } {
  const { options } = input;
  const mismatched = new Set(input.workload.filter((w) => w.flagged).map((w) => w.instance));
  for (const r of input.results) {
    if (r.role !== "treated" || !mismatched.has(r.instance) || !LOAD_DEPENDENT.has(r.kind)) continue;
    r.carriesVerdict = false;
    r.flags.push({
      code: "workload_mismatch",
      severity: "warning",
      message:
        "the workload changed between the windows: this load-dependent metric does not carry the verdict",
    });
  }

  const summaries = input.metrics.map((m) => summarise(m, input.results, options));
  const carrying = summaries.filter((s) => s.carriesVerdict && s.pValue !== null);
  const adjusted = holmAdjust(carrying.map((s) => s.pValue!));
  carrying.forEach((s, i) => {
    s.pValueAdjusted = adjusted[i]!;
    if (s.ratio === null || s.ciLow === null) return;
    s.verdict = judge({
      logRatio: Math.log(s.ratio),
      ciLow: s.ciLow > 0 ? Math.log(s.ciLow) : -Infinity,
      ciHigh: s.ciHigh !== null ? Math.log(s.ciHigh) : Infinity,
      significant: adjusted[i]! < options.alpha && (s.ciLow > 1 || (s.ciHigh !== null && s.ciHigh < 1)),
      direction: s.direction,
      margin: options.equivalenceMargin,
    });
  });

  const reasons: string[] = [];
  const workloadMismatch = mismatched.size > 0;
  for (const w of input.workload.filter((x) => x.flagged))
    reasons.push(`${w.instance}: ${w.reasons.join("; ")}`);

  const throughput = summaries.filter((s) => s.kind === "throughput");
  const moved = summaries.filter(
    (s) =>
      ["efficiency", "latency", "wait"].includes(s.kind) &&
      s.carriesVerdict &&
      (s.verdict === "improved" || s.verdict === "regressed"),
  );
  let demandDriven: boolean | null = null;
  let demandMessage: string;
  if (throughput.length === 0) {
    demandMessage = "no throughput metric given";
  } else if (workloadMismatch) {
    demandMessage =
      "the workload changed between the windows: throughput is not comparable; efficiency metrics carry the verdict";
    for (const s of throughput) {
      s.carriesVerdict = false;
      s.note = "set aside: workload mismatch";
    }
  } else if (throughput.some((s) => s.verdict === "improved" || s.verdict === "regressed")) {
    demandDriven = false;
    const s = throughput.find((x) => x.verdict === "improved" || x.verdict === "regressed")!;
    demandMessage = `throughput ${s.verdict} (${s.metric} ${fmtEffect(s)}): the instance was capacity-bound, so the change shows in throughput`;
  } else if (throughput.every((s) => s.verdict === "unchanged") && moved.length > 0) {
    demandDriven = true;
    demandMessage = `throughput unchanged (${throughput.map((s) => `${s.metric} ${fmtEffect(s)}`).join(", ")}) while ${moved.map((s) => s.metric).join(", ")} moved: throughput follows demand here (the instance was not capacity-bound), so efficiency carries the verdict`;
    for (const s of throughput) {
      s.carriesVerdict = false;
      s.note = "demand-driven: unchanged throughput is expected when the instance is not saturated";
    }
    for (const r of input.results) {
      if (r.role !== "treated" || r.kind !== "throughput") continue;
      r.carriesVerdict = false;
      r.flags.push({
        code: "demand_driven",
        severity: "info",
        message: "throughput follows demand here; efficiency metrics carry the verdict",
      });
    }
  } else if (throughput.every((s) => s.verdict === "unchanged")) {
    demandMessage = "throughput unchanged and nothing else moved";
  } else {
    demandMessage = "the throughput change is inconclusive: cannot tell whether throughput is demand-driven";
  }

  const decisive = summaries.filter((s) => s.carriesVerdict);
  const designs = [...new Set(input.results.filter((r) => r.role === "treated").map((r) => r.design))].filter(
    (d): d is Design => d !== "none",
  );
  const withData = decisive.filter((s) => s.verdict !== "no_data");
  const regressed = decisive.filter((s) => s.verdict === "regressed");
  const improved = decisive.filter((s) => s.verdict === "improved");
  const unchanged = decisive.filter((s) => s.verdict === "unchanged");
  let verdict: Overall["verdict"];
  let carriedBy: MetricSummary[] = [];
  if (decisive.length === 0) {
    verdict = workloadMismatch ? "inconclusive" : "no_data";
    reasons.unshift(
      workloadMismatch
        ? "the workload changed and no efficiency metric was given to judge by"
        : summaries.every((s) => s.kind === "workload")
          ? "only workload metrics were given: nothing to judge"
          : "no metric that can carry a verdict has data",
    );
  } else if (withData.length === 0) {
    verdict = "no_data";
    reasons.unshift("none of the metrics has usable data in both windows");
  } else if (regressed.length > 0) {
    verdict = "regressed";
    carriedBy = regressed;
    reasons.unshift(`regressed: ${regressed.map(describe).join("; ")}`);
    if (improved.length > 0) reasons.push(`trade-off: also improved ${improved.map(describe).join("; ")}`);
  } else if ((decisive.length - withData.length) * 2 >= decisive.length) {
    verdict = "inconclusive";
    reasons.unshift(
      `${decisive.length - withData.length} of ${decisive.length} metrics have no data (half or more): no verdict`,
    );
  } else if (improved.length > 0) {
    verdict = "improved";
    carriedBy = improved;
    reasons.unshift(`improved: ${improved.map(describe).join("; ")}`);
  } else if (unchanged.length === withData.length) {
    verdict = "unchanged";
    carriedBy = unchanged;
    reasons.unshift(
      `no change beyond ±${(options.equivalenceMargin * 100).toFixed(0)}%: ${unchanged.map(describe).join("; ")}`,
    );
  } else {
    verdict = "inconclusive";
    const open = withData.filter((s) => s.verdict === "inconclusive");
    reasons.unshift(
      `could neither show a change nor rule one out for ${open.map(describe).join("; ")}; longer windows or a control instance would help`,
    );
  }
  reasons.push(demandMessage);
  if (designs.length > 0) reasons.push(`design: ${designs.join(", ")}`);
  const warnings = input.results.filter(
    (r) => r.role === "treated" && r.flags.some((f) => f.severity !== "info"),
  );
  if (warnings.length > 0)
    reasons.push(`${warnings.length} instance/metric result(s) carry data-quality warnings`);
  return {
    overall: {
      verdict,
      reasons,
      carriedBy: carriedBy.map((s) => s.metric),
      designs,
      throughput: { demandDriven, message: demandMessage },
      workloadMismatch,
    },
    summaries,
  };
}

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
    pValueAdjusted: null,
    carriesVerdict: metric.kind !== "workload" && treated.some((r) => r.carriesVerdict),
  };
  if (carrying.length === 0) {
    const verdict =
      treated.length > 0 && treated.every((r) => r.verdict === "no_data") ? "no_data" : "inconclusive";
    return {
      ...base,
      instances: 0,
      ratio: null,
      ciLow: null,
      ciHigh: null,
      pValue: null,
      heterogeneity: null,
      verdict,
    };
  }
  if (carrying.length === 1) {
    const r = carrying[0]!;
    return {
      ...base,
      instances: 1,
      ratio: r.ratio,
      ciLow: r.ciLow,
      ciHigh: r.ciHigh,
      pValue: r.pValue,
      heterogeneity: null,
      verdict: r.verdict,
    };
  }
  const pool = randomEffectsPool(
    carrying.map((r) => ({ estimate: Math.log(r.ratio!), se: r.logSe ?? Number.NaN })),
    options.alpha,
  );
  if (pool.k === 0) {
    return {
      ...base,
      instances: 0,
      ratio: null,
      ciLow: null,
      ciHigh: null,
      pValue: null,
      heterogeneity: null,
      verdict: "inconclusive",
    };
  }
  return {
    ...base,
    instances: pool.k,
    ratio: Math.exp(pool.estimate),
    ciLow: Math.exp(pool.ciLow),
    ciHigh: Math.exp(pool.ciHigh),
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

function fmtEffect(s: MetricSummary): string {
  if (s.ratio === null) return "n/a";
  const pct = (r: number) => `${r >= 1 ? "+" : ""}${((r - 1) * 100).toFixed(1)}%`;
  const ci = s.ciLow !== null && s.ciHigh !== null ? ` [${pct(s.ciLow)}, ${pct(s.ciHigh)}]` : "";
  return `${pct(s.ratio)}${ci}`;
}

function describe(s: MetricSummary): string {
  return `${s.metric} ${fmtEffect(s)}`;
}
