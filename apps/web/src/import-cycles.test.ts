/**
 * No runtime import cycle among the console's own modules (issue 14: access.ts → proxy-auth.ts →
 * external-users.ts → access.ts was one). A cycle makes a module's exports undefined while another
 * is still evaluating, depending on which is imported first. Type-only imports are erased and so
 * may cycle.
 */
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

const SRC = dirname(fileURLToPath(import.meta.url));
const IMPORT =
  /(?:^|\n)\s*(?:import|export)\s+(type\s+)?([^'";]*?)\s*from\s*["']([^"']+)["']|(?:^|\n)\s*import\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

/** The relative module specifiers a source file loads at run time (`import type`, `{ type A }` skipped). */
function runtimeImports(source: string): string[] {
  const out: string[] = [];
  for (const m of source.matchAll(IMPORT)) {
    if (m[1]) continue;
    const names = m[2]?.trim();
    if (names && /^\{[^}]*\}$/.test(names)) {
      const parts = names
        .slice(1, -1)
        .split(",")
        .map((s) => s.trim())
        .filter(Boolean);
      if (parts.length > 0 && parts.every((p) => p.startsWith("type "))) continue;
    }
    const spec = m[3] ?? m[4] ?? m[5];
    if (spec?.startsWith(".")) out.push(spec);
  }
  return out;
}

/** Strongly connected groups of more than one module (or a module importing itself): the cycles. */
function cycles(graph: ReadonlyMap<string, readonly string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) !== index.get(v)) return;
    const group: string[] = [];
    let w: string;
    do {
      w = stack.pop()!;
      onStack.delete(w);
      group.push(w);
    } while (w !== v);
    if (group.length > 1 || graph.get(v)?.includes(v)) found.push(group.sort());
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((d) =>
    d.isDirectory() ? sourceFiles(join(dir, d.name)) : /\.tsx?$/.test(d.name) ? [join(dir, d.name)] : [],
  );
}

function resolveSpec(from: string, spec: string): string | undefined {
  const base = resolve(dirname(from), spec).replace(/\.js$/, "");
  return [`${base}.ts`, `${base}.tsx`, join(base, "index.ts"), join(base, "index.tsx")].find(existsSync);
}

describe("import cycles", () => {
  it("finds a cycle and ignores type-only imports", () => {
    expect(runtimeImports('import { a } from "./a.js";\nimport type { B } from "./b.js";')).toEqual([
      "./a.js",
    ]);
    expect(runtimeImports('import { type C, type D } from "./c.js";\nexport { e } from "./e.js";')).toEqual([
      "./e.js",
    ]);
    const g = new Map([
      ["a", ["b"]],
      ["b", ["c"]],
      ["c", ["a"]],
      ["d", ["a"]],
    ]);
    expect(cycles(g)).toEqual([["a", "b", "c"]]);
  });

  it("apps/web/src has none", () => {
    const files = sourceFiles(SRC);
    expect(files.length).toBeGreaterThan(100);
    const graph = new Map(
      files.map((f) => [
        relative(SRC, f),
        runtimeImports(readFileSync(f, "utf8")).flatMap((s) => {
          const r = resolveSpec(f, s);
          return r ? [relative(SRC, r)] : [];
        }),
      ]),
    );
    expect(graph.get("server/auth/access.ts")).toContain("server/auth/proxy-auth.ts");
    expect(cycles(graph)).toEqual([]);
  });
});
