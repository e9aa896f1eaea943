/**
 * TEST ONLY: the shipped recording and alerting rules with their short time parameters divided by
 * TIME_SCALE, so the live alert test sees a 15 min `for` pass in 60 s. Built from the same catalog
 * definitions as generated/prometheus/*.yml; nothing else changes:
 *  - range windows under a day ([5m] rates, the [10m] and [15m] averages) and every `for`;
 *  - the restart guard of UntornDoublewriteWaitSpike (uptime > 1800 s), a duration written as a number.
 * Kept as shipped: the baseline group (1d of history ending 1h ago, present 7h ago; the test backfills a
 * real day of history instead), the exporter's 1d memory, the thresholds that are not durations, the
 * recorded series' names (so the alert expressions read them unchanged) and every annotation.
 * `unscaleExpr` undoes the scaling so a test can assert the result is the shipped expression again.
 */
import { alertRules, prometheusAlertingRule, thresholds } from "@untorn/catalog/alerts";
import { recordingRuleGroups } from "@untorn/catalog/rules";
import { stringify } from "yaml";

/** One scaled second stands for this many shipped seconds. */
/**
 * 15: a [5m] rate becomes [20s]. At 30 ([10s]) a calibration run on this 2-core machine under heavy shared
 * load saw the spiking server's rate dip under the bar between two slow fsyncs and the calm twin's cross it
 * for a few seconds; 20 s of samples smooth both while the whole suite stays around 3 min.
 */
export const TIME_SCALE = 15;

const UNIT_S = { s: 1, m: 60, h: 3600 } as const;

/** A PromQL duration under a day ("5m") in seconds. */
export function durationSeconds(d: string): number {
  const m = /^(\d+)([smh])$/.exec(d);
  if (!m) throw new Error(`not a duration this test scales: ${d}`);
  return Number(m[1]) * UNIT_S[m[2] as keyof typeof UNIT_S];
}

export function scaleDuration(d: string): string {
  const s = durationSeconds(d) / TIME_SCALE;
  if (!Number.isInteger(s) || s < 1) throw new Error(`${d} / ${TIME_SCALE} is not a whole number of seconds`);
  return `${s}s`;
}

const UPTIME_GUARD = thresholds.waitSpike.minUptime.value;
const uptimeText = (s: number) => ` > ${s})`;

/** Range selectors `[Nm]` / `[Ns]` / `[Nh]` are scaled; `[1d]` and offsets are left alone. */
export function scaleExpr(expr: string): string {
  let out = expr.replace(/\[(\d+[smh])\]/g, (_, d: string) => `[${scaleDuration(d)}]`);
  const guard = uptimeText(UPTIME_GUARD);
  const n = out.split(guard).length - 1;
  if (n > 1) throw new Error(`the uptime guard${guard} appears ${n} times`);
  if (n === 1) out = out.replace(guard, uptimeText(UPTIME_GUARD / TIME_SCALE));
  return out;
}

export function unscaleExpr(expr: string): string {
  let out = expr.replace(/\[(\d+)s\]/g, (_, s: string) => {
    const shipped = Number(s) * TIME_SCALE;
    return `[${shipped % 60 === 0 ? `${shipped / 60}m` : `${shipped}s`}]`;
  });
  out = out.replace(uptimeText(UPTIME_GUARD / TIME_SCALE), uptimeText(UPTIME_GUARD));
  return out;
}

export const SCALED_MIN_UPTIME_S = UPTIME_GUARD / TIME_SCALE;

const HEADER = `# TEST ONLY, not for use: @untorn/catalog's rules with range windows under a day, every \`for\` and
# the wait spike's uptime guard divided by ${TIME_SCALE} (dashboards/test/support/scaled-rules.ts).
# Baselines, names, thresholds and annotations are as shipped in generated/prometheus/.
`;

export function scaledRecordingRulesYaml(): string {
  // untorn.window is left out: no alert reads it, and the fleet tests load it as shipped.
  const groups = recordingRuleGroups
    .filter((g) => g.name !== "untorn.window")
    .map((g) => ({
      name: g.name,
      rules: g.rules.map((r) => ({
        record: r.record,
        // The baselines stay as shipped: a backfilled day stands behind them.
        expr: g.name === "untorn.baselines" ? r.expr : scaleExpr(r.expr),
      })),
    }));
  return HEADER + stringify({ groups }, { lineWidth: 0, minContentWidth: 0 });
}

export interface ScaledAlert {
  name: string;
  expr: string;
  for: string;
  shippedFor: string;
}

export const scaledAlerts: readonly ScaledAlert[] = alertRules.map((a) => ({
  name: a.name,
  expr: scaleExpr(a.expr),
  for: scaleDuration(a.for),
  shippedFor: a.for,
}));

export function scaledAlertRulesYaml(): string {
  const rules = alertRules.map((a) => {
    const r = prometheusAlertingRule(a);
    return { ...r, expr: scaleExpr(r.expr), for: scaleDuration(r.for) };
  });
  return (
    HEADER + stringify({ groups: [{ name: "untorn.alerts", rules }] }, { lineWidth: 0, minContentWidth: 0 })
  );
}
