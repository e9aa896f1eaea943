/**
 * Small typed helpers the catalog builds its PromQL with: label selectors with escaping, range windows,
 * and vector arithmetic that picks the right `on(...)`/`group_left` matching from the labels each side
 * carries. Every result is grouped by `instance` (plus the listed extra labels), so a fleet query is one
 * request whatever the fleet size and a one-instance query is the same text with a selector.
 */

import { isDuration, parseDuration } from "@untorn/vocabulary/duration";

export type MatchOp = "=" | "!=" | "=~" | "!~";

export interface Matcher {
  readonly op: MatchOp;
  readonly value: string;
}

/** Label matchers ANDed into every series selector of an expression. A bare string means `=`. */
export type Selector = Readonly<Record<string, string | Matcher>>;

export const eq = (value: string): Matcher => ({ op: "=", value });
export const re = (value: string): Matcher => ({ op: "=~", value });
export const nre = (value: string): Matcher => ({ op: "!~", value });

/** RE2 metacharacters, escaped by oneOf. */
const RE2_META = /[\\.+*?()|[\]{}^$]/g;

/**
 * `=~` matcher for exactly these values (e.g. a rollout's instances): metacharacters are escaped and
 * Prometheus anchors the regex, so `db-1:3306` never matches `db-1:33060`. An empty list throws: a
 * caller with nothing to ask should not query.
 */
export function oneOf(values: readonly string[]): Matcher {
  if (values.length === 0) throw new Error("oneOf needs at least one value");
  return re(values.map((v) => v.replace(RE2_META, "\\$&")).join("|"));
}

/** The label every signal keeps: one result series per database instance. */
export const INSTANCE = "instance";

const LABEL_NAME = /^[a-zA-Z_][a-zA-Z0-9_]*$/;
const METRIC_NAME = /^[a-zA-Z_:][a-zA-Z0-9_:]*$/;

function quote(value: string): string {
  return `"${value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n")}"`;
}

/** Renders matchers as `a="b", c=~"d"` (without braces); later selectors add to earlier ones. */
export function renderMatchers(...selectors: readonly Selector[]): string {
  const parts: string[] = [];
  for (const selector of selectors) {
    for (const [label, m] of Object.entries(selector)) {
      if (!LABEL_NAME.test(label)) throw new Error(`invalid label name ${JSON.stringify(label)}`);
      const matcher = typeof m === "string" ? eq(m) : m;
      parts.push(`${label}${matcher.op}${quote(matcher.value)}`);
    }
  }
  return parts.join(", ");
}

/**
 * A range window or offset: a PromQL duration (`30s`, `5m`, `1h30m`) or a Grafana variable that expands
 * to one (`$__rate_interval`, `$__range`, `${offset}`).
 */
export type Window = string;

const GRAFANA_VARIABLE = /^\$(\{[a-zA-Z_][a-zA-Z0-9_]*\}|[a-zA-Z_][a-zA-Z0-9_]*)$/;

/** A PromQL duration with a unit (the vocabulary's grammar; a bare "0" is no window). */
const isRangeDuration = (w: string) => w !== "0" && isDuration(w);

export function isWindow(w: string): boolean {
  return isRangeDuration(w) || GRAFANA_VARIABLE.test(w);
}

export function checkWindow(w: string): Window {
  if (!isWindow(w))
    throw new Error(`invalid window ${JSON.stringify(w)}: use a PromQL duration or a $variable`);
  return w;
}

/** Milliseconds of a PromQL duration (not of a variable). */
export function durationMs(w: string): number {
  if (!isRangeDuration(w)) throw new Error(`not a PromQL duration: ${JSON.stringify(w)}`);
  return parseDuration(w);
}

/** Where and when series are read: the selector, the range window and an optional offset. */
export interface Scope {
  readonly selector: Selector;
  readonly window: Window;
  readonly offset: Window | undefined;
}

/** `metric{matchers}` (instant vector), with the scope's offset. */
export function instant(scope: Scope, metric: string, ...extra: readonly Selector[]): string {
  if (!METRIC_NAME.test(metric)) throw new Error(`invalid metric name ${JSON.stringify(metric)}`);
  const m = renderMatchers(scope.selector, ...extra);
  return `${metric}${m ? `{${m}}` : ""}${scope.offset ? ` offset ${scope.offset}` : ""}`;
}

/** `metric{matchers}[window]` (range vector), with the scope's offset. */
export function range(scope: Scope, metric: string, ...extra: readonly Selector[]): string {
  if (!METRIC_NAME.test(metric)) throw new Error(`invalid metric name ${JSON.stringify(metric)}`);
  const m = renderMatchers(scope.selector, ...extra);
  return `${metric}${m ? `{${m}}` : ""}[${scope.window}]${scope.offset ? ` offset ${scope.offset}` : ""}`;
}

/**
 * An instant vector expression and the labels its series carry besides `instance`.
 * `atomic` is true when the text needs no parentheses as an operand (selector, call, aggregation).
 */
export interface Vec {
  readonly q: string;
  readonly labels: readonly string[];
  readonly atomic: boolean;
}

export const vec = (q: string, labels: readonly string[] = [], atomic = true): Vec => ({ q, labels, atomic });

const paren = (v: Vec): string => (v.atomic ? v.q : `(${v.q})`);
const by = (labels: readonly string[]): string => [INSTANCE, ...labels].join(", ");

/** `sum by (instance, ...labels) (inner)` */
export const sumBy = (labels: readonly string[], inner: string): Vec =>
  vec(`sum by (${by(labels)}) (${inner})`, labels);
/** `max by (instance, ...labels) (inner)` */
export const maxBy = (labels: readonly string[], inner: string): Vec =>
  vec(`max by (${by(labels)}) (${inner})`, labels);

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  return a.length === b.length && a.every((l) => b.includes(l));
}

function subset(a: readonly string[], b: readonly string[]): boolean {
  return a.every((l) => b.includes(l));
}

/** Vector matching clause for `a op b`, from the labels each side keeps. */
function matching(a: Vec, b: Vec): string {
  if (sameSet(a.labels, b.labels)) return `on(${by(a.labels)})`;
  // The empty label list is required: `group_left (x)` would read a parenthesised operand as labels.
  if (subset(b.labels, a.labels)) return `on(${by(b.labels)}) group_left()`;
  if (subset(a.labels, b.labels)) return `on(${by(a.labels)}) group_right()`;
  throw new Error(`cannot match [${a.labels}] with [${b.labels}]`);
}

const union = (a: readonly string[], b: readonly string[]): readonly string[] => [
  ...a,
  ...b.filter((l) => !a.includes(l)),
];

export type ArithOp = "+" | "-" | "*" | "/";

export function binary(a: Vec, op: ArithOp, b: Vec): Vec {
  return vec(`${paren(a)} ${op} ${matching(a, b)} ${paren(b)}`, union(a.labels, b.labels), false);
}

/** a ÷ b, dropping series whose denominator is 0 (instead of returning NaN or +Inf). */
export function ratio(a: Vec, b: Vec): Vec {
  return binary(a, "/", positive(b));
}

/** Keeps series whose value is > 0. */
export const positive = (v: Vec): Vec => vec(`(${paren(v)} > 0)`, v.labels);

/** a × k for a number k. */
export const scale = (a: Vec, k: number): Vec => vec(`${paren(a)} * ${k}`, a.labels, false);

/** Sum of a and b where both exist, else whichever exists (`a + b or a or b`). */
export function addPresent(a: Vec, b: Vec): Vec {
  if (!sameSet(a.labels, b.labels)) throw new Error("addPresent needs the same labels on both sides");
  const m = matching(a, b);
  return vec(`(${paren(a)} + ${m} ${paren(b)}) or ${m} ${paren(a)} or ${m} ${paren(b)}`, a.labels, false);
}

/** Series of a, or of b for instances where a has none. */
export function orElse(a: Vec, b: Vec): Vec {
  if (!sameSet(a.labels, b.labels)) throw new Error("orElse needs the same labels on both sides");
  return vec(`${paren(a)} or on(${INSTANCE}) ${paren(b)}`, a.labels, false);
}

/** Series of a for instances that also appear in b (b's value is ignored). */
export function onlyWhere(a: Vec, b: Vec): Vec {
  return vec(`${paren(a)} and on(${INSTANCE}) ${paren(b)}`, a.labels, false);
}

/** Series of a for instances that do not appear in b. */
export function unlessWhere(a: Vec, b: Vec): Vec {
  return vec(`${paren(a)} unless on(${INSTANCE}) ${paren(b)}`, a.labels, false);
}

export type CompareOp = ">" | ">=" | "<" | "<=" | "==" | "!=";

/** Filter: keeps series of a whose value compares true with the number k. */
export const where = (a: Vec, op: CompareOp, k: number): Vec =>
  vec(`${paren(a)} ${op} ${k}`, a.labels, false);

/** Comparison returning 1/0 per series (`bool`). */
export function compareBool(a: Vec, op: CompareOp, b: Vec): Vec {
  return vec(`${paren(a)} ${op} bool ${matching(a, b)} ${paren(b)}`, union(a.labels, b.labels), false);
}

/** Filter: keeps series of a whose value compares true with the matching series of b. */
export function compare(a: Vec, op: CompareOp, b: Vec): Vec {
  return vec(`${paren(a)} ${op} ${matching(a, b)} ${paren(b)}`, union(a.labels, b.labels), false);
}

/** `fn(v, ...args)` for functions that keep labels (clamp_min, clamp_max, abs, ...). */
export const call = (fn: string, v: Vec, ...args: readonly (number | string)[]): Vec =>
  vec(`${fn}(${[v.q, ...args.map(String)].join(", ")})`, v.labels);

/** `label_replace(v, dst, replacement, src, regex)`, adding dst to the kept labels. */
export function labelReplace(v: Vec, dst: string, replacement: string, src: string, regex: string): Vec {
  const labels = v.labels.includes(dst) ? v.labels : [...v.labels, dst];
  return vec(
    `label_replace(${v.q}, ${quote(dst)}, ${quote(replacement)}, ${quote(src)}, ${quote(regex)})`,
    labels,
  );
}

/** Ranking helper for fleet tables: the `k` largest series. */
export const topk = (k: number | string, v: Vec): Vec => vec(`topk(${k}, ${v.q})`, v.labels);

/** `count(v)`: a single series with the number of series in v (e.g. instances in the fleet). These fleet-wide
 * helpers end a composition: their result has no instance label. */
export const countAll = (v: Vec): Vec => vec(`count(${v.q})`, []);
/** v, or a single 0 when v is empty (counts that should read 0, not "no data"). */
export const orZero = (v: Vec): Vec => vec(`${paren(v)} or vector(0)`, [], false);
/** `sum(v)` over the whole fleet. */
export const sumAll = (v: Vec): Vec => vec(`sum(${v.q})`, []);

export { quote as quoteLabelValue };
