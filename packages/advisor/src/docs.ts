/**
 * The tables of docs/advisor.md that describe what runs, rendered from the registries themselves: the
 * safety gate's checks (src/gate-checks.ts), the profile's indicator groups (src/profile-groups.ts) and
 * the rules (src/rules.ts). A second hand-written table could drift; these cannot.
 */
import { gateChecks } from "./gate-checks.js";
import type { IndicatorMeta } from "./profile/indicator.js";
import { indicatorGroups } from "./profile-groups.js";
import { rules } from "./rules.js";

/** Escapes the one character that breaks a Markdown table cell. */
const cell = (s: string) => s.replaceAll("|", "\\|");
const code = (s: string) => `\`${s}\``;
const source = (s: string) => (s ? cell(s) : "counter arithmetic");

const PATH_TITLES: Record<string, string> = {
  "provider-managed": "Provider-managed",
  "zfs-copy-on-write": "ZFS copy-on-write",
  "hardware-atomic-write": "Hardware atomic write",
};

/** One row per gate check, in the order the gate runs them. */
export function gateChecksMarkdown(): string {
  const rows = gateChecks.map(({ meta: m }) =>
    [
      m.shared ? "every self-managed path" : (PATH_TITLES[m.path] ?? m.path),
      `${code(m.id)}: ${cell(m.title)}`,
      cell(m.appliesWhen),
      cell(m.passesWhen),
      m.needs.map(code).join(", "),
      source(m.source),
    ].join(" | "),
  );
  return [
    "| Path | Check | Runs when | Passes when | Reads | Source |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r} |`),
  ].join("\n");
}

/** The formula, and its remark (a correction, the versions it needs) after a semicolon. */
const formulaCell = (i: IndicatorMeta) => cell(i.remark ? `${i.formula}; ${i.remark}` : i.formula);

/** One row per indicator, grouped as the profile builds them. */
export function indicatorsMarkdown(): string {
  const rows = indicatorGroups.flatMap(({ meta: g }) =>
    g.indicators.map((i) =>
      [code(i.id), cell(i.label), i.unit, formulaCell(i), code(g.id), source(g.source)].join(" | "),
    ),
  );
  return [
    "| Indicator | Label | Unit | Formula | Group | Source |",
    "|---|---|---|---|---|---|",
    ...rows.map((r) => `| ${r} |`),
  ].join("\n");
}

/** One row per rule, sorted by id as registered. */
export function rulesMarkdown(): string {
  const rows = rules.map(({ meta: m }) =>
    [`[${m.id}](rules/${m.id}.md)`, m.severity, cell(m.description)].join(" | "),
  );
  return ["| Rule | Severity | What it reports |", "|---|---|---|", ...rows.map((r) => `| ${r} |`)].join(
    "\n",
  );
}
