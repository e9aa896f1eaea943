/**
 * Checks PromQL text with the official grammar (@prometheus-io/lezer-promql, the parser of Prometheus's
 * own web UI): syntax errors and the metric names an expression reads. Syntax only: type errors such as
 * `rate()` of an instant vector need Prometheus itself (`promtool check rules`).
 */

import { parser } from "@prometheus-io/lezer-promql";

export interface PromqlIssue {
  readonly from: number;
  readonly to: number;
  /** The text around the problem. */
  readonly near: string;
}

export interface PromqlParse {
  readonly errors: readonly PromqlIssue[];
  /** Metric names of vector selectors (`foo{...}`), in order of appearance, without duplicates. */
  readonly metricNames: readonly string[];
  /** Label matchers of each vector selector, as written (`instance="db1"`), in order. */
  readonly selectors: readonly { readonly metric: string; readonly matchers: readonly string[] }[];
  /** Range durations as written (`5m`, `$__rate_interval` is not valid PromQL). */
  readonly ranges: readonly string[];
}

export function parsePromql(expr: string): PromqlParse {
  const tree = parser.parse(expr);
  const errors: PromqlIssue[] = [];
  const metricNames: string[] = [];
  const selectors: { metric: string; matchers: string[] }[] = [];
  const ranges: string[] = [];
  tree.iterate({
    enter: (node) => {
      if (node.type.isError) {
        errors.push({
          from: node.from,
          to: node.to,
          near: expr.slice(Math.max(0, node.from - 20), node.to + 20),
        });
        return;
      }
      if (node.name === "VectorSelector") {
        const ident = node.node.getChild("Identifier");
        const metric = ident ? expr.slice(ident.from, ident.to) : "";
        if (metric && !metricNames.includes(metric)) metricNames.push(metric);
        const matchers: string[] = [];
        const list = node.node.getChild("LabelMatchers");
        if (list) {
          for (let child = list.firstChild; child; child = child.nextSibling) {
            if (child.name.endsWith("LabelMatcher")) matchers.push(expr.slice(child.from, child.to));
          }
        }
        selectors.push({ metric, matchers });
      }
      if (node.name === "MatrixSelector") {
        const duration = node.node.getChild("DurationExpr");
        if (duration) ranges.push(expr.slice(duration.from, duration.to));
      }
    },
  });
  return { errors, metricNames, selectors, ranges };
}

/** Throws with the position of the first syntax error. */
export function assertPromql(expr: string): void {
  const { errors } = parsePromql(expr);
  const first = errors[0];
  if (first) throw new Error(`PromQL syntax error at ${first.from}: …${first.near}… in ${expr}`);
}
