/**
 * Prometheus rule files (dashboards/generated/prometheus/*.yml) from the catalog: recording rules and
 * alerting rules, with each threshold's reason as a comment above its alert.
 */

import { type AlertRule, alertRuleGroups, alertRules } from "@untorn/catalog/alerts";
import { recordingRuleGroups } from "@untorn/catalog/rules";
import { type CommentAt, GENERATED_HEADER, toYaml } from "./yaml.js";

export const RECORDING_RULES_FILE = "generated/prometheus/untorn-recording-rules.yml";
export const ALERT_RULES_FILE = "generated/prometheus/untorn-alert-rules.yml";

export function recordingRulesYaml(): string {
  const comments: CommentAt[] = [];
  const groups = recordingRuleGroups.map((g, gi) => ({
    name: g.name,
    ...(g.interval ? { interval: g.interval } : {}),
    rules: g.rules.map((r, ri) => {
      comments.push([["groups", gi, "rules", ri], r.help]);
      return { record: r.record, expr: r.expr };
    }),
  }));
  return toYaml({ groups }, GENERATED_HEADER, comments);
}

/** The comment above an alert: severity, `for` and every threshold with its reason. */
export function alertComment(a: AlertRule): string {
  const lines = [`${a.name} (${a.severity}). for ${a.for}: ${a.forReason}`];
  for (const [name, t] of Object.entries(a.thresholds))
    lines.push(`${name} = ${t.value} ${t.unit}: ${t.reason}`);
  return lines.join("\n");
}

export function alertRulesYaml(): string {
  const comments: CommentAt[] = alertRules.map((a, i) => [["groups", 0, "rules", i], alertComment(a)]);
  const header = `${GENERATED_HEADER}\n Load together with untorn-recording-rules.yml: the alerts read its series.`;
  return toYaml({ groups: alertRuleGroups }, header, comments);
}
