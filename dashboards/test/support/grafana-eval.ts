/**
 * Grafana is not running in these tests (no Grafana package in Debian, and nothing may be downloaded):
 * this evaluates one Grafana-managed rule as its provisioning file defines it, the way Grafana's
 * evaluator does for the shapes the generated file uses, and refuses every other shape so a change to
 * the provisioning cannot pass unnoticed. Query A: an instant Prometheus query at now - to (its
 * relativeTimeRange). Condition: a math expression `$A <op> <number>` applied per series; a series whose
 * result is non-zero is alerting. No series: noDataState.
 */

export interface GrafanaQuery {
  refId: string;
  relativeTimeRange: { from: number; to: number };
  datasourceUid: string;
  model: Record<string, unknown>;
}

export interface GrafanaRule {
  uid: string;
  title: string;
  condition: string;
  data: GrafanaQuery[];
  noDataState: string;
  for: string;
}

export interface GrafanaEvaluation {
  state: "Alerting" | "Normal" | "NoData";
  /** Labels of the alerting series, with the value query A had. */
  alerting: { labels: Record<string, string>; value: number }[];
  /** The PromQL that was sent. */
  expr: string;
}

type InstantQuery = (
  expr: string,
  time: number,
) => Promise<{ metric: Record<string, string>; value: [number, string] }[]>;

const OPS: Record<string, (a: number, b: number) => boolean> = {
  ">=": (a, b) => a >= b,
  ">": (a, b) => a > b,
  "<=": (a, b) => a <= b,
  "<": (a, b) => a < b,
  "==": (a, b) => a === b,
  "!=": (a, b) => a !== b,
};

export async function evaluateGrafanaRule(
  rule: GrafanaRule,
  prometheusUid: string,
  query: InstantQuery,
  opts: { now?: number; rewriteExpr?: (expr: string) => string } = {},
): Promise<GrafanaEvaluation> {
  const cond = rule.data.find((d) => d.refId === rule.condition);
  if (!cond) throw new Error(`${rule.title}: condition ${rule.condition} is not among its queries`);
  if (cond.datasourceUid !== "__expr__" || cond.model["type"] !== "math")
    throw new Error(`${rule.title}: condition ${rule.condition} is not a math expression`);
  const m = /^\$([A-Za-z]\w*)\s*(>=|<=|==|!=|>|<)\s*(-?\d+(?:\.\d+)?)$/.exec(
    String(cond.model["expression"]),
  );
  if (!m)
    throw new Error(`${rule.title}: math expression ${String(cond.model["expression"])} is not $X <op> n`);
  const [, ref, op, num] = m as unknown as [string, string, string, string];
  const a = rule.data.find((d) => d.refId === ref);
  if (!a) throw new Error(`${rule.title}: $${ref} is not among its queries`);
  if (a.datasourceUid !== prometheusUid) throw new Error(`${rule.title}: ${ref} is not on ${prometheusUid}`);
  if (a.model["instant"] !== true || a.model["range"] === true)
    throw new Error(`${rule.title}: ${ref} is not an instant query`);
  const shipped = String(a.model["expr"]);
  const expr = opts.rewriteExpr ? opts.rewriteExpr(shipped) : shipped;
  const now = opts.now ?? Date.now() / 1000;
  const series = await query(expr, now - a.relativeTimeRange.to);
  if (series.length === 0) {
    if (rule.noDataState !== "OK" && rule.noDataState !== "NoData")
      throw new Error(`${rule.title}: noDataState ${rule.noDataState} is not handled here`);
    return { state: rule.noDataState === "OK" ? "Normal" : "NoData", alerting: [], expr };
  }
  const test = OPS[op]!;
  const alerting = series
    .map((s) => ({ labels: s.metric, value: Number(s.value[1]) }))
    .filter((s) => test(s.value, Number(num)));
  return { state: alerting.length ? "Alerting" : "Normal", alerting, expr };
}
