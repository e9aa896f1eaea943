/**
 * No PromQL outside the catalog (docs/architecture.md, rules of the house): every product source file
 * outside packages/catalog is scanned for PromQL in its string and template literals (function calls,
 * range selectors and subqueries, label matchers, `by (...)` grouping, `offset`, vector matching). Callers
 * import a named signal or builder from @untorn/catalog instead. Tests, test fixtures and the test kit are
 * not product code and are not scanned.
 */
// biome-ignore-all lint/suspicious/noTemplateCurlyInString: the planted sources are TypeScript text, their ${…} is meant literally.
import { spawnSync } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, relative, resolve } from "node:path";
import ts from "typescript";
import { afterAll, describe, expect, it } from "vitest";

const REPO = resolve(import.meta.dirname, "../../..");

/** Product sources: every package, app, exporter and the dashboards generator, and their tools. */
const ROOTS = ["packages", "apps", "exporters", "dashboards"];
const SKIP_DIRS = new Set([
  "node_modules",
  "dist",
  ".next",
  "generated",
  "testdata",
  "fixtures",
  "testing",
  "test",
  "tests",
]);
/** The catalog owns PromQL; the test kit is test support (it writes Prometheus configs for tests). */
const SKIP_PACKAGES = ["packages/catalog", "packages/testkit"];

/**
 * Allowed findings, `path:line` → why. Empty: every query has a home in the catalog.
 */
const ALLOW: Readonly<Record<string, string>> = {};

/** Where a substitution `${...}` stood in a template literal. */
const HOLE = "\u0000";

const FUNCTIONS = [
  "rate",
  "irate",
  "increase",
  "delta",
  "idelta",
  "deriv",
  "predict_linear",
  "changes",
  "resets",
  "histogram_quantile",
  "label_replace",
  "label_join",
  "clamp_min",
  "clamp_max",
  "absent",
  "vector",
  "scalar",
  "topk",
  "bottomk",
  "count_values",
  "[a-z]+_over_time",
];
const AGGREGATIONS = "sum|avg|min|max|count|group|stddev|stdvar|topk|bottomk|quantile";

const PATTERNS: readonly { readonly name: string; readonly re: RegExp }[] = [
  // A call with an argument, written without a space (`rate()` and "the transaction rate (…)" are prose).
  { name: "function call", re: new RegExp(`\\b(?:${FUNCTIONS.join("|")})\\((?!\\s*\\))`) },
  { name: "aggregation by/without", re: new RegExp(`\\b(?:${AGGREGATIONS})\\s*(?:by|without)\\s*\\(`) },
  {
    name: "aggregation by/without",
    re: new RegExp(`\\b(?:${AGGREGATIONS})\\s*\\(.*\\)\\s*(?:by|without)\\s*\\(`),
  },
  { name: "range selector", re: /[}\w)]\s*\[\s*(?:\d+(?:ms|[smhdwy]))+\s*\]/ },
  // `${name}[${window}]`, `{…}[${window}]`; not `t[${i}]` (an index in a message).
  { name: "range selector", re: new RegExp(`[})${HOLE}]\\[${HOLE}\\]`) },
  {
    name: "subquery",
    re: new RegExp(
      `\\)\\s*\\[(?:${HOLE}|\\s*(?:\\d+(?:ms|[smhdwy]))+)\\s*:\\s*(?:${HOLE}|(?:\\d+(?:ms|[smhdwy]))*)\\s*\\]`,
    ),
  },
  { name: "label matcher", re: /\{\s*[a-zA-Z_]\w*\s*(?:=~|!~|!=|=)\s*\\?"/ },
  { name: "offset", re: new RegExp(`[}\\])${HOLE}]\\s*offset\\s+(?:-?\\d+(?:ms|[smhdwy])|${HOLE})`) },
  {
    name: "vector matching",
    re: /\b(?:or|and|unless|[*/+-])\s+(?:on|ignoring)\s*\(|\bgroup_(?:left|right)\b/,
  },
];

export interface Finding {
  readonly file: string;
  readonly line: number;
  readonly pattern: string;
  readonly text: string;
}

/** PromQL found in the string and template literals of one TypeScript source. */
export function scanSource(file: string, code: string): Finding[] {
  const sf = ts.createSourceFile(file, code, ts.ScriptTarget.Latest, true, ts.ScriptKind.TSX);
  const out: Finding[] = [];
  const check = (node: ts.Node, text: string) => {
    for (const p of PATTERNS) {
      if (!p.re.test(text)) continue;
      const line = sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1;
      out.push({ file, line, pattern: p.name, text: text.replaceAll(HOLE, "${…}").slice(0, 160) });
      return;
    }
  };
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteral(node) || ts.isNoSubstitutionTemplateLiteral(node)) check(node, node.text);
    else if (ts.isTemplateExpression(node)) {
      check(node, [node.head.text, ...node.templateSpans.map((s) => s.literal.text)].join(HOLE));
    }
    ts.forEachChild(node, visit);
  };
  visit(sf);
  return out;
}

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, e.name);
    if (e.isDirectory()) {
      if (!SKIP_DIRS.has(e.name) && !e.name.startsWith(".")) out.push(...sourceFiles(p));
    } else if (
      /\.tsx?$/.test(e.name) &&
      !/\.(test|spec|e2e)\.tsx?$/.test(e.name) &&
      !e.name.endsWith(".d.ts")
    ) {
      out.push(p);
    }
  }
  return out;
}

/** Findings under `root` (a repository layout), minus the allow-list. */
export function scanTree(root: string, allow: Readonly<Record<string, string>> = ALLOW): Finding[] {
  const files = ROOTS.flatMap((r) => {
    try {
      return sourceFiles(join(root, r));
    } catch {
      return [];
    }
  }).filter((f) => !SKIP_PACKAGES.some((p) => relative(root, f).startsWith(`${p}/`)));
  return files
    .flatMap((f) => scanSource(relative(root, f), readFileSync(f, "utf8")))
    .filter((x) => !(`${x.file}:${x.line}` in allow));
}

describe("no PromQL outside the catalog", () => {
  it("finds none in the product sources", () => {
    const found = scanTree(REPO).map((f) => `${f.file}:${f.line} (${f.pattern}) ${f.text}`);
    expect(found).toEqual([]);
  });

  it("scans a real tree: the fleet plan and the dashboards are among the files read", () => {
    const files = ROOTS.flatMap((r) => sourceFiles(join(REPO, r))).map((f) => relative(REPO, f));
    expect(files).toContain("packages/fleet/src/plan.ts");
    expect(files).toContain("dashboards/src/house.ts");
  });

  it.each([
    ["const q = `rate(${metric}[5m])`;", "function call"],
    ['const q = "sum by (instance) (up)";', "aggregation by/without"],
    ["const q = `max(${x}) by (instance)`;", "aggregation by/without"],
    ['const q = `${name}{instance="db1"}`;', "label matcher"],
    ["const q = `untorn_mysql_up[5m]`;", "range selector"],
    ["const q = `${name}[${window}]`;", "range selector"],
    ["const q = `(${v})[${range}:${step}]`;", "subquery"],
    ["const q = `(${v})[1h:1m]`;", "subquery"],
    ["const q = `${v} offset ${shift}`;", "offset"],
    ["const q = `${a} or on(instance) ${b}`;", "vector matching"],
    ['const q = "quantile_over_time(0.95, x[1h])";', "function call"],
  ])("flags %s", (code, pattern) => {
    expect(scanSource("planted.ts", code).map((f) => f.pattern)).toEqual([pattern]);
  });

  it.each([
    'const msg = "the rate window must be longer than 0";',
    "const msg = `window ${w} must be at least one step`;",
    'const label = "Rate (per second)";',
    "const css = `grid-template-columns: repeat(2, 1fr)`;",
    'const path = "/api/v1/query_range";',
    "const x = arr[5];",
    'const doc = "rows written by the handler";',
  ])("lets %s pass", (code) => {
    expect(scanSource("ok.ts", code)).toEqual([]);
  });

  const tmp = mkdtempSync(join(tmpdir(), "promql-boundary-"));
  afterAll(() => rmSync(tmp, { recursive: true, force: true }));

  it("fails on a violation planted in a product source, not in a test or in the catalog", () => {
    const write = (path: string, code: string) => {
      mkdirSync(join(tmp, path, ".."), { recursive: true });
      writeFileSync(join(tmp, path), code);
    };
    write("packages/fleet/src/plan.ts", 'export const q = "sum by (instance) (rate(x[5m]))";\n');
    write("packages/fleet/src/plan.test.ts", 'export const q = "rate(x[5m])";\n');
    write("packages/catalog/src/signals.ts", 'export const q = "rate(x[5m])";\n');
    write("apps/web/src/server/data.ts", "export const ok = 1;\n");
    expect(scanTree(tmp)).toEqual([expect.objectContaining({ file: "packages/fleet/src/plan.ts", line: 1 })]);
    expect(scanTree(tmp, { "packages/fleet/src/plan.ts:1": "planted" })).toEqual([]);
  });

  it("the biome plugin (biome.json) flags the planted violation in product code only", () => {
    const dir = join(tmp, "biome");
    const write = (path: string, code: string) => {
      mkdirSync(join(dir, path, ".."), { recursive: true });
      writeFileSync(join(dir, path), code);
    };
    const config = JSON.parse(readFileSync(join(REPO, "biome.json"), "utf8")) as {
      overrides: { includes: string[]; plugins?: string[] }[];
    };
    const override = config.overrides.find((o) => o.plugins?.some((p) => p.endsWith("no-promql.grit")));
    expect(override).toBeDefined();
    const plugins = override!.plugins!.map((p) => resolve(REPO, p));
    write("biome.json", JSON.stringify({ overrides: [{ includes: override!.includes, plugins }] }));
    const planted = "export const q = `sum by (instance) (rate(${name}[5m]))`;\n";
    write("packages/fleet/src/plan.ts", planted);
    write("packages/fleet/src/plan.test.ts", planted);
    write("packages/catalog/src/signals.ts", planted);
    write("apps/web/src/server/data.ts", 'export const msg = "the transaction rate (per second)";\n');
    const r = spawnSync(join(REPO, "node_modules/.bin/biome"), ["lint", "--max-diagnostics=50", "."], {
      cwd: dir,
      encoding: "utf8",
    });
    const out = r.stdout + r.stderr;
    expect(r.status, out).not.toBe(0);
    const flagged = [...out.matchAll(/^(\S+\.ts):\d+:\d+ plugin/gm)].map((m) => m[1]);
    expect(flagged).toEqual(["packages/fleet/src/plan.ts"]);
    expect(out).toContain("PromQL outside the catalog");
  }, 120_000);
});
