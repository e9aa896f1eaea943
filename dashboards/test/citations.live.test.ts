// Every "why" the product ships must be followable: citations point at a section of docs/reference that
// exists (or at an upstream URL), never at a file outside the repository. Scans every tracked text file.
import { execFileSync } from "node:child_process";
import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const root = resolve(fileURLToPath(new URL(".", import.meta.url)), "..", "..");
const refDir = join(root, "docs", "reference");

// Files the engineers keep beside the repository; built from parts so this file does not name them.
const OUTSIDE_NAMES = ["DOMAIN", "ANCHORS", "DESIGN", "STYLE", "ROLLOUT"];
const OUTSIDE = [
  new RegExp(String.raw`\b(?:${OUTSIDE_NAMES.join("|")})\.md\b`),
  new RegExp(String.raw`\b${OUTSIDE_NAMES[0]}\s+(?:§\s*|sections?\s+)?\d`),
  new RegExp(String.raw`\b${OUTSIDE_NAMES[1]}\s+(?:[A-C]\d|section\s+\d)`),
  new RegExp(String.raw`\.\./${"shared"}/|/work/${"shared"}\b`),
  new RegExp(String.raw`\(${OUTSIDE_NAMES[2]}\b|\b${OUTSIDE_NAMES[2]},? analysis`),
];

// `docs/reference/<page>.md §N.N` followed by more sections of the same page (`, §N.N`).
const CITATION =
  /docs\/reference\/([A-Za-z0-9_-]+)\.md((?:\s*§\s*\d+(?:\.\d+)*)(?:\s*,\s*§\s*\d+(?:\.\d+)*)*)?/g;
const SECTION = /§\s*(\d+(?:\.\d+)*)/g;

/** Page name → the section numbers its headings start with. */
export function referenceSections(dir: string): Map<string, Set<string>> {
  const pages = new Map<string, Set<string>>();
  for (const file of readdirSync(dir)) {
    if (!file.endsWith(".md")) continue;
    const sections = new Set<string>();
    for (const line of readFileSync(join(dir, file), "utf8").split("\n")) {
      const m = /^#{1,6} (\d+(?:\.\d+)*)\.?\s/.exec(line);
      if (m?.[1]) sections.add(m[1]);
    }
    pages.set(file.replace(/\.md$/, ""), sections);
  }
  return pages;
}

/** Problems on one line of text: a reference to a file outside the repository, or a dangling citation. */
export function lineProblems(line: string, pages: Map<string, Set<string>>): string[] {
  const problems: string[] = [];
  for (const re of OUTSIDE)
    if (re.test(line)) {
      const hit = re.exec(line)?.[0] ?? "";
      problems.push(
        `refers to "${hit.trim()}", a file outside the repository: cite docs/reference/<page>.md §N or an upstream URL`,
      );
    }
  for (const m of line.matchAll(CITATION)) {
    const page = m[1] ?? "";
    const sections = pages.get(page);
    if (!sections) {
      problems.push(
        `cites docs/reference/${page}.md, which does not exist (pages: ${[...pages.keys()].join(", ")})`,
      );
      continue;
    }
    for (const s of (m[2] ?? "").matchAll(SECTION)) {
      const n = s[1] ?? "";
      if (!sections.has(n))
        problems.push(
          `cites docs/reference/${page}.md §${n}, which has no heading "${n} …" (it has §${[...sections].join(", §")})`,
        );
    }
  }
  return problems;
}

const SELF = "dashboards/test/citations.live.test.ts";

function trackedTextFiles(): string[] {
  const out = execFileSync("git", ["-C", root, "ls-files", "-z"], { encoding: "utf8", maxBuffer: 1 << 28 });
  return out
    .split("\0")
    .filter((f) => f && f !== SELF && existsSync(join(root, f)) && statSync(join(root, f)).isFile());
}

describe("citations", () => {
  const pages = referenceSections(refDir);

  it("has a reference page with numbered headings for every section family", () => {
    const expected: Record<string, string> = {
      versions: "0",
      mysql: "1.4",
      mariadb: "2.2",
      percona: "3",
      "status-counters": "4",
      "performance-schema": "5.1",
      grants: "6",
      "mysqld-exporter": "7.2",
      "atomic-storage": "8.7",
      "published-results": "9",
      traps: "10.12",
      "iops-metering": "11",
    };
    for (const [page, section] of Object.entries(expected))
      expect(pages.get(page)?.has(section), `docs/reference/${page}.md §${section}`).toBe(true);
  });

  it("flags references outside the repository and dangling sections", () => {
    const outside = `see ${OUTSIDE_NAMES[0]}.md 2.2`;
    expect(lineProblems(outside, pages)).toHaveLength(1);
    expect(lineProblems(`(${OUTSIDE_NAMES[0]} 2.1)`, pages)[0]).toMatch(/outside the repository/);
    expect(lineProblems(`(${OUTSIDE_NAMES[1]} A8, A9)`, pages)[0]).toMatch(/outside the repository/);
    expect(lineProblems(`(${OUTSIDE_NAMES[2]}: 60 s to 5 min)`, pages)[0]).toMatch(/outside the repository/);
    expect(lineProblems("(docs/reference/mariadb.md §2.9)", pages)[0]).toMatch(/§2\.9, which has no heading/);
    expect(lineProblems("(docs/reference/atomic-storage.md §8.5, §8.9)", pages)[0]).toMatch(/§8\.9/);
    expect(lineProblems("(docs/reference/nope.md §1)", pages)[0]).toMatch(/nope\.md, which does not exist/);
    expect(
      lineProblems("(docs/reference/mysql.md §1.4, docs/reference/mariadb.md §2.2, §2.3)", pages),
    ).toEqual([]);
    expect(lineProblems("docs/reference/mysql.md §1.4's default; see §99 elsewhere", pages)).toEqual([]);
  });

  it("every tracked file cites only what exists", () => {
    const problems: string[] = [];
    for (const file of trackedTextFiles()) {
      const buf = readFileSync(join(root, file));
      if (buf.includes(0)) continue;
      buf
        .toString("utf8")
        .split("\n")
        .forEach((line, i) => {
          for (const p of lineProblems(line, pages)) problems.push(`${file}:${i + 1}: ${p}`);
        });
    }
    expect(problems, `\n${problems.join("\n")}\n`).toEqual([]);
  });
});
