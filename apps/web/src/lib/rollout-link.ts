/**
 * "Plan a rollout" for a finding: the engine's change its action proposes, and the plan editor's URL
 * prefilled with it and the finding's instances. Pure; the editor validates the query again.
 */
import type { ConfigChange, Finding } from "@untorn/advisor/rule";

/** What changeFieldsOf reads of a finding: a full Finding is one, and so is the snapshot's kept copy. */
export interface ChangeSource {
  readonly blocked: Finding["blocked"];
  readonly actions: readonly { readonly changes: readonly Pick<ConfigChange, "variable" | "to">[] }[];
}

/** The plan editor's query fields for the change a finding's actions carry, or null (nothing to roll out). */
export function changeFieldsOf(finding: ChangeSource): Record<string, string> | null {
  if (finding.blocked !== null) return null;
  for (const a of finding.actions)
    for (const c of a.changes) {
      const to = c.to.trim();
      switch (c.variable) {
        case "innodb_doublewrite":
          if (/^(off|0|false)$/i.test(to)) return { kind: "doublewrite-off" };
          // Torn-page protection back (the critical "doublewrite OFF on unverified storage"): without a
          // required control, so a standalone server is planned too (judged before/after).
          if (/^(on|1|true)$/i.test(to)) return { kind: "doublewrite-on", requireControl: "off" };
          if (/^detect_only$/i.test(to)) return { kind: "doublewrite-detect-only" };
          break;
        case "innodb_doublewrite_pages":
          if (/^\d{1,3}$/.test(to)) return { kind: "doublewrite-pages", pages: to };
          break;
        case "innodb_flush_method":
          return { kind: "flush-method", method: to };
        case "rds.optimized_writes":
          return { kind: "atomic-storage", platform: "rds-blue-green" };
        case "alibaba.16k_atomic_write":
          return { kind: "atomic-storage", platform: "alibaba-16k" };
      }
    }
  return null;
}

/** `/rollouts/new?…` for `fields` (from changeFieldsOf) on `instances`, naming the rule it came from. */
export function planHref(
  fields: Record<string, string>,
  instances: readonly string[],
  ruleId: string,
): string {
  const p = new URLSearchParams({ ...fields, rule: ruleId });
  for (const i of instances) p.append("target", i);
  return `/rollouts/new?${p}`;
}
