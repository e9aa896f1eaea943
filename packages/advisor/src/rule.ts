/**
 * The shape of an advisor rule, after ESLint rule modules and PMM advisor checks: a declared `meta`
 * and a pure `evaluate(facts, profile, ctx)` returning zero or more findings.
 */

import type { Capabilities } from "@untorn/vocabulary/capabilities";
import { SEVERITIES, type Severity } from "@untorn/vocabulary/words";
import type { z } from "zod";
import type { FactPath, InstanceFacts } from "./facts.js";
import type { GainEstimate } from "./gain.js";
import type { GateStatus, SafetyGate } from "./gate.js";
import type { IndicatorId, Profile, Unit } from "./profile.js";
import type { Verdict } from "./verdict.js";

/** PMM's levels: critical (data at risk), error, warning, notice (information, no risk). */
export { SEVERITIES, type Severity };

export type Platform =
  | "mysql-option-file"
  | "mysql-runtime"
  | "mariadb-option-file"
  | "mariadb-runtime"
  | "aws-rds"
  | "alibaba-rds"
  | "host"
  | "monitoring";

export interface Snippet {
  readonly language: "ini" | "sql" | "shell";
  readonly text: string;
}

/** A machine-readable configuration change, for the rollout planner and the safety property. */
export interface ConfigChange {
  readonly variable: string;
  readonly from: string | null;
  readonly to: string;
  readonly via: "option-file" | "runtime" | "parameter-group" | "blue-green" | "console" | "host";
  readonly restart: boolean;
  /** Sets innodb_doublewrite to OFF or DETECT_ONLY: allowed only behind a verified safety gate. */
  readonly removesTornPageProtection: boolean;
}

export interface Action {
  readonly platform: Platform;
  readonly title: string;
  readonly steps: readonly string[];
  readonly snippets: readonly Snippet[];
  readonly restart: boolean;
  readonly changes: readonly ConfigChange[];
}

export interface FindingEvidence {
  readonly label: string;
  readonly value: number | string | null;
  readonly unit?: Unit | "bytes" | "text";
}

export interface Risk {
  readonly level: "none" | "low" | "medium" | "high";
  readonly text: string;
}

export interface Finding {
  readonly ruleId: string;
  readonly severity: Severity;
  readonly title: string;
  /** One paragraph with the computed numbers. */
  readonly summary: string;
  readonly evidence: readonly FindingEvidence[];
  /** What to do, per platform; empty when there is nothing to change. */
  readonly actions: readonly Action[];
  readonly expectedGain: GainEstimate | null;
  readonly risk: Risk;
  readonly prerequisites: readonly string[];
  /** Repository path of the rule's page, e.g. docs/rules/doublewrite-share-high.md. */
  readonly docs: string;
  /** Set when the gain needs a step the safety gate does not allow yet. */
  readonly blocked: {
    readonly gate: GateStatus;
    readonly reason: string;
    readonly toVerify: readonly string[];
  } | null;
  /** 0..1: the verdict's confidence, lowered when the rule's own inputs were missing. */
  readonly confidence: number;
}

export interface RuleMeta<O> {
  /** kebab-case, equals the file name under src/rules and the docs page name. */
  readonly id: string;
  /** Highest severity the rule reports. */
  readonly severity: Severity;
  readonly title: string;
  readonly description: string;
  readonly docs: string;
  /** What the rule reads: fact paths and profile indicators. */
  readonly needs: { readonly facts: readonly FactPath[]; readonly indicators: readonly IndicatorId[] };
  /** Options schema with defaults; `{}` must parse. */
  readonly options: z.ZodType<O>;
}

export interface RuleContext<O> {
  readonly options: O;
  readonly caps: Capabilities;
  readonly verdict: Verdict;
  readonly gate: SafetyGate;
}

export interface Rule<O = unknown> {
  readonly meta: RuleMeta<O>;
  evaluate(facts: InstanceFacts, profile: Profile, ctx: RuleContext<O>): readonly Finding[];
}

/** Identity helper that ties a rule's options type to its schema. */
export function defineRule<O>(rule: Rule<O>): Rule<O> {
  return rule;
}

export const docsPath = (id: string) => `docs/rules/${id}.md`;

/** Confidence of a finding: the verdict's, times the share of the rule's indicators that were present. */
export function findingConfidence(base: number, profile: Profile, used: readonly IndicatorId[]): number {
  if (used.length === 0) return round2(base);
  const present = used.filter((id) => profile.indicators[id].value !== null).length;
  return round2(base * (0.5 + (0.5 * present) / used.length));
}

const round2 = (x: number) => Math.round(x * 100) / 100;

/** Fills the fields every finding shares; rules pass what they computed. */
export function makeFinding(
  meta: { readonly id: string; readonly docs: string },
  f: Pick<Finding, "severity" | "title" | "summary" | "risk" | "confidence"> & Partial<Finding>,
): Finding {
  return {
    ruleId: meta.id,
    docs: meta.docs,
    evidence: [],
    actions: [],
    expectedGain: null,
    prerequisites: [],
    blocked: null,
    ...f,
  };
}

/** Evidence entry from a profile indicator. */
export function indicatorEvidence(profile: Profile, id: IndicatorId): FindingEvidence {
  const i = profile.indicators[id];
  return { label: i.label, value: i.value, unit: i.unit };
}

/** Identity helper that keeps a meta's literal types and ties its options type to the schema. */
export function defineMeta<O>(meta: RuleMeta<O>): RuleMeta<O> {
  return meta;
}

/** A rule with its options type erased: options are parsed (with defaults) from raw input. */
export interface RegisteredRule {
  readonly meta: RuleMeta<unknown>;
  run(
    facts: InstanceFacts,
    profile: Profile,
    ctx: Omit<RuleContext<unknown>, "options">,
    options: unknown,
  ): readonly Finding[];
}

/**
 * Registers a rule. Its options are parsed on each run, but for `undefined` (the rule not configured):
 * the defaults are parsed once, frozen, and shared by every run (10,000 instances advised parse them
 * once, not 10,000 times).
 */
export function register<O>(rule: Rule<O>): RegisteredRule {
  let defaults: O | undefined;
  return {
    meta: rule.meta,
    run: (facts, profile, ctx, options) => {
      let parsed: O;
      if (options !== undefined) parsed = rule.meta.options.parse(options);
      else {
        defaults ??= deepFreeze(rule.meta.options.parse({}));
        parsed = defaults;
      }
      // One literal in the key order of `{ ...ctx, options }`: V8 copies a spread on its slow path.
      return rule.evaluate(facts, profile, {
        caps: ctx.caps,
        verdict: ctx.verdict,
        gate: ctx.gate,
        options: parsed,
      });
    },
  };
}

/** `x` with every object inside it frozen (shared defaults stay as parsed). */
function deepFreeze<T>(x: T): T {
  if (typeof x === "object" && x !== null && !Object.isFrozen(x)) {
    Object.freeze(x);
    for (const v of Object.values(x)) deepFreeze(v);
  }
  return x;
}
