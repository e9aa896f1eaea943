/**
 * The advisor's entry point: facts in; profile, write-bound verdict, findings and safety gate out.
 * Pure and deterministic: the same facts always give the same result (no clock, no randomness).
 * Validate untrusted input with parseInstanceFacts first.
 */
import { type Capabilities, formatVersion } from "@untorn/vocabulary/capabilities";
import { capabilitiesFor } from "./capabilities.js";
import type { InstanceFacts } from "./facts.js";
import { evaluateGate, type SafetyGate } from "./gate.js";
import { type InputWarning, inputWarnings } from "./input-warnings.js";
import { buildProfile, type Profile } from "./profile.js";
import { type Finding, SEVERITIES } from "./rule.js";
import { rules } from "./rules.js";
import { judgeWriteBound, type Verdict } from "./verdict.js";

export interface AdviseOptions {
  /** Per rule id: "off" to disable, or the rule's options (validated by its schema, defaults applied). */
  readonly rules?: Readonly<Record<string, "off" | Record<string, unknown>>>;
}

export interface Advice {
  readonly identity: InstanceFacts["identity"];
  readonly server: {
    readonly flavor: InstanceFacts["server"]["flavor"];
    readonly version: string;
    readonly capabilities: Capabilities;
  };
  readonly profile: Profile;
  readonly verdict: Verdict;
  readonly findings: readonly Finding[];
  readonly safetyGate: SafetyGate;
  /** Facts that were contradicted, ignored or overridden (docs/advisor.md "Input warnings"). */
  readonly warnings: readonly InputWarning[];
}

/**
 * The gate invariant, enforced here whatever a rule returns: a step that sets innodb_doublewrite to
 * OFF or DETECT_ONLY survives only behind a verified gate. Otherwise the step is dropped and the
 * finding is marked blocked with what would verify the gate.
 */
export function enforceGate(finding: Finding, gate: SafetyGate): Finding {
  if (gate.status === "verified") return finding;
  const unsafe = finding.actions.filter((a) => a.changes.some((c) => c.removesTornPageProtection));
  if (unsafe.length === 0) return finding;
  return {
    ...finding,
    actions: finding.actions.filter((a) => !unsafe.includes(a)),
    blocked: {
      gate: gate.status,
      reason: `Removing doublewrite needs a verified safety gate; it is ${gate.status}.`,
      toVerify: gate.toVerify,
    },
  };
}

const severityRank = (s: Finding["severity"]) => SEVERITIES.indexOf(s);

export function advise(facts: InstanceFacts, options: AdviseOptions = {}): Advice {
  const caps = capabilitiesFor(facts);
  const profile = buildProfile(facts, caps);
  const verdict = judgeWriteBound(facts, caps, profile);
  const safetyGate = evaluateGate(facts, caps);
  const findings: Finding[] = [];
  for (const rule of rules) {
    const configured = options.rules?.[rule.meta.id];
    if (configured === "off") continue;
    for (const f of rule.run(facts, profile, { caps, verdict, gate: safetyGate }, configured))
      findings.push(enforceGate(f, safetyGate));
  }
  findings.sort(
    (a, b) =>
      severityRank(a.severity) - severityRank(b.severity) ||
      (a.ruleId < b.ruleId ? -1 : a.ruleId > b.ruleId ? 1 : 0),
  );
  return {
    identity: facts.identity,
    server: { flavor: facts.server.flavor, version: formatVersion(caps.version), capabilities: caps },
    profile,
    verdict,
    findings,
    safetyGate,
    warnings: inputWarnings(facts, caps),
  };
}
