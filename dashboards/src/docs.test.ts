import { readFile } from "node:fs/promises";
import { join } from "node:path";
import { alertRules } from "@untorn/catalog/alerts";
import { describe, expect, it } from "vitest";
import { PACKAGE_DIR } from "./generate.js";

const runbook = await readFile(join(PACKAGE_DIR, "../docs/runbook.md"), "utf8");

/** The text under `## <heading>` up to the next `## `. */
function section(markdown: string, heading: string): string | undefined {
  const start = markdown.indexOf(`\n## ${heading}\n`);
  if (start < 0) return undefined;
  const end = markdown.indexOf("\n## ", start + 1);
  return markdown.slice(start, end < 0 ? undefined : end);
}

describe("docs/runbook.md", () => {
  it.each(alertRules.map((a) => [a.name, a] as const))("has a section for %s", (name, a) => {
    const text = section(runbook, name);
    expect(text, `no "## ${name}" section`).toBeDefined();
    // GitHub's anchor for the heading is the runbook slug the alert links to.
    expect(name.toLowerCase()).toBe(a.runbook);
    for (const part of ["### Meaning", "### Impact", "### Diagnosis", "### Mitigation"])
      expect(text).toContain(part);
    expect(text).toContain(`**Severity:** ${a.severity}`);
    const minutes = Number.parseInt(a.for, 10);
    expect(text).toContain(`for ${minutes} minutes`);
    for (const [key, t] of Object.entries(a.thresholds))
      expect(text, `${name}.${key}`).toContain(`**${t.value}`);
  });

  it("covers no alert that does not exist", () => {
    const headings = [...runbook.matchAll(/^## (Untorn\w+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(alertRules.map((a) => a.name));
  });
});
